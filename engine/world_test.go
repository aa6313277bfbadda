package engine

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"
)

// toyUnit is a unit of a synthetic model for World's tests: its nodes fire
// with many same-time ties, schedule their own events (some at zero delay)
// and send to other units, drawing from the unit's own stream; trace
// hashes everything the unit sees in the order it sees it.
type toyUnit struct {
	id    int32
	sim   *Sim
	rng   *rand.Rand
	trace uint64
	fired int
	units int
	la    Time
	nodes []*toyNode
	peers []*toyUnit // the units it sends to (a link knows its far end)
	links []*toyLink // its links to every unit
	stop  int        // Stop after this many events (0: never)
}

type toyNode struct {
	u  *toyUnit
	id int
}

func (n *toyNode) Fire(now Time, kind uint8) {
	u := n.u
	u.fired++
	u.trace = u.trace*1099511628211 ^ uint64(now)*31 ^ uint64(n.id)<<8 ^ uint64(kind)
	if u.stop > 0 && u.fired == u.stop {
		u.sim.Stop()
	}
	if now > 200*u.la {
		return
	}
	// One successor per event, so the population stays that of the start.
	if r := u.rng.IntN(10); r < 7 { // local, on a coarse grid so that times tie
		d := Time(u.rng.IntN(4)) * u.la / 8
		u.sim.At(now+d, u.nodes[u.rng.IntN(len(u.nodes))], uint8(r))
	} else {
		dst := int32(u.rng.IntN(u.units))
		d := u.la + Time(u.rng.IntN(3))*u.la/4
		to := u.peers[dst]
		if r == 9 { // through a link's courier, as a network's packets go
			l := u.links[dst]
			l.pending = append(l.pending, toySend{now + d, to.nodes[u.rng.IntN(len(to.nodes))], uint8(r)})
			if !l.handed {
				l.handed = true
				u.sim.Hand(u.id, dst, l)
			}
			return
		}
		u.sim.Send(u.id, dst, now+d, to.nodes[u.rng.IntN(len(to.nodes))], uint8(r))
	}
}

// toyLink carries a unit's sends to another in a window, as a courier.
type toyLink struct {
	pending []toySend
	handed  bool
}

type toySend struct {
	at   Time
	to   *toyNode
	kind uint8
}

func (l *toyLink) Arrive(s *Sim) {
	for _, e := range l.pending {
		s.At(e.at, e.to, e.kind)
	}
	l.pending, l.handed = l.pending[:0], false
}

type toyModel struct {
	w     *World
	units []*toyUnit
}

func newToy(t testing.TB, units int, first []int32, la Time, stopAt int) *toyModel {
	t.Helper()
	w, err := NewWorldSplit(7, first, la)
	if err != nil {
		t.Fatal(err)
	}
	m := &toyModel{w: w}
	for i := range units {
		u := &toyUnit{id: int32(i), sim: w.Sim(i), rng: w.Sim(i).Rand(fmt.Sprintf("toy/%d", i)), units: units, la: la}
		for j := range 5 {
			u.nodes = append(u.nodes, &toyNode{u: u, id: i*100 + j})
		}
		for range units {
			u.links = append(u.links, &toyLink{})
		}
		m.units = append(m.units, u)
	}
	for _, u := range m.units {
		u.peers = m.units
		for j := range 4 {
			u.sim.At(Time((int(u.id)+j)%3)*la/8, u.nodes[j], uint8(j))
		}
	}
	if stopAt > 0 {
		m.units[units/2].stop = stopAt
	}
	return m
}

func (m *toyModel) summary() string {
	var b strings.Builder
	h := fnv.New64a()
	for _, u := range m.units {
		fmt.Fprintf(&b, "%d:%d:%x ", u.id, u.fired, u.trace)
	}
	h.Write([]byte(b.String()))
	return fmt.Sprintf("%x events=%d now=%v", h.Sum64(), m.w.Events(), m.w.Now())
}

func splits(units int) [][]int32 {
	out := [][]int32{{0, int32(units)}}
	for threads := 2; threads <= 5; threads++ {
		f := make([]int32, threads+1)
		for i := range f {
			f[i] = int32(i * units / threads)
		}
		out = append(out, f)
	}
	out = append(out, []int32{0, 1, int32(units)}, []int32{0, int32(units) - 1, int32(units)})
	return out
}

// Every unit sees the same events in the same order however the units are
// split among threads: the run's summary (each unit's event count and
// order hash) is the same for every split, with and without a Stop.
func TestWorldSameForEveryThreadCount(t *testing.T) {
	const units = 12
	la := 1000 * Picosecond
	for _, stopAt := range []int{0, 500} {
		var want string
		for _, first := range splits(units) {
			m := newToy(t, units, first, la, stopAt)
			drained := m.w.Run(Never - 1)
			if drained != (stopAt == 0) {
				t.Fatalf("split %v stop %d: Run returned %v", first, stopAt, drained)
			}
			got := m.summary()
			if want == "" {
				want = got
				st := m.w.Stats()
				if st.Windows < 40 || st.Sent == 0 {
					t.Fatalf("toy model too small to test anything: %+v", st)
				}
				continue
			}
			if got != want {
				t.Fatalf("split %v stop %d:\n got %s\nwant %s", first, stopAt, got, want)
			}
		}
	}
}

// Run(until) stops every thread at the same time, and a second Run goes on
// as if the first had not stopped.
func TestWorldRunInSteps(t *testing.T) {
	const units = 6
	la := 1000 * Picosecond
	whole := newToy(t, units, []int32{0, units}, la, 0)
	whole.w.Run(Never - 1)
	for _, first := range splits(units) {
		m := newToy(t, units, first, la, 0)
		for step := Time(1); ; step++ {
			if m.w.Run(step * 37 * la / 10) {
				break
			}
			if now := m.w.Now(); now != step*37*la/10 {
				t.Fatalf("split %v: Now %v after Run(%v)", first, now, step*37*la/10)
			}
		}
		if a, b := m.summary(), whole.summary(); a != b {
			t.Fatalf("split %v in steps:\n got %s\nwant %s", first, a, b)
		}
	}
}

// A send inside the window is a model error, named as such.
func TestWorldSendInsideLookahead(t *testing.T) {
	w, err := NewWorld(1, 2, 2, 100)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	w.Sim(0).At(0, fireFunc(func(now Time, _ uint8) { w.Sim(0).Send(0, 1, now+50, r, 0) }), 0)
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "below the lookahead") {
			t.Fatalf("panic %v, want one naming the lookahead", p)
		}
	}()
	w.Run(Never - 1)
}

func TestNewWorldErrors(t *testing.T) {
	for _, c := range []struct {
		first []int32
		la    Time
		want  string
	}{
		{[]int32{0, 4}, 0, "lookahead"},
		{[]int32{1, 4}, 10, "start at 0"},
		{[]int32{0}, 10, "start at 0"},
		{[]int32{0, 2, 2}, 10, "strictly"},
	} {
		if _, err := NewWorldSplit(1, c.first, c.la); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewWorldSplit(%v, %v) = %v, want %q", c.first, c.la, err, c.want)
		}
	}
	if _, err := NewWorld(1, 4, 0, 10); err == nil {
		t.Error("NewWorld with 0 threads succeeded")
	}
}

// BenchmarkWorld runs the toy model with 1 and 2 threads: the engine's
// cost per window (barrier and exchange) against the events it runs.
func BenchmarkWorld(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			var st WorldStats
			for b.Loop() {
				f := make([]int32, threads+1)
				for i := range f {
					f[i] = int32(i * 16 / threads)
				}
				m := newToy(b, 16, f, 10000, 0)
				m.w.Run(Never - 1)
				st = m.w.Stats()
			}
			b.ReportMetric(float64(st.Events)/float64(st.Windows), "events/window")
			b.ReportMetric(float64(st.Events)/float64(st.CriticalEvents), "parallelism")
			b.ReportMetric(float64(st.Exchange.Nanoseconds())/float64(st.Windows), "exchange-ns/window")
		})
	}
}

// fireFunc adapts a function to Handler, for tests.
type fireFunc func(now Time, kind uint8)

func (f fireFunc) Fire(now Time, kind uint8) { f(now, kind) }

// WeightedSplit gives every thread at least one unit, in contiguous
// groups, and balances the weight: with leaves ten times as heavy as the
// upper switches after them, its busiest group carries less than an even
// split's.
func TestWeightedSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		units := 1 + rng.IntN(40)
		w := make([]float64, units)
		for i := range w {
			if rng.IntN(3) > 0 {
				w[i] = rng.Float64() * float64(rng.IntN(100))
			}
		}
		threads := 1 + rng.IntN(12)
		first := WeightedSplit(w, threads)
		if len(first) != min(threads, units)+1 || first[0] != 0 || first[len(first)-1] != int32(units) {
			t.Fatalf("weights %v, %d threads: split %v", w, threads, first)
		}
		for i := 1; i < len(first); i++ {
			if first[i] <= first[i-1] {
				t.Fatalf("weights %v, %d threads: split %v not increasing", w, threads, first)
			}
		}
	}
	heaviest := func(w []float64, first []int32) float64 {
		var most float64
		for i := 1; i < len(first); i++ {
			var sum float64
			for u := first[i-1]; u < first[i]; u++ {
				sum += w[u]
			}
			most = max(most, sum)
		}
		return most
	}
	w := []float64{10, 10, 10, 10, 10, 10, 10, 10, 1, 1, 1, 1}
	even := []int32{0, 6, 12}
	if got, want := heaviest(w, WeightedSplit(w, 2)), heaviest(w, even); got >= want {
		t.Errorf("weighted split's heaviest thread %v, even split's %v", got, want)
	}
	if _, err := NewWorldWeighted(1, w, 2, 1000); err != nil {
		t.Fatal(err)
	}
}
