package baselines

import (
	"math/rand/v2"
	"testing"

	"github.com/dcsim/dcsim/rnic"
)

// TestReadySet: random inserts and removes that cross both bounds, with
// Fair's query after each, against a plain membership array scanned in
// id order.
func TestReadySet(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 0))
	const n = 400
	qps := make([]*rnic.QP, n)
	for i := range qps {
		qps[i] = &rnic.QP{ID: int64(i + 1)}
	}
	var s readySet
	in := make([]bool, n)
	count := 0
	sawBig, sawBack := false, false
	for step := 0; step < 200000; step++ {
		// Drift the fill level up and down across the bounds.
		target := n / 2
		if step/20000%2 == 0 {
			target = smallReady / 2
		}
		i := rng.IntN(n)
		if rng.IntN(n) < target {
			s.insert(qps[i])
			count += b2i(!in[i])
			in[i] = true
		} else {
			s.remove(qps[i])
			count -= b2i(in[i])
			in[i] = false
		}
		wasBig := s.big != nil
		if got := s.len(); got != count {
			t.Fatalf("step %d: len %d, want %d", step, got, count)
		}
		id := int64(rng.IntN(n + 2))
		var want *rnic.QP
		for k := range n {
			if in[k] && qps[k].ID >= id {
				want = qps[k]
				break
			}
		}
		if want == nil {
			for k := range n {
				if in[k] {
					want = qps[k]
					break
				}
			}
		}
		if got := s.from(id); got != want {
			t.Fatalf("step %d (big %v): from(%d) = %v, want %v", step, wasBig, id, got, want)
		}
		if wasBig {
			sawBig = true
		} else if sawBig {
			sawBack = true
		}
		if step > 0 && step%1000 == 0 && (s.big != nil) != (count > smallReady) && (count < smallReady || count > bigReady) {
			t.Fatalf("step %d: %d ready, big %v", step, count, s.big != nil)
		}
	}
	if !sawBig || !sawBack {
		t.Fatalf("got B-tree used %v and left %v, want both", sawBig, sawBack)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
