package engine

import (
	"math/rand/v2"
	"testing"
)

type recorder struct {
	got []uint64
	at  []Time
}

// tagged fires into a recorder with its own tag.
type tagged struct {
	r   *recorder
	tag uint64
}

func (t tagged) Fire(now Time, _ uint8) {
	t.r.got = append(t.r.got, t.tag)
	t.r.at = append(t.r.at, now)
}

func (r *recorder) Fire(now Time, kind uint8) {
	r.got = append(r.got, uint64(kind))
	r.at = append(r.at, now)
}

// Events pop in time order; equal times pop in scheduling order.
func TestQueueOrderAndFIFOTies(t *testing.T) {
	s := NewSim(1)
	r := &recorder{}
	rng := rand.New(rand.NewPCG(1, 2))
	type ev struct {
		at  Time
		arg uint64
	}
	var want []ev
	for i := 0; i < 5000; i++ {
		at := Time(rng.IntN(100)) // many ties
		s.At(at, tagged{r, uint64(i)}, 0)
		want = append(want, ev{at, uint64(i)})
	}
	// stable sort by time = FIFO among ties
	for i := 1; i < len(want); i++ {
		for j := i; j > 0 && want[j].at < want[j-1].at; j-- {
			want[j], want[j-1] = want[j-1], want[j]
		}
	}
	if !s.Run(Never - 1) {
		t.Fatal("Run did not drain the queue")
	}
	for i, w := range want {
		if r.got[i] != w.arg || r.at[i] != w.at {
			t.Fatalf("event %d: got arg %d at %v, want arg %d at %v", i, r.got[i], r.at[i], w.arg, w.at)
		}
	}
	if s.Events() != 5000 {
		t.Fatalf("Events() = %d, want 5000", s.Events())
	}
}

type stopper struct{ s *Sim }

func (st stopper) Fire(Time, uint8) { st.s.Stop() }

func TestRunUntilAndStop(t *testing.T) {
	s := NewSim(1)
	r := &recorder{}
	s.At(10, r, 1)
	s.At(20, r, 2)
	s.At(30, r, 3)
	if s.Run(20) {
		t.Fatal("Run(20) reported an empty queue")
	}
	if len(r.got) != 2 || s.Now() != 20 {
		t.Fatalf("after Run(20): %d events, now %v; want 2 events, now 20ps", len(r.got), s.Now())
	}
	s.At(25, stopper{s}, 0)
	s.Run(Never - 1)
	if s.Now() != 25 || len(r.got) != 2 {
		t.Fatalf("Stop: now %v with %d events, want now 25ps with 2", s.Now(), len(r.got))
	}
	s.Run(Never - 1)
	if len(r.got) != 3 {
		t.Fatalf("resume after Stop: %d events, want 3", len(r.got))
	}
}

func TestSchedulingInThePastPanics(t *testing.T) {
	s := NewSim(1)
	s.At(10, &recorder{}, 0)
	s.Run(Never - 1)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic scheduling before now")
		}
	}()
	s.At(5, &recorder{}, 0)
}

// Named streams are reproducible and independent of each other.
func TestStreams(t *testing.T) {
	a1 := NewStream(7, "arrivals").Uint64()
	a2 := NewStream(7, "arrivals").Uint64()
	b := NewStream(7, "ecmp").Uint64()
	c := NewStream(8, "arrivals").Uint64()
	if a1 != a2 {
		t.Fatal("same seed and name gave different draws")
	}
	if a1 == b || a1 == c {
		t.Fatal("different names or seeds gave the same first draw")
	}
}

// Steady-state push+pop allocates nothing.
func TestQueueNoAllocs(t *testing.T) {
	var q Queue
	h := &recorder{}
	for i := 0; i < 1000; i++ {
		q.Push(Time(i), h, 0)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		e := q.pop()
		q.Push(e.at+1000, h, 0)
	})
	if allocs != 0 {
		t.Fatalf("push+pop allocates %.1f times, want 0", allocs)
	}
}

type nop struct{}

func (nop) Fire(Time, uint8) {}

// BenchmarkQueue measures one pop+push with n pending events, spread over a
// 1 us horizon like link deliveries. With 10 pending, the wheel is nearly
// empty and each pop skips about 100 ns of empty buckets (the bitmap's
// summary words).
func BenchmarkQueue(b *testing.B) {
	for _, n := range []int{10, 1000, 100_000} {
		b.Run(itoa(n), func(b *testing.B) {
			var q Queue
			rng := rand.New(rand.NewPCG(1, 1))
			for i := 0; i < n; i++ {
				q.Push(Time(rng.IntN(1_000_000)), nop{}, 0)
			}
			var delta [4096]Time
			for i := range delta {
				delta[i] = Time(rng.IntN(1_000_000))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := q.pop()
				q.Push(e.at+delta[i&4095], e.h, 0)
			}
		})
	}
}

func itoa(n int) string {
	switch n {
	case 10:
		return "pending=1e1"
	case 1000:
		return "pending=1e3"
	case 100_000:
		return "pending=1e5"
	}
	return "n"
}

// The queue agrees with a reference (a slice sorted by time, then by
// scheduling order) under any mix of pushes, pops and pop-then-pushes. Times
// are the last popped time plus an offset drawn from one of three scales:
// picoseconds (ties everywhere, within one bucket), nanoseconds to
// microseconds (across the wheel) and milliseconds (the overflow heap).
func TestQueueMatchesReference(t *testing.T) {
	type ref struct {
		at  Time
		seq uint64
	}
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var q Queue
		var want []ref
		var seq uint64
		var last Time
		popRef := func() ref {
			best := 0
			for j := range want {
				if want[j].at < want[best].at || (want[j].at == want[best].at && want[j].seq < want[best].seq) {
					best = j
				}
			}
			r := want[best]
			want = append(want[:best], want[best+1:]...)
			return r
		}
		scales := []int{1 + rng.IntN(40), 1 + rng.IntN(10_000_000), 1 + rng.IntN(5_000_000_000)}
		draw := func() Time {
			return last + Time(rng.IntN(scales[rng.IntN(3)]))
		}
		for step := 0; step < 4000; step++ {
			switch op := rng.IntN(3); {
			case op == 0 || len(want) == 0:
				seq++
				at := draw()
				q.Push(at, nop{}, 0)
				want = append(want, ref{at, seq})
			case op == 1:
				if got := q.Peek(); got > want[0].at {
					t.Fatalf("seed %d step %d: peek %v after %v", seed, step, got, want[0].at)
				}
				got, w := q.pop(), popRef()
				if got.at != w.at || got.key>>8 != w.seq {
					t.Fatalf("seed %d step %d: pop got (%v, %d), want (%v, %d)", seed, step, got.at, got.key>>8, w.at, w.seq)
				}
				last = got.at
			default:
				w := popRef()
				if top := q.Peek(); top != w.at {
					t.Fatalf("seed %d step %d: top at %v, want %v", seed, step, top, w.at)
				}
				last = w.at
				seq++
				at := draw()
				q.pop()
				q.Push(at, nop{}, 0)
				want = append(want, ref{at, seq})
			}
			if q.Len() != len(want) {
				t.Fatalf("seed %d step %d: %d pending, want %d", seed, step, q.Len(), len(want))
			}
		}
	}
}

// A nearly empty wheel finds its next bucket through the bitmap's summary
// words, across summary words and around the end of the bucket array:
// events one bucket, one bitmap word, one summary word and almost the
// whole window apart pop in time order, from the start and again from a
// clock near the array's end (so the later ones sit at lower indices).
func TestQueueSparseWheel(t *testing.T) {
	const w = Time(1) << bucketShift // one bucket
	for _, start := range []Time{0, (wheelBuckets - 70) * w} {
		var q Queue
		q.Push(start, nop{}, 0)
		q.pop() // the clock is now at start's bucket
		offsets := []Time{w, 64 * w, 65 * w, 64 * 64 * w, 64*64*w + 1, 3 * 64 * 64 * w, (wheelBuckets - 1) * w}
		for i := len(offsets) - 1; i >= 0; i-- { // pushed latest first
			q.Push(start+offsets[i], nop{}, 0)
		}
		for _, off := range offsets {
			if got, want := q.Peek(), start+off; got != want {
				t.Fatalf("start %v: peek got %v, want %v", start, got, want)
			}
			if got, want := q.pop().at, start+off; got != want {
				t.Fatalf("start %v: pop got %v, want %v", start, got, want)
			}
		}
		if got := q.Len(); got != 0 {
			t.Fatalf("start %v: %d pending, want 0", start, got)
		}
	}
}
