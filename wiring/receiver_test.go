package wiring

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/scenario"
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
	if _, err := scenario.Load("default", []string{"nic.receiver=sack"}); err == nil ||
		!strings.Contains(err.Error(), `nic.receiver: unknown receiver "sack" (valid: inorder, selective)`) {
		t.Errorf("nic.receiver=sack: got error %v, want one naming the field and the valid values", err)
	}
	for _, v := range []string{"inorder", "selective"} {
		s, err := scenario.Load("default", []string{"nic.receiver=" + v})
		if err != nil {
			t.Fatalf("nic.receiver=%s: %v", v, err)
		}
		if sim, err := Build(s); err != nil || sim.Cluster.Cfg.Selective != (v == "selective") {
			t.Errorf("nic.receiver=%s: build error %v, selective %v", v, err, sim != nil && sim.Cluster.Cfg.Selective)
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
	if _, err := scenario.Load("default", sets); err == nil || !strings.Contains(err.Error(), "it needs nic.receiver: selective") {
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
