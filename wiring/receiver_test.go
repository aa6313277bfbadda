package wiring

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
)

// Without reordering or loss (ECMP keeps a QP on one path, PFC drops
// nothing) a selective-repeat receiver never holds a packet: every flow
// ends exactly as under go-back-N.
func TestSelectiveReceiverWithoutReorderingIsInOrder(t *testing.T) {
	sets := []string{"topology.kind=fat-tree", "topology.k=4", "duration=1ms", "drain_limit=20ms"}
	in := mustBuild(t, "default", sets...).Run(Options{RunID: "r"})
	sel := mustBuild(t, "default", append(sets, "nic.receiver=selective")...).Run(Options{RunID: "r"})
	if len(in.Flows) == 0 || len(in.Flows) != len(sel.Flows) {
		t.Fatalf("flows: got %d selective, want %d (in order), more than 0", len(sel.Flows), len(in.Flows))
	}
	t.Logf("%d flows", len(in.Flows))
	for i := range in.Flows {
		if !reflect.DeepEqual(in.Flows[i], sel.Flows[i]) {
			t.Fatalf("flow %d: got %+v under selective repeat, want %+v", i, sel.Flows[i], in.Flows[i])
		}
	}
}

func TestReceiverKnob(t *testing.T) {
	if _, err := Catalog().Load("default", []string{"nic.receiver=sack"}); err == nil ||
		!strings.Contains(err.Error(), `nic.receiver: unknown receiver "sack" (valid: inorder, selective, ooo-eager, ooo-ordered)`) {
		t.Errorf("nic.receiver=sack: got error %v, want one naming the field and the valid values", err)
	}
	for _, tc := range []struct {
		v         string
		selective bool
		atomics   rnic.AtomicOrder
	}{{"inorder", false, rnic.AtomicResend}, {"selective", true, rnic.AtomicResend},
		{"ooo-eager", true, rnic.AtomicEager}, {"ooo-ordered", true, rnic.AtomicDeferred}} {
		s, err := Catalog().Load("default", []string{"nic.receiver=" + tc.v, "nic.fence=implicit"})
		if err != nil {
			t.Fatalf("nic.receiver=%s: %v", tc.v, err)
		}
		sim, err := Build(s)
		if err != nil {
			t.Fatalf("nic.receiver=%s: %v", tc.v, err)
		}
		if c := sim.Cluster.Cfg; c.Selective != tc.selective || c.Atomics != tc.atomics || !c.ImplicitFence {
			t.Errorf("nic.receiver=%s: selective %v, atomics %d, implicit fence %v; want %v, %d, true",
				tc.v, c.Selective, c.Atomics, c.ImplicitFence, tc.selective, tc.atomics)
		}
	}
}

// Per-packet adaptive routing (flowlet_gap 0) sprays a QP's packets over
// a k=4 fat-tree's paths; it is valid only with the selective-repeat
// receiver, which holds what arrives out of order, and then every flow
// finishes and the network drains. The same run with go-back-N is
// rejected.
func TestSelectiveReceiverPerPacketAdaptive(t *testing.T) {
	sets := []string{"topology.kind=fat-tree", "topology.k=4", "duration=500us", "drain_limit=50ms", "workload.load=0.9",
		"switch.routing.kind=adaptive", "switch.routing.flowlet_gap=0s"}
	if _, err := Catalog().Load("default", sets); err == nil || !strings.Contains(err.Error(), "it needs nic.receiver: selective") {
		t.Fatalf("per-packet adaptive under go-back-N: got error %v, want a rejection", err)
	}
	sim := mustBuild(t, "default", append(sets, "nic.receiver=selective")...)
	res := sim.Run(Options{})
	if !res.Drained || len(res.Flows) == 0 {
		t.Fatalf("drained %v with %d flows", res.Drained, len(res.Flows))
	}
	if err := sim.Cluster.CheckDrained(); err != nil {
		t.Fatal(err)
	}
	k := sim.Cluster.Counters
	if k.OutOfOrderData == 0 {
		t.Errorf("no packet arrived out of order: the test does not reorder")
	}
	t.Logf("%d flows, %d packets out of order, %d NACKs, %d B retransmitted, %d RTOs", len(res.Flows), k.OutOfOrderData, k.Nacks, k.Retransmitted, k.RTOs)
}

// Per-packet spraying (switch.routing.kind spray) on a k=4 fat-tree under
// ooo-eager: packets of a QP arrive out of order, every flow finishes and
// the network drains; the same run twice is identical.
func TestSprayRuns(t *testing.T) {
	sets := []string{"topology.kind=fat-tree", "topology.k=4", "duration=300us", "drain_limit=50ms", "workload.load=0.6",
		"switch.routing.kind=spray", "nic.receiver=ooo-eager"}
	var flows [2]int
	var ooo [2]int64
	for i := range flows {
		sim := mustBuild(t, "default", sets...)
		res := sim.Run(Options{})
		if !res.Drained || len(res.Flows) == 0 {
			t.Fatalf("drained %v with %d flows", res.Drained, len(res.Flows))
		}
		if err := sim.Cluster.CheckDrained(); err != nil {
			t.Fatal(err)
		}
		flows[i], ooo[i] = len(res.Flows), sim.Cluster.Counters.OutOfOrderData
	}
	if ooo[0] == 0 || flows != [2]int{flows[0], flows[0]} || ooo != [2]int64{ooo[0], ooo[0]} {
		t.Errorf("two runs: %v flows, %v packets out of order; want equal, with packets out of order", flows, ooo)
	}
	if _, err := Catalog().Load("default", sets[:6]); err == nil || !strings.Contains(err.Error(), "spray reorders") {
		t.Errorf("spray under go-back-N: got error %v, want a rejection", err)
	}
}

// nic.sack: {} turns on the reorder-tolerant selective receiver with
// dup_threshold 3 and no reorder window; absent, DupThresh is 0 (IRN); it
// needs a selective receiver, a threshold of at least 1 and a window of
// at least 0.
func TestSackKnob(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want int
	}{
		{[]string{"nic.receiver=selective"}, 0},
		{[]string{"nic.receiver=selective", "nic.sack={}"}, 3},
		{[]string{"nic.receiver=ooo-ordered", "nic.sack.dup_threshold=5", "nic.sack.reorder_window=2us"}, 5},
	} {
		s, err := Catalog().Load("default", tc.sets)
		if err != nil {
			t.Fatalf("%v: %v", tc.sets, err)
		}
		sim, err := Build(s)
		if err != nil {
			t.Fatalf("%v: %v", tc.sets, err)
		}
		wantWindow := engine.Time(0)
		if tc.want == 5 {
			wantWindow = 2 * engine.Microsecond
		}
		if c := sim.Cluster.Cfg; c.DupThresh != tc.want || c.ReorderWindow != wantWindow {
			t.Errorf("%v: DupThresh %d, ReorderWindow %v; want %d, %v", tc.sets, c.DupThresh, c.ReorderWindow, tc.want, wantWindow)
		}
	}
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"nic.sack={}"}, "nic.sack: needs a selective nic.receiver (selective, ooo-eager or ooo-ordered)"},
		{[]string{"nic.receiver=selective", "nic.sack.dup_threshold=0"}, "nic.sack.dup_threshold: must be at least 1, got 0"},
		{[]string{"nic.receiver=selective", "nic.sack.reorder_window=-1us"}, "nic.sack.reorder_window"},
	} {
		if _, err := Catalog().Load("default", tc.sets); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got error %v, want %q", tc.sets, err, tc.want)
		}
	}
}
