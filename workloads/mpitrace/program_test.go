package mpitrace

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// On a square grid every process (a, b) exchanges all its blocks with
// its transpose partner (b, a); the diagonal processes send nothing.
func TestPTRANSSquareGridPartners(t *testing.T) {
	p, err := PTRANS(PTRANSConfig{P: 2, Q: 2, N: 4, NB: 1, Iterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Send{nil, {{To: 2, Bytes: 32}}, {{To: 1, Bytes: 32}}, nil}
	for r, ph := range p.Phases {
		if len(ph) != 1 || !equalSends(ph[0].Sends, want[r]) {
			t.Errorf("rank %d: got %+v, want one phase sending %+v", r, ph, want[r])
		}
	}
	if got := p.Phases[1][0].Recvs; got != 1 {
		t.Errorf("rank 1 receives %d messages, want 1", got)
	}
}

// On a 2 x 3 grid blocks travel to several processes; every block that
// changes owner is sent once, so sent + kept = N^2 * 8 B. A partial last
// block (N = 7, NB = 2: blocks of 2 and 1) is counted by its elements.
func TestPTRANSConservesBlocks(t *testing.T) {
	for _, c := range []PTRANSConfig{{P: 2, Q: 3, N: 12, NB: 2}, {P: 2, Q: 3, N: 7, NB: 2}, {P: 3, Q: 2, N: 9, NB: 3}} {
		c.Iterations = 1
		p, err := PTRANS(c)
		if err != nil {
			t.Fatal(err)
		}
		var kept int64
		blocks := (c.N + c.NB - 1) / c.NB
		side := func(b int) int64 {
			if b == blocks-1 && c.N%c.NB != 0 {
				return int64(c.N % c.NB)
			}
			return int64(c.NB)
		}
		for I := range blocks {
			for J := range blocks {
				if (I%c.P)*c.Q+J%c.Q == (J%c.P)*c.Q+I%c.Q {
					kept += side(I) * side(J) * 8
				}
			}
		}
		if got, want := p.Bytes()+kept, int64(c.N*c.N*8); got != want {
			t.Errorf("%+v: sent %d + kept %d = %d B, want %d", c, p.Bytes(), kept, got, want)
		}
	}
	// 2 x 3, N = 12, NB = 2: 6 x 6 blocks of 32 B. Rank 1, process
	// (0, 1), holds the blocks (I, J) with I even and J mod 3 = 1; one goes
	// to rank 3, process (1, 0), when J mod 2 = 1 and I mod 3 = 0: I = 0
	// and J = 1 only (J = 4 is even), 32 B.
	p, _ := PTRANS(PTRANSConfig{P: 2, Q: 3, N: 12, NB: 2, Iterations: 1})
	if got := sendTo(p.Phases[1][0].Sends, 3); got != 32 {
		t.Errorf("rank 1 sends %d B to rank 3, want 32", got)
	}
}

// Ring allreduce: 40 B of gradients (10 params) in buckets of 16, 16
// and 8 B over 4 ranks: 2 x 3 steps per bucket, chunks of 4, 4 and 2 B to
// the successor; bucket b may start once the forward pass (1/3 of the
// 3,000 ps step) and its share of the backward pass are done.
func TestInceptionRingBuckets(t *testing.T) {
	p, err := Inception(InceptionConfig{Ranks: 4, Params: 10, Bucket: 16, StepTime: 3000, ForwardFraction: 1.0 / 3, Iterations: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(p.Phases[0]); got != 18 {
		t.Fatalf("got %d phases, want 18", got)
	}
	wantAt := map[int]engine.Time{0: 1800, 6: 2600, 12: 3000}
	for r := range 4 {
		for i, ph := range p.Phases[r] {
			chunk := int64(4)
			if i >= 12 {
				chunk = 2
			}
			if len(ph.Sends) != 1 || ph.Sends[0] != (Send{To: (r + 1) % 4, Bytes: chunk}) || ph.Recvs != 1 || ph.At != wantAt[i] {
				t.Fatalf("rank %d phase %d: got %+v, want one %d B send to %d, 1 receive, at %v", r, i, ph, chunk, (r+1)%4, wantAt[i])
			}
		}
	}
	if got := p.Bytes(); got != 240 {
		t.Errorf("one iteration sends %d B, want 240 (4 ranks x 6 steps x 10 B)", got)
	}
	if p.Span != 3000 || p.Tail != 0 {
		t.Errorf("span %v tail %v, want 3000 ps and 0", p.Span, p.Tail)
	}
}

func TestValidateRejectsMismatchedReceives(t *testing.T) {
	p := &Program{Name: "x", Iterations: 1, Phases: [][]Phase{{{Sends: []Send{{To: 1, Bytes: 8}}}}, {{Recvs: 2}}}}
	if err := p.Validate(); err == nil {
		t.Error("got no error for a phase expecting 2 messages of 1 sent")
	}
	p.Phases[1][0].Recvs = 1
	if err := p.Validate(); err != nil {
		t.Errorf("got %v, want nil", err)
	}
}

func TestUpdateTime(t *testing.T) {
	// 36 blocks on a 4 x 4 grid: 9 x 9 blocks of 128 x 128 on the busiest
	// process, 24 B each at 80 Gbps (10 GB/s): 31,850,496 B in 3.1850496 ms.
	if got, want := UpdateTime(4, 4, 4608, 128, 80*engine.Gbps), 3_185_049_600*engine.Picosecond; got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

func equalSends(a, b []Send) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sendTo(s []Send, to int) int64 {
	for _, x := range s {
		if x.To == to {
			return x.Bytes
		}
	}
	return 0
}
