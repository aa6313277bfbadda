package wiring

import (
	"errors"
	"github.com/dcsim/dcsim/scenario"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/analysis"
)

// A run cut short by drain_limit records every flow; the unfinished ones
// have null finish, fct and slowdown and are counted, not dropped.
func TestUnfinishedFlowsRecorded(t *testing.T) {
	sim := mustBuild(t, "default", "topology.kind=star", "topology.hosts=8", "duration=200us",
		"drain_limit=1us", "workload.distribution=websearch")
	res := sim.Run(Options{})
	if res.Drained {
		t.Fatal("run drained; want websearch flows cut off by a 1us drain limit")
	}
	dir := t.TempDir()
	if err := res.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	flows, err := analysis.ReadFlows(filepath.Join(dir, analysis.FlowsFile))
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(flows)) != sim.Cluster.Counters.MessagesPosted {
		t.Fatalf("%d flow rows, %d posted", len(flows), sim.Cluster.Counters.MessagesPosted)
	}
	unfinished := 0
	for _, f := range flows {
		if f.FinishNs == nil {
			unfinished++
			if f.FctNs != nil || f.Slowdown != nil {
				t.Errorf("flow %d: unfinished but has fct or slowdown", f.FlowID)
			}
		}
	}
	if unfinished == 0 || res.Analysis.Overall.Unfinished != unfinished {
		t.Fatalf("%d unfinished rows, summary says %d", unfinished, res.Analysis.Overall.Unfinished)
	}
	if res.Run.FlowsDone+int64(unfinished) != res.Run.FlowsTotal {
		t.Fatalf("run.parquet: %d done + %d unfinished != %d total", res.Run.FlowsDone, unfinished, res.Run.FlowsTotal)
	}
}

// Every built-in scenario builds, and the same seed gives the same run.
func TestBuiltinsBuildAndRepeat(t *testing.T) {
	for _, b := range scenario.Builtins() {
		s, err := Catalog().Load(b.Name, []string{"duration=100us", "drain_limit=1ms"})
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		var events [2]int64
		var flows [2][]analysis.FlowRecord
		for i := range events {
			sim, err := Build(s)
			if err != nil {
				t.Fatalf("%s: %v", b.Name, err)
			}
			r := sim.Run(Options{})
			events[i], flows[i] = r.Run.Events, r.Flows
		}
		if events[0] != events[1] || len(flows[0]) != len(flows[1]) {
			t.Fatalf("%s: runs differ: %d vs %d events, %d vs %d flows", b.Name, events[0], events[1], len(flows[0]), len(flows[1]))
		}
		for i := range flows[0] {
			a, c := flows[0][i], flows[1][i]
			if a.FlowID != c.FlowID || a.SizeBytes != c.SizeBytes || (a.FinishNs == nil) != (c.FinishNs == nil) ||
				(a.FinishNs != nil && *a.FinishNs != *c.FinishNs) {
				t.Fatalf("%s: flow %d differs between identical runs", b.Name, a.FlowID)
			}
		}
	}
}

// Every workload kind builds and runs to completion on a small star, and
// extra workloads add their flows on top of the main one.
func TestWorkloadKinds(t *testing.T) {
	base := []string{"topology.kind=star", "topology.hosts=8", "duration=300us", "drain_limit=50ms"}
	for _, tc := range []struct {
		name string
		sets []string
		gens map[string]bool
	}{
		{"cloud", []string{"workload.distribution=alistorage"}, map[string]bool{"cloud": true}},
		{"incast poisson", []string{"workload.kind=incast", "workload.incast.senders=4", "workload.incast.flow_size=50KB",
			"workload.incast.load_fraction=0.1"}, map[string]bool{"incast": true}},
		{"incast periodic", []string{"workload.kind=incast", "workload.incast.senders=7", "workload.incast.receiver=0",
			"workload.incast.period=100us"}, map[string]bool{"incast": true}},
		{"flowlist", []string{"workload.kind=flowlist", "workload.flowlist.file=../scenario/testdata/flows.csv"}, map[string]bool{"flowlist": true}},
		{"storage", []string{"workload.kind=storage", "workload.hosts=0-1", "workload.storage.servers=2-7",
			"workload.storage.fan_out=3", "workload.storage.response_size=20KB", "workload.storage.mean_interval=20us"},
			map[string]bool{"storage": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Catalog().Load("default", append(append([]string(nil), base...), tc.sets...))
			if err != nil {
				t.Fatal(err)
			}
			sim, err := Build(s)
			if err != nil {
				t.Fatal(err)
			}
			res := sim.Run(Options{})
			if !res.Drained || len(res.Flows) == 0 {
				t.Fatalf("drained %v with %d flows", res.Drained, len(res.Flows))
			}
			for _, f := range res.Flows {
				if !tc.gens[f.Generator] {
					t.Fatalf("flow from generator %q", f.Generator)
				}
			}
			if err := sim.Cluster.CheckDrained(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// runIntoDir runs the built-in scenario name with sets, streaming into a
// fresh directory (Options.Dir).
func runIntoDir(t *testing.T, name string, sets ...string) (*Sim, *Result, string) {
	t.Helper()
	s, err := Catalog().Load(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	return sim, sim.Run(Options{Dir: dir}), dir
}

// A WriteDir that fails part way (here at run.parquet, the last file)
// leaves none of the run's files, streamed ones included: a partial set
// would read as a run without its run.parquet.
func TestWriteDirAllOrNothing(t *testing.T) {
	_, res, dir := runIntoDir(t, "incast-star", "duration=50us", "trace.interval=10us")
	defer func(f func(string, analysis.RunRecord, []analysis.Param) error) { writeRun = f }(writeRun)
	writeRun = func(string, analysis.RunRecord, []analysis.Param) error { return errors.New("disk full") }
	if err := res.WriteDir(dir); err == nil || err.Error() != "disk full" {
		t.Fatalf("WriteDir: %v", err)
	}
	if files, _ := os.ReadDir(dir); len(files) > 0 {
		t.Errorf("a failed WriteDir left %v", files)
	}
}

// The drain's sample rows, which Validate cannot bound (the drain's length
// is not known), stop the run at the limit with an error naming the
// fields, instead of writing for hours (trace.interval=2ns with a 100 ms
// drain: 5e7 samples of the whole fabric).
func TestSampleRowsStopTheRun(t *testing.T) {
	defer func(n int64) { maxSampleRows = n }(maxSampleRows)
	maxSampleRows = 5000
	sim, res, dir := runIntoDir(t, "incast-star", "duration=100us", "trace.interval=1us")
	if res.err == nil || !strings.Contains(res.err.Error(), "above the limit of 5e+03 (trace.interval 1us") {
		t.Fatalf("got %v, want the sample limit", res.err)
	}
	if now := sim.Engine.Now(); now > 2*chunk {
		t.Errorf("the run went on to %v after the limit", now)
	}
	if files, _ := os.ReadDir(dir); len(files) > 0 {
		t.Errorf("a stopped run left %v", files)
	}
}

// trace.interval > 0 writes samples.parquet: every port's queue depth,
// pause time and utilisation and every QP's rate at each interval, with
// fractions in [0, 1] and non-negative depths.
func TestSamplerWritesSamples(t *testing.T) {
	s, err := Catalog().Load("incast-star", []string{"duration=300us", "trace.interval=10us", "cc.algorithm=dcqcn"})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run(Options{})
	dir := t.TempDir()
	if err := res.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	rows, err := analysis.ReadSamples(filepath.Join(dir, analysis.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	var busiest float64
	for _, r := range rows {
		seen[r.Metric]++
		switch r.Metric {
		case scenario.MetricUtilisation, scenario.MetricPauseTime:
			if r.Value < 0 || r.Value > 1 {
				t.Fatalf("%s %s at %d ns = %g, want a fraction", r.Component, r.Metric, r.TimeNs, r.Value)
			}
			if r.Metric == scenario.MetricUtilisation && r.Component == "sw0/p0" {
				busiest = max(busiest, r.Value)
			}
		case scenario.MetricQueueDepth, scenario.MetricQPRate:
			if r.Value < 0 {
				t.Fatalf("%s %s = %g < 0", r.Component, r.Metric, r.Value)
			}
		}
	}
	for _, m := range []string{scenario.MetricQueueDepth, scenario.MetricPauseTime, scenario.MetricUtilisation, scenario.MetricQPRate} {
		if seen[m] == 0 {
			t.Errorf("no %s samples", m)
		}
	}
	// The incast saturates the receiver's link (switch port 0 faces host 0).
	if busiest < 0.95 {
		t.Errorf("receiver link utilisation peaked at %.2f, want > 0.95 during the incast", busiest)
	}
}

// run.parquet's load is workload.load for a cloud run and null for a kind
// that does not read it, and the headline says a load only when there is one.
// The cloud run posts no flow at all (4 hosts at 30% of WebSearch's 1.6 MB
// mean arrive ~430 us apart, and it lasts 20 us): its event queue empties
// before the duration, which used to spin Run forever.
func TestRunLoadOnlyForCloud(t *testing.T) {
	cloud := func() *Result {
		sim := mustBuild(t, "default", "topology.kind=star", "topology.hosts=4", "duration=20us",
			"drain_limit=1ms", "workload.load=0.3")
		return sim.Run(Options{})
	}()
	if cloud.Run.Load == nil || *cloud.Run.Load != 0.3 {
		t.Errorf("cloud run: load %v, want 0.3", cloud.Run.Load)
	}
	if h := cloud.Headline(); !strings.Contains(h, "cloud:websearch at load 0.30,") || !strings.Contains(h, "note: no flow started") {
		t.Errorf("cloud headline lacks its load or the no-flow note: %q", h)
	}
	coll := runCollective(t, "allreduce", "64KiB", 4)
	if coll.Run.Load != nil {
		t.Errorf("collective run: load %v, want null (workload.load is not read)", *coll.Run.Load)
	}
	if h := coll.Headline(); strings.Contains(h, " at load ") || strings.Contains(h, "achieved load") {
		t.Errorf("collective headline names a load it did not use: %q", h)
	}
}

// Two runs of one scenario and seed have ids of their own and one
// config_hash, the scenario's hash; a pinned id is used as given (issue
// #26: a DuckDB join of flows with run.parquet multiplied rows).
func TestRunIDUnique(t *testing.T) {
	run := func(id string) *Result {
		return mustBuild(t, "default", "topology.kind=star", "topology.hosts=4", "duration=50us").Run(Options{RunID: id})
	}
	a, b := run(""), run("")
	if a.Run.RunID == b.Run.RunID || len(a.Run.RunID) != 36 {
		t.Errorf("got run ids %q and %q, want two different UUIDs", a.Run.RunID, b.Run.RunID)
	}
	if h := a.Sim.Scenario.Hash(); a.Run.ConfigHash != h || b.Run.ConfigHash != h {
		t.Errorf("got config_hash %q and %q, want the scenario hash %q", a.Run.ConfigHash, b.Run.ConfigHash, h)
	}
	for _, f := range a.Flows {
		if f.RunID != a.Run.RunID {
			t.Fatalf("flow %d: run_id %q, run.parquet's %q", f.FlowID, f.RunID, a.Run.RunID)
		}
	}
	if got := run("slurm-123_4").Run.RunID; got != "slurm-123_4" {
		t.Errorf("pinned id: got %q", got)
	}
	for id, ok := range map[string]bool{"slurm-123_4": true, "a:b.c": true, "": false, "a b": false, "x/y": false, strings.Repeat("x", MaxRunIDLen+1): false} {
		if err := CheckRunID(id); (err == nil) != ok {
			t.Errorf("CheckRunID(%q) = %v, want ok %v", id, err, ok)
		}
	}
}
