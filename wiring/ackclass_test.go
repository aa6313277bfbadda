package wiring

import (
	"testing"
)

// nic.ack_class wiring (docs/model.md §3.1, §4.4): auto follows the CC's
// ack_high_prio at the NIC only; switches see ACKs in the data class
// unless the scenario asks for control.
func TestACKClassWiring(t *testing.T) {
	for _, tc := range []struct {
		sets                  []string
		wantControl, wantHigh bool
	}{
		{[]string{"cc.algorithm=dcqcn"}, false, true},
		{[]string{"cc.algorithm=timely"}, false, true},
		{[]string{"cc.algorithm=hpcc"}, false, false},
		{[]string{"cc.algorithm=dctcp"}, false, false},
		{[]string{"cc.algorithm=dcqcn", "cc.dcqcn.ack_high_prio=false"}, false, false},
		{[]string{"cc.algorithm=dcqcn", "nic.ack_class=data"}, false, false},
		{[]string{"cc.algorithm=dcqcn", "nic.ack_class=control"}, true, false},
		{[]string{"cc.algorithm=hpcc", "nic.ack_class=control"}, true, false},
	} {
		s, err := Catalog().Load("default", append(tc.sets, "topology.kind=star", "topology.hosts=2"))
		if err != nil {
			t.Fatal(err)
		}
		sim, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.Cluster.Cfg
		if cfg.AckControl != tc.wantControl || cfg.AckHighPrio != tc.wantHigh {
			t.Errorf("%v: AckControl %v, AckHighPrio %v; want %v, %v", tc.sets, cfg.AckControl, cfg.AckHighPrio, tc.wantControl, tc.wantHigh)
		}
	}
}
