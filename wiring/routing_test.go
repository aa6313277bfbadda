package wiring

import (
	"testing"

	"github.com/dcsim/dcsim/fabric"
)

// switch.routing.kind=adaptive builds fabric.Adaptive with the scenario's
// flowlet knobs, drains a k = 4 fat-tree at 90% load, repeats exactly, and
// routes differently from ECMP (some flow finishes at another time; with
// empty up ports it ties by the ECMP hash, so it differs only where up
// ports queue).
func TestAdaptiveRoutingRuns(t *testing.T) {
	base := []string{"topology.kind=fat-tree", "topology.k=4", "duration=500us", "drain_limit=50ms", "workload.load=0.9"}
	run := func(sets ...string) []int64 {
		sim := mustBuild(t, "default", append(append([]string(nil), base...), sets...)...)
		res := sim.Run(Options{})
		if !res.Drained || len(res.Flows) == 0 {
			t.Fatalf("%v: drained %v with %d flows", sets, res.Drained, len(res.Flows))
		}
		if err := sim.Cluster.CheckDrained(); err != nil {
			t.Fatal(err)
		}
		var fin []int64
		for _, f := range res.Flows {
			fin = append(fin, *f.FinishNs)
		}
		return fin
	}
	sim := mustBuild(t, "default", append(base, "switch.routing.kind=adaptive", "switch.routing.flowlet_gap=2us", "switch.routing.flowlet_slots=64")...)
	a, ok := sim.Net.Config().Router.(*fabric.Adaptive)
	if !ok || a.FlowletGap != 2000000 || a.FlowletSlots != 64 {
		t.Fatalf("router %#v, want *fabric.Adaptive with a 2us gap and 64 slots", sim.Net.Config().Router)
	}
	ad1, ad2 := run("switch.routing.kind=adaptive"), run("switch.routing.kind=adaptive")
	ecmp := run()
	if len(ad1) != len(ad2) || len(ad1) != len(ecmp) {
		t.Fatalf("flows: %d, %d, %d", len(ad1), len(ad2), len(ecmp))
	}
	differ := 0
	for i := range ad1 {
		if ad1[i] != ad2[i] {
			t.Fatalf("flow %d: finish %d then %d in identical runs", i, ad1[i], ad2[i])
		}
		if ad1[i] != ecmp[i] {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("adaptive routing finished every flow when ECMP did, want some difference")
	}
}
