package wiring

import (
	"strings"
	"testing"
)

// switch.isolation on a k = 4 fat-tree under an incast of 8 senders over
// a cloud background: the run drains, every ARN frame sent was received
// (nothing left in flight), every message was handled, the counters reach
// run.parquet, and a second run repeats the first exactly.
func TestIsolationRuns(t *testing.T) {
	sets := []string{"topology.kind=fat-tree", "topology.k=4", "duration=300us", "drain_limit=50ms",
		"workload.kind=incast", "workload.incast.senders=8", "workload.incast.load_fraction=0.3",
		"extra_workloads[0].kind=cloud", "extra_workloads[0].load=0.4",
		"switch.routing.kind=adaptive", "switch.isolation={}"}
	var counters [2]map[string]int64
	var finish [2][]int64
	for i := range counters {
		sim := mustBuild(t, "default", sets...)
		if sim.Isolation == nil {
			t.Fatal("switch.isolation built no isolation")
		}
		res := sim.Run(Options{})
		if !res.Drained {
			t.Fatal("run did not drain")
		}
		if err := sim.Cluster.CheckDrained(); err != nil {
			t.Fatal(err)
		}
		if err := sim.Isolation.Check(); err != nil {
			t.Fatal(err)
		}
		counters[i] = res.Run.Counters
		for _, f := range res.Flows {
			finish[i] = append(finish[i], *f.FinishNs)
		}
	}
	c := counters[0]
	if c["isolation_roots"] == 0 || c["arn_generated"] == 0 || c["arn_consumed"] == 0 || c["afc_adapted_packets"] == 0 {
		t.Errorf("roots %d, ARNs %d, consumed %d, adapted %d: want all > 0",
			c["isolation_roots"], c["arn_generated"], c["arn_consumed"], c["afc_adapted_packets"])
	}
	if c["arn_sent"] != c["arn_received"] {
		t.Errorf("drained with %d ARN frames sent and %d received", c["arn_sent"], c["arn_received"])
	}
	for k, v := range c {
		if counters[1][k] != v {
			t.Errorf("counter %s: %d then %d in identical runs", k, v, counters[1][k])
		}
	}
	if len(finish[0]) != len(finish[1]) {
		t.Fatalf("%d then %d flows", len(finish[0]), len(finish[1]))
	}
	for i := range finish[0] {
		if finish[0][i] != finish[1][i] {
			t.Fatalf("flow %d: finish %d then %d", i, finish[0][i], finish[1][i])
		}
	}
}

// A hotspot workload over a cloud background with trace metric
// efficiency: every 10 us one network efficiency row (delivered /
// injected payload) and the injected and delivered Gbps of hot-spot and
// other traffic. Before the hot spot starts (50 us) no hot-spot traffic
// flows; over the run's rows, what was delivered to the hot spot never
// exceeds its one 100 Gbps link.
func TestHotSpotEfficiencySamples(t *testing.T) {
	sim := mustBuild(t, "default", "topology.kind=fat-tree", "topology.k=4", "duration=200us", "drain_limit=20ms",
		"cc.algorithm=none", "workload.kind=hotspot", "workload.hotspot.fraction=0.25", "workload.hotspot.start=50us",
		"workload.hotspot.flow_size=100KB", "extra_workloads[0].kind=cloud", "extra_workloads[0].load=0.3",
		"trace.interval=10us", "trace.metrics=[efficiency]")
	if got := sim.HotSpots(); len(got) != 1 {
		t.Fatalf("hot spots %v, want one", got)
	}
	res := sim.Run(Options{})
	if !res.Drained {
		t.Fatal("did not drain")
	}
	rows := map[string]int{}
	for _, r := range res.Samples {
		key := r.Component + "/" + r.Metric
		rows[key]++
		switch {
		case key == "hotspot/injected_gbps" && r.TimeNs < 50000 && r.Value != 0:
			t.Errorf("hot-spot traffic injected at %d ns, before the hot spot starts", r.TimeNs)
		case key == "hotspot/delivered_gbps" && r.Value > 100.0001:
			t.Errorf("%v Gbps delivered to the hot spot at %d ns, above its link", r.Value, r.TimeNs)
		case key == "network/efficiency" && (r.Value < 0 || r.Value > 20):
			t.Errorf("efficiency %v at %d ns", r.Value, r.TimeNs)
		}
	}
	for _, k := range []string{"network/efficiency", "hotspot/injected_gbps", "hotspot/delivered_gbps", "other/injected_gbps", "other/delivered_gbps"} {
		if rows[k] < 20 {
			t.Errorf("%s: %d rows, want one per 10 us over at least 200 us", k, rows[k])
		}
	}
}

// switch.queueing runs each scheme to a drained, consistent end on a k = 4
// fat-tree with adaptive routing (the data classes change per hop's
// egress; the buffer charges the class each packet arrived in).
func TestQueueingSchemesRun(t *testing.T) {
	for _, scheme := range []string{"dbbm", "vftree", "flow2sl"} {
		sim := mustBuild(t, "default", "topology.kind=fat-tree", "topology.k=4", "duration=200us", "drain_limit=50ms",
			"workload.load=0.6", "switch.routing.kind=adaptive", "switch.queueing={scheme: "+scheme+"}")
		res := sim.Run(Options{})
		if !res.Drained {
			t.Fatalf("%s: did not drain", scheme)
		}
		if err := sim.Cluster.CheckDrained(); err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
	}
}

// switch.credit on a k = 4 fat-tree under an 8-sender incast over a
// cloud background, without CC (whose ack_high_prio would send ACKs
// into stalled classes, on overdraft): no PFC frame, no drop, the run
// drains, every credit is back at the end, the stalls reach
// run.parquet; and switch.credit needs a lossless fabric.
func TestCreditLinksRun(t *testing.T) {
	sets := []string{"topology.kind=fat-tree", "topology.k=4", "duration=200us", "drain_limit=50ms",
		"workload.kind=incast", "workload.incast.senders=8", "workload.incast.load_fraction=0.3",
		"extra_workloads[0].kind=cloud", "extra_workloads[0].load=0.4", "switch.credit={}", "cc.algorithm=none"}
	sim := mustBuild(t, "default", sets...)
	res := sim.Run(Options{})
	if !res.Drained {
		t.Fatal("run did not drain")
	}
	c := res.Run.Counters
	if res.Run.PFCPauseFrames != 0 || res.Run.BytesDropped != 0 || c["credit_stalls"] == 0 || c["credit_overdraft_bytes"] != 0 {
		t.Errorf("PFC frames %d, dropped %d B, credit stalls %d, overdraft %d: want 0, 0, > 0, 0",
			res.Run.PFCPauseFrames, res.Run.BytesDropped, c["credit_stalls"], c["credit_overdraft_bytes"])
	}
	if err := sim.Net.CheckCredits(); err != nil {
		t.Error(err)
	}
	for _, pt := range sim.Net.HostPorts {
		if got, _ := sim.Net.Credits(pt, 3); got != 64_000 {
			t.Errorf("a host port ends with %d credits, want all 64,000 back", got)
			break
		}
	}
	if _, err := Catalog().Parse("x.yaml", Catalog().Default().YAML(), []string{"switch.credit={}", "switch.pfc=false"}); err == nil || !strings.Contains(err.Error(), "switch.credit") {
		t.Errorf("switch.credit without PFC: got %v, want an error naming switch.credit", err)
	}
	sc, err := Catalog().Parse("x.yaml", Catalog().Default().YAML(), []string{"switch.credit.bytes=1000B", "cc.algorithm=none"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(sc); err == nil || !strings.HasPrefix(err.Error(), "switch.credit.bytes: 1000 B is less than one frame") {
		t.Errorf("credits below one frame: got %v, want an error naming switch.credit.bytes", err)
	}
}
