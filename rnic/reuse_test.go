package rnic_test

import (
	"math/rand/v2"
	"testing"

	"github.com/dcsim/dcsim/cc/dcqcn"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// hidden is a scheduler without rnic.Releaser: the NIC reuses none of its
// closed QPs.
type hidden struct{ rnic.Scheduler }

// TestQPReuse: reusing closed QPs' memory (and DCQCN's state) changes
// nothing. The same 2,000 flows of 1-30 KB between random pairs of 8
// hosts, half of them to host 0, dense enough to mark ECN and start DCQCN's timers on some QPs
// (which are then never reused), run once with Fair (a Releaser) and once
// with Fair hidden behind a wrapper; every message (times, QP id, PSN, sequence range), every
// counter and the event count are equal, and the first run reused QPs.
func TestQPReuse(t *testing.T) {
	run := func(release bool) (*rig, []*rnic.Message) {
		r := newRig(t, star(t, 8), fabric.DefaultConfig(), func(c *rnic.Config) {
			c.CC = dcqcn.Spec(dcqcn.DefaultParams(100 * engine.Gbps))
		})
		if !release {
			for _, h := range r.c.Hosts {
				rnic.SetSchedulerForTest(h, hidden{h.Scheduler()})
			}
		}
		rng := rand.New(rand.NewPCG(7, 0))
		var ms []*rnic.Message
		at := engine.Time(0)
		for i := 0; i < 2000; i++ {
			src := rng.IntN(8)
			dst := (src + 1 + rng.IntN(7)) % 8
			if src != 0 && rng.IntN(2) == 0 {
				dst = 0 // an incast, for ECN marks
			}
			at += engine.Time(rng.IntN(400)) * engine.Nanosecond
			ms = append(ms, r.postAt(at, src, dst, int64(1000+rng.IntN(29000))))
		}
		if !r.sim.Run(engine.Second) {
			t.Fatal("events pending at 1 s")
		}
		if err := r.c.CheckDrained(); err != nil {
			t.Fatal(err)
		}
		return r, ms
	}
	a, am := run(true)
	b, bm := run(false)
	if got := rnic.ReusedQPs(a.c); got == 0 {
		t.Errorf("reused %d QPs with Fair, want some", got)
	}
	if got := rnic.ReusedQPs(b.c); got != 0 {
		t.Errorf("reused %d QPs without a Releaser, want 0", got)
	}
	if a.c.Counters != b.c.Counters {
		t.Errorf("counters with reuse %+v, want %+v", a.c.Counters, b.c.Counters)
	}
	if a.c.Counters.CNPs == 0 {
		t.Errorf("got no CNP: the test wants some QPs with DCQCN timers")
	}
	if ga, gb := a.sim.Events(), b.sim.Events(); ga != gb {
		t.Errorf("events with reuse %d, want %d", ga, gb)
	}
	for i := range am {
		if *am[i] != *bm[i] { // every field: times, QP id, PSN, sequence range, retransmissions
			t.Fatalf("message %d with reuse: got %+v, want %+v", i, *am[i], *bm[i])
		}
	}
	t.Logf("%d of %d QPs reused, %d CNPs", rnic.ReusedQPs(a.c), a.c.Counters.QPsOpened, a.c.Counters.CNPs)
}
