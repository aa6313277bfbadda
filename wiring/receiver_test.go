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
