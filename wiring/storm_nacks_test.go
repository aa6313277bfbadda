package wiring

import (
	"testing"

	"github.com/dcsim/dcsim/internal/invariants"
)

// No STORM variant and no guarded baseline reorders packets on in-order
// RoCEv2 (issue #12): on the storm-cloud base at load 0.8 (strict switch
// classes, per-pair QPs, DCQCN) every scheduler with its defaults, and the
// STORM receiver's settings one by one, finish with zero NACKs and zero
// out-of-order data. SRPT with guard = off is the control: the same run
// must produce NACKs, or the test could not see reordering at all.
//
// The invariants build checks conservation every 64 events, which makes
// these 128-host runs about 50x slower: there it runs 40 us of WebSearch.
func TestStormAndGuardedBaselinesNoNACKs(t *testing.T) {
	if invariants.Enabled {
		testNoNACKs(t, "websearch", "40us")
		return
	}
	for _, dist := range []string{"websearch", "alistorage"} {
		testNoNACKs(t, dist, "300us")
	}
}

func testNoNACKs(t *testing.T, dist, duration string) {
	base := []string{"duration=" + duration, "drain_limit=20ms", "workload.distribution=" + dist, "workload.load=0.8"}
	for _, c := range []struct {
		name  string
		set   []string
		nacks bool
	}{
		{"storm", []string{"nic.scheduler=storm"}, false},
		{"storm-literal", []string{"nic.scheduler=storm", "nic.storm.preempt=false", "nic.storm.backlog_updates=false", "nic.storm.release_after_rtts=0"}, false},
		{"storm-lend-4", []string{"nic.scheduler=storm", "nic.storm.lend=true", "nic.storm.slots_backlog=4", "nic.storm.slots_other=4"}, false},
		{"storm-sender", []string{"nic.scheduler=storm-sender"}, false},
		{"storm-sw", []string{"nic.scheduler=storm-sw"}, false},
		{"srpt", []string{"nic.scheduler=srpt"}, false},
		{"pias", []string{"nic.scheduler=pias"}, false},
		{"srpt-guard-off", []string{"nic.scheduler=srpt", "nic.srpt.guard=off"}, true},
	} {
		t.Run(dist+"/"+c.name, func(t *testing.T) {
			s, err := Catalog().Load("storm-cloud", append(append([]string(nil), base...), c.set...))
			if err != nil {
				t.Fatal(err)
			}
			sim, err := Build(s)
			if err != nil {
				t.Fatal(err)
			}
			r := sim.Run(Options{})
			k := sim.Cluster.Counters
			t.Logf("%d flows, %d done, %d NACKs, %d out-of-order, %d data packets", r.Run.FlowsTotal, r.Run.FlowsDone, k.Nacks, k.OutOfOrderData, k.DataPackets)
			if !r.Drained {
				t.Fatalf("run did not drain")
			}
			if c.nacks {
				if k.Nacks == 0 {
					t.Errorf("control run: got 0 NACKs, want > 0 (the set-up must reorder unguarded class changes)")
				}
				return
			}
			if k.Nacks != 0 || k.OutOfOrderData != 0 {
				t.Errorf("got %d NACKs and %d out-of-order packets, want 0 and 0", k.Nacks, k.OutOfOrderData)
			}
		})
	}
}
