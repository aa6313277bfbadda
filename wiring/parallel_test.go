package wiring

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/fabric"
	"gonum.org/v1/gonum/stat"
)

// runParallel runs scenario name with sets on the parallel engine with
// threads threads (units by pod) and returns its files but run.parquet,
// concatenated (flows.parquet, then samples, iterations and collectives
// if written), and its run record (wall time cleared).
func runParallel(t *testing.T, threads int, name string, sets ...string) ([]byte, analysis.RunRecord) {
	t.Helper()
	files, run, _ := runParallelSim(t, BuildOptions{Threads: threads}, name, sets...)
	return files, run
}

// runParallelSim is runParallel with any build options that also returns
// the simulation.
func runParallelSim(t *testing.T, opt BuildOptions, name string, sets ...string) ([]byte, analysis.RunRecord, *Sim) {
	t.Helper()
	s, err := Catalog().Load(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := BuildWith(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res := sim.Run(Options{Dir: dir, RunID: "parallel-test"})
	if err := res.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	flows, err := os.ReadFile(filepath.Join(dir, analysis.FlowsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{analysis.SamplesFile, analysis.IterationsFile, analysis.CollectivesFile} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			flows = append(flows, b...)
		}
	}
	run := res.Run
	run.WallSeconds = 0
	return flows, run, sim
}

// The parallel engine's contract (docs/parallel.md, "Determinism"): the
// same rows for every thread count, on every kind of fabric it runs:
// the default spine-leaf, a fat-tree with packet spraying, lossy and
// credit-based links, INT (HPCC) and STORM's grants; units by pod (the
// default) and, on a fat-tree, by switch.
func TestParallelSameForEveryThreadCount(t *testing.T) {
	cases := []struct {
		name  string
		sets  []string
		units fabric.Grain
	}{
		{"default", []string{"duration=60us"}, 0},
		{"default", []string{"duration=100us", "topology.kind=fat-tree", "topology.k=4", "switch.routing.kind=adaptive", "workload.load=0.8"}, 0},
		{"default", []string{"duration=40us", "switch.pfc=false", "cc.algorithm=hpcc"}, 0},
		{"default", []string{"duration=40us", "switch.credit.bytes=64KB"}, 0},
		{"storm-cloud", []string{"duration=40us"}, 0},
		{"incast-star", []string{"duration=40us", "trace.interval=5us", "trace.metrics=[queue_depth,pause_time,utilisation,qp_rate,efficiency]"}, 0},
		{"default", []string{"duration=100us", "nic.receiver=selective", "switch.routing.kind=spray", "topology.kind=fat-tree", "topology.k=4", "workload.load=0.8"}, 0},
		{"default", []string{"duration=100us", "topology.kind=fat-tree", "topology.k=4", "switch.routing.kind=adaptive", "workload.load=0.8"}, fabric.GrainSwitch},
		{"allreduce-128", []string{"workload.collective.bytes=1MiB", "workload.collective.iterations=2"}, 0},
		// Congestion isolation: ARNs between units, detectors reading the
		// downstream's buffer one link delay late across units
		// (fabric.DelayIngressView), the AFC; by pod and by switch.
		{"arn-afi", []string{"topology.k=8", "duration=50us", "drain_limit=1ms", "workload.hotspot.start=5us", "workload.hotspot.stop=40us",
			"switch.routing.kind=adaptive", "switch.isolation={credit_view: delayed}"}, 0},
		{"arn-afi", []string{"topology.k=8", "duration=50us", "drain_limit=1ms", "workload.hotspot.start=5us", "workload.hotspot.stop=40us",
			"switch.routing.kind=adaptive", "switch.isolation={afi: true, credit_view: delayed}"}, fabric.GrainSwitch},
		{"default", []string{"workload.kind=simai", "workload.simai.model=llama-7b", "workload.simai.layers=2", "workload.simai.tp=2",
			"workload.simai.gpus=32", "workload.simai.gpus_per_server=4", "workload.simai.comm_scale=0.01",
			"workload.simai.overlap_grad_reduce=true", "workload.simai.send_latency_table=true", "duration=1us", "drain_limit=10s"}, 0},
	}
	for _, tc := range cases {
		t.Run(strings.Join(append([]string{tc.name, "units=" + tc.units.String()}, tc.sets...), ","), func(t *testing.T) {
			sets := append([]string{"parallel.units=" + tc.units.String()}, tc.sets...)
			flows1, run1, _ := runParallelSim(t, BuildOptions{Threads: 1}, tc.name, sets...)
			if run1.FlowsTotal == 0 || run1.FlowsDone == 0 {
				t.Fatalf("no flows ran: %+v", run1)
			}
			if _, iso := run1.Counters["arn_generated"]; iso && (run1.Counters["isolation_roots"] == 0 || run1.Counters["arn_sent"] == 0 || run1.Counters["afc_adapted_packets"] == 0) {
				t.Fatalf("congestion isolation did nothing: %v", run1.Counters)
			}
			for _, threads := range []int{2, 3} {
				flows, run, _ := runParallelSim(t, BuildOptions{Threads: threads}, tc.name, sets...)
				if !bytes.Equal(flows, flows1) {
					t.Errorf("%d threads: flows.parquet differs from 1 thread's", threads)
				}
				if !sameRun(run, run1) {
					t.Errorf("%d threads: run record differs:\n%+v\nwant\n%+v", threads, run, run1)
				}
			}
		})
	}
}

// sameRun compares two run records, counters included (a training run's
// slowdowns are NaN, which DeepEqual finds unequal to themselves).
func sameRun(a, b analysis.RunRecord) bool {
	for _, r := range []*analysis.RunRecord{&a, &b} {
		for _, f := range []*float64{&r.MeanSlowdown, &r.P50Slowdown, &r.P95Slowdown, &r.P99Slowdown} {
			if math.IsNaN(*f) {
				*f = -1
			}
		}
	}
	return reflect.DeepEqual(a, b)
}

// What cannot run on the parallel engine is refused with the field named.
func TestParallelRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sets    []string
		threads int
		want    string
	}{
		{"default", []string{"compat=hpcc-ns3"}, 1, "compat"},
		{"arn-afi", []string{"switch.isolation={}"}, 1, "switch.isolation.credit_view"},
		{"allreduce-128", []string{"workload.collective.send_latency=500ns"}, 1, "workload.collective.send_latency"},
		{"llama-7b", []string{"workload.simai.send_latency_table=true", "workload.simai.protocol=ll", "topology.link_delay=10us"}, 1, "workload.simai.send_latency_table"},
		{"halo", nil, 1, `workload.kind "halo"`},
	} {
		s, err := Catalog().Load(tc.name, tc.sets)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.name, tc.sets, err)
		}
		_, err = BuildWith(s, BuildOptions{Threads: tc.threads})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "threads: ") {
			t.Errorf("%s %v on %d threads: error %v, want one naming %q", tc.name, tc.sets, tc.threads, err, tc.want)
		}
	}
}

// TestParallelBounds runs the parallel engine at 1 to 16 threads (on
// however many cores there are: the World's critical path counts events,
// not time, so it is exact on two cores) and reports what
// docs/parallel.md projects the speed-up from: windows, events per
// window, and events over the critical path's, the bound the partition
// allows before barrier costs, on the default, a 1,024-host fat-tree by
// pod and by switch, and arn-afi with isolation (100 ns lookahead).
// Every thread count must give the 1-thread rows. Long (DCSIM_LONG=1).
func TestParallelBounds(t *testing.T) {
	if os.Getenv("DCSIM_LONG") == "" {
		t.Skip("long: set DCSIM_LONG=1")
	}
	for _, c := range []struct {
		name     string
		scenario string
		sets     []string
		units    fabric.Grain
	}{
		{"default 128 hosts, 200us", "default", []string{"duration=200us"}, fabric.GrainPod},
		{"fat-tree k=16 (1,024 hosts), 50us, units by pod", "default", []string{"duration=50us", "topology.kind=fat-tree", "topology.k=16"}, fabric.GrainPod},
		{"fat-tree k=16 (1,024 hosts), 50us, units by switch", "default", []string{"duration=50us", "topology.kind=fat-tree", "topology.k=16"}, fabric.GrainSwitch},
		{"arn-afi (k=12, 100 ns links) with adaptive routing and isolation", "arn-afi", []string{"switch.routing.kind=adaptive", "switch.isolation={credit_view: delayed}"}, fabric.GrainPod},
	} {
		var want []byte
		for _, threads := range []int{1, 2, 4, 8, 16} {
			flows, _, sim := runParallelSim(t, BuildOptions{Threads: threads}, c.scenario, append([]string{"parallel.units=" + c.units.String()}, c.sets...)...)
			if want == nil {
				want = flows
			} else if !bytes.Equal(flows, want) {
				t.Errorf("%s, %d threads: flows.parquet differs from 1 thread's", c.name, threads)
			}
			st := sim.World.Stats()
			t.Logf("%s, %d threads: %d units, lookahead %v, %d windows, %.0f events/window, %d sent across units, bound %.2fx, exchange %.2f us/window, wait %.2f us/window",
				c.name, threads, sim.World.Units(), sim.World.Lookahead(), st.Windows, float64(st.Events)/float64(st.Windows), st.Sent,
				float64(st.Events)/float64(st.CriticalEvents), st.Exchange.Seconds()*1e6/float64(st.Windows), st.Wait.Seconds()*1e6/float64(st.Windows))
		}
	}
}

// TestParallelSeedStatistics is the evidence that the parallel engine is
// the same model as the sequential one (docs/parallel.md, "Is it the
// same model?"): over seeds 1-8 of three scenarios, the paired
// difference of each seed's mean and p99 slowdown between the engines
// must vary less than the seeds do, and its mean must be within half the
// seeds' spread: the engines differ as two seeds do, not as two models.
// The log gives each difference's t statistic (mean over standard
// error) for docs/parallel.md. The runs are deterministic, so the test is
// too. Long (DCSIM_LONG=1).
func TestParallelSeedStatistics(t *testing.T) {
	if os.Getenv("DCSIM_LONG") == "" {
		t.Skip("long: set DCSIM_LONG=1")
	}
	for _, c := range []struct {
		name string
		sets []string
	}{
		{"default", nil},
		{"storm-cloud", []string{"duration=3ms"}},
		{"default", []string{"duration=3ms", "topology.kind=fat-tree", "topology.k=8", "switch.routing.kind=adaptive", "workload.load=0.7"}},
	} {
		var seqMean, seqP99, dMean, dP99 []float64
		for seed := 1; seed <= 8; seed++ {
			run := func(threads int) analysis.RunRecord {
				s, err := Catalog().Load(c.name, append([]string{fmt.Sprintf("seed=%d", seed)}, c.sets...))
				if err != nil {
					t.Fatal(err)
				}
				sim, err := BuildWith(s, BuildOptions{Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				return sim.Run(Options{}).Run
			}
			a, b := run(0), run(2)
			seqMean, seqP99 = append(seqMean, a.MeanSlowdown), append(seqP99, a.P99Slowdown)
			dMean, dP99 = append(dMean, b.MeanSlowdown-a.MeanSlowdown), append(dP99, b.P99Slowdown-a.P99Slowdown)
		}
		for _, m := range []struct {
			what       string
			seq, diffs []float64
		}{{"mean slowdown", seqMean, dMean}, {"p99 slowdown", seqP99, dP99}} {
			spread := stat.StdDev(m.seq, nil)
			mean, sd := stat.MeanStdDev(m.diffs, nil)
			se := sd / math.Sqrt(float64(len(m.diffs)))
			t.Logf("%s %v: %s over seeds %.3f ± %.3f (sd); World - sequential %+.4f (sd %.4f, se %.4f, t %+.2f)",
				c.name, c.sets, m.what, stat.Mean(m.seq, nil), spread, mean, sd, se, mean/se)
			if sd > spread || math.Abs(mean) > spread/2 {
				t.Errorf("%s %v: %s: the engines differ by %+.4f (sd %.4f, se %.4f) against a seed spread of %.4f",
					c.name, c.sets, m.what, mean, sd, se, spread)
			}
		}
	}
}

// isoMetrics are what the isolation sensitivity tests compare, per run:
// the mean and p99 slowdown, the network's efficiency during the hot spot
// and the background's delivered Gbps to other hosts during it.
type isoMetrics [4]float64

var isoMetricNames = []string{"mean slowdown", "p99 slowdown", "efficiency during the hot spot", "background delivered Gbps during the hot spot"}

// runIsolation runs the ARN+AFI experiment (arn-afi with adaptive routing
// and switch.isolation, the paper's k=12 fat-tree and H10 hot spot) with
// seed, opt and sets.
func runIsolation(t *testing.T, seed int, opt BuildOptions, sets ...string) isoMetrics {
	t.Helper()
	s, err := Catalog().Load("arn-afi", append([]string{fmt.Sprintf("seed=%d", seed), "switch.routing.kind=adaptive", "switch.isolation={}"}, sets...))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := BuildWith(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run(Options{})
	var eff, other []float64
	for _, r := range res.Samples {
		if r.TimeNs <= 200_000 || r.TimeNs > 400_000 { // the built-in's hot spot
			continue
		}
		switch r.Component + "/" + r.Metric {
		case "network/efficiency":
			eff = append(eff, r.Value)
		case "other/delivered_gbps":
			other = append(other, r.Value)
		}
	}
	if res.Run.Counters["arn_generated"] == 0 || len(eff) == 0 || len(other) == 0 {
		t.Fatalf("seed %d %+v %v: no ARN or no samples during the hot spot", seed, opt, sets)
	}
	return isoMetrics{res.Run.MeanSlowdown, res.Run.P99Slowdown, stat.Mean(eff, nil), stat.Mean(other, nil)}
}

// isoComparison is a paired comparison of two series of runs over seeds.
type isoComparison struct {
	what string
	a, b []isoMetrics
}

// compareIsolation logs, for each metric, each comparison's paired
// difference (mean, sd, t) against the spread of base over seeds, and
// fails one that varies more than the seeds do or whose mean exceeds half
// their spread (TestParallelSeedStatistics' criterion).
func compareIsolation(t *testing.T, baseName string, base []isoMetrics, cs ...isoComparison) {
	t.Helper()
	col := func(ms []isoMetrics, i int) []float64 {
		var v []float64
		for _, m := range ms {
			v = append(v, m[i])
		}
		return v
	}
	for i, name := range isoMetricNames {
		s := col(base, i)
		spread := stat.StdDev(s, nil)
		for _, c := range cs {
			a, b := col(c.a, i), col(c.b, i)
			d := make([]float64, len(a))
			for j := range d {
				d[j] = a[j] - b[j]
			}
			mean, sd := stat.MeanStdDev(d, nil)
			se := sd / math.Sqrt(float64(len(d)))
			t.Logf("%s: %s %.3f ± %.3f (sd over seeds); %s %+.4f (sd %.4f, se %.4f, t %+.2f)",
				name, baseName, stat.Mean(s, nil), spread, c.what, mean, sd, se, mean/se)
			if sd > spread || math.Abs(mean) > spread/2 {
				t.Errorf("%s: %s differs by %+.4f (sd %.4f) against a seed spread of %.4f", name, c.what, mean, sd, spread)
			}
		}
	}
}

// TestIsolationCreditViewSensitivity measures switch.isolation.credit_view
// delayed (the downstream's buffer as it was one link delay earlier, the
// one the parallel engine runs) against live, on the sequential engine,
// and the World (one thread: its rows are every thread count's) against
// the sequential engine with it, over seeds 1-16 of the ARN+AFI
// experiment (runIsolation, compareIsolation; docs/parallel.md,
// "Congestion isolation on the World"). Long (DCSIM_LONG=1; about 5
// minutes).
func TestIsolationCreditViewSensitivity(t *testing.T) {
	if os.Getenv("DCSIM_LONG") == "" {
		t.Skip("long: set DCSIM_LONG=1")
	}
	var live, delayed, world []isoMetrics
	for seed := 1; seed <= 16; seed++ {
		live = append(live, runIsolation(t, seed, BuildOptions{}))
		delayed = append(delayed, runIsolation(t, seed, BuildOptions{}, "switch.isolation.credit_view=delayed"))
		world = append(world, runIsolation(t, seed, BuildOptions{Threads: 1}, "switch.isolation.credit_view=delayed"))
	}
	compareIsolation(t, "sequential live", live, isoComparison{"sequential delayed - sequential live", delayed, live},
		isoComparison{"World delayed - sequential delayed", world, delayed})
}

// On the World, a thread frees the pages of another thread's QPs'
// receive states once that thread says every QP of the page closed
// (rnic's pageNotice): a run of 40,000 per-flow QPs over 8 units holds as
// many pages per table on 2 threads as on one (2: the last, and one with
// a QP still open), not one per 1,024 QPs ever opened (without the
// notices: 58 of 84), and its rows are those of one thread.
func TestParallelFreesOtherThreadsPages(t *testing.T) {
	sets := []string{"duration=2ms", "workload.distribution=solar2022"}
	flows1, _, sim1 := runParallelSim(t, BuildOptions{Threads: 1}, "default", sets...)
	flows2, run2, sim2 := runParallelSim(t, BuildOptions{Threads: 2}, "default", sets...)
	if !bytes.Equal(flows1, flows2) {
		t.Fatal("2 threads: flows.parquet differs from 1 thread's")
	}
	held1, spanned1 := sim1.Cluster.QPTablePages()
	held2, spanned2 := sim2.Cluster.QPTablePages()
	t.Logf("%d flows; pages held / spanned: 1 thread %d / %d, 2 threads %d / %d", run2.FlowsTotal, held1, spanned1, held2, spanned2)
	if run2.FlowsTotal < 30_000 {
		t.Fatalf("%d flows: too few to fill pages", run2.FlowsTotal)
	}
	// Each of the 8 units has a table on each thread: twice one thread's.
	if held2 > 2*held1 || spanned2 <= spanned1 {
		t.Errorf("2 threads hold %d of %d pages spanned, want at most %d (one thread: %d of %d)", held2, spanned2, 2*held1, held1, spanned1)
	}
}
