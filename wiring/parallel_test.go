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
		{"arn-afi", []string{"switch.isolation={}"}, 1, "switch.isolation"},
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
// allows before barrier costs. Every thread count must give the 1-thread
// rows. Long (DCSIM_LONG=1).
func TestParallelBounds(t *testing.T) {
	if os.Getenv("DCSIM_LONG") == "" {
		t.Skip("long: set DCSIM_LONG=1")
	}
	for _, c := range []struct {
		name  string
		sets  []string
		units fabric.Grain
	}{
		{"default 128 hosts, 200us", []string{"duration=200us"}, fabric.GrainPod},
		{"fat-tree k=16 (1,024 hosts), 50us, units by pod", []string{"duration=50us", "topology.kind=fat-tree", "topology.k=16"}, fabric.GrainPod},
		{"fat-tree k=16 (1,024 hosts), 50us, units by switch", []string{"duration=50us", "topology.kind=fat-tree", "topology.k=16"}, fabric.GrainSwitch},
	} {
		var want []byte
		for _, threads := range []int{1, 2, 4, 8, 16} {
			flows, _, sim := runParallelSim(t, BuildOptions{Threads: threads}, "default", append([]string{"parallel.units=" + c.units.String()}, c.sets...)...)
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
