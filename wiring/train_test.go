package wiring

import (
	"flag"
	"fmt"
	"github.com/dcsim/dcsim/scenario"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
)

var update = flag.Bool("update", false, "rewrite golden files")

func runCollective(t *testing.T, op string, bytes string, hosts int, extra ...string) *Result {
	t.Helper()
	sets := append([]string{"topology.kind=star", fmt.Sprintf("topology.hosts=%d", hosts), "workload.kind=collective",
		"workload.collective.op=" + op, "workload.collective.bytes=" + bytes, "drain_limit=1s"}, extra...)
	_, res := runDrained(t, 1, sets...)
	return res
}

// runTraining runs a training workload (the default scenario with sets on
// top) to the end and checks it finished its iterations.
func runTraining(t *testing.T, iterations int, sets ...string) (*Sim, *Result) {
	t.Helper()
	return runDrained(t, iterations, append([]string{"workload.kind=simai", "drain_limit=10s"}, sets...)...)
}

// runDrained runs the default scenario with sets (arrivals for 1us) and
// checks that it drained with the given number of iterations.
func runDrained(t *testing.T, iterations int, sets ...string) (*Sim, *Result) {
	t.Helper()
	s, err := Catalog().Load("default", append([]string{"duration=1us"}, sets...))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run(Options{})
	if !res.Drained || len(res.Iterations) != iterations {
		t.Fatalf("training: drained %v, %d iterations, want %d", res.Drained, len(res.Iterations), iterations)
	}
	return sim, res
}

// Ring collectives on an idle non-blocking fabric (a star: every host link
// carries one flow each way per step) take steps x (send latency + the
// flow's standalone FCT), the flow being S/n bytes: 2(n-1) steps for
// all-reduce, n-1 for reduce-scatter and all-gather (docs/model.md §7.6). A step
// ends when the sender has the ACK of the flow's last byte (SimAI's ns-3
// back end notifies both ends then). Every host's egress also carries the
// 60 B ACKs of the flow it receives, ahead of its data, so a step's
// serialization is (payload + 48 B + 60 B) per packet: without that term
// the formula is 4.9% short. The standalone FCT formula charges a
// payload-sized serialization per hop where the real last packet may be
// shorter, and steps of different ranks overlap by a few ns, so the
// tolerance is 0.5%.
func TestCollectivesMatchRingFormula(t *testing.T) {
	const n, size = 8, 8 << 20
	for _, tc := range []struct {
		op    string
		steps int
	}{{"allreduce", 2 * (n - 1)}, {"reducescatter", n - 1}, {"allgather", n - 1}} {
		res := runCollective(t, tc.op, "8MiB", n)
		chunk := int64(size / n)
		pk := (chunk-1)/1000 + 1
		fct := 4160*engine.Nanosecond + engine.Time((chunk+(48+60)*pk)*8*1e9/100e9)*engine.Nanosecond
		want := engine.Time(tc.steps) * (6*engine.Microsecond + fct)
		got := engine.Time(res.Iterations[0].DurationNs) * engine.Nanosecond
		t.Logf("%s of 8MiB over %d hosts: %v, formula %v", tc.op, n, got, want)
		if d := math.Abs(float64(got-want)) / float64(want); d > 0.005 {
			t.Errorf("%s: took %v, want %v within 0.5%%", tc.op, got, want)
		}
	}
}

// The micro-benchmark summaries are pinned: a change in any of them is a
// change in the simulator's behaviour and must be deliberate (go test
// -run Golden -update rewrites the file).
func TestCollectiveGolden(t *testing.T) {
	var b strings.Builder
	for _, op := range []string{"allreduce", "reducescatter", "allgather", "alltoall"} {
		r1 := runCollective(t, op, "4MiB", 16)
		r2 := runCollective(t, op, "4MiB", 16)
		r2.Iterations[0].RunID = r1.Iterations[0].RunID // each run has its own id
		if r1.Iterations[0] != r2.Iterations[0] || r1.Run.Events != r2.Run.Events {
			t.Fatalf("%s: two runs differ: %+v vs %+v", op, r1.Iterations[0], r2.Iterations[0])
		}
		it := r1.Iterations[0]
		fmt.Fprintf(&b, "%s 4MiB 16 hosts: iteration %d ns, %d flows, %d events\n", op, it.DurationNs, len(r1.Flows), r1.Run.Events)
	}
	// SimAI 1.7's send-latency table (Ring, Simple, network: 22.4us per
	// step instead of 6us): 30 steps x 16.4us = 492us more.
	r := runCollective(t, "allreduce", "4MiB", 16, "workload.collective.send_latency_table=true")
	fmt.Fprintf(&b, "allreduce 4MiB 16 hosts, send-latency table: iteration %d ns, %d flows, %d events\n",
		r.Iterations[0].DurationNs, len(r.Flows), r.Run.Events)
	// A training iteration with SimAI's rules at work: LLaMA 7B cut to 2
	// layers, TP 2 on 32 GPUs of 4-GPU servers (DP 16 with 2 rings per
	// group), gradients bucketed per layer and queued one at a time per
	// rank, on the 128-host spine-leaf.
	for _, overlap := range []string{"false", "true"} {
		run := func() (*Sim, *Result) {
			return runTraining(t, 1, "workload.simai.model=llama-7b", "workload.simai.layers=2",
				"workload.simai.tp=2", "workload.simai.gpus=32", "workload.simai.gpus_per_server=4", "workload.simai.comm_scale=0.01",
				"workload.simai.overlap_grad_reduce=true", "workload.simai.overlap_dp_collectives="+overlap)
		}
		sim, res := run()
		_, res2 := run()
		res2.Iterations[0].RunID = res.Iterations[0].RunID // each run has its own id
		if res2.Iterations[0] != res.Iterations[0] || res2.Run.Events != res.Run.Events {
			t.Fatalf("training, overlap %s: two runs differ: %+v vs %+v", overlap, res.Iterations[0], res2.Iterations[0])
		}
		c := nicConcurrency(sim.Messages, sim.Engine.Now())
		fmt.Fprintf(&b, "llama-7b 2 layers tp 2 32 GPUs 4 per server, dp buckets, overlap_dp_collectives %s: iteration %d ns, %d flows, %d events, per NIC max %d flows %d QPs, mean %.3f\n",
			overlap, res.Iterations[0].DurationNs, len(res.Flows), res.Run.Events, c.MaxFlows, c.MaxQPs, c.MeanFlows)
	}
	golden := "../scenario/testdata/collectives.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestNICConcurrency: exact counts on hand-made messages. Host 0 sends a
// [0, 10) and b [5, 20) on one QP and c [5, 8) on another; host 1 sends d
// [0, 4). Host 0 holds 1 flow for 5, 3 for 3, 2 for 2 and 1 for 10 (busy
// 20: mean (5+9+4+10)/20 = 1.4 flows) and 1, 2, 1 QPs (mean (5+6+2+10)/20
// = 1.15); host 1 one flow for 4. Pooled over 24 busy ns: 1.333 flows and
// 1.125 QPs; max 3 flows, 2 QPs.
func TestNICConcurrency(t *testing.T) {
	msg := func(src int, qp int64, from, to engine.Time) *rnic.Message {
		return &rnic.Message{Src: src, QPID: qp, Posted: from, Finished: to, Done: true}
	}
	ms := []*rnic.Message{msg(0, 1, 0, 10), msg(0, 1, 5, 20), msg(0, 2, 5, 8), msg(1, 3, 0, 4)}
	c := nicConcurrency(ms, 100)
	if c.MaxFlows != 3 || c.MaxQPs != 2 || math.Abs(c.MeanFlows-32.0/24) > 1e-12 || math.Abs(c.MeanQPs-27.0/24) > 1e-12 {
		t.Errorf("got %+v, want max 3 flows 2 QPs, mean %.4f flows %.4f QPs", c, 32.0/24, 27.0/24)
	}
	// An unfinished message counts until the end; one ending as another
	// starts does not overlap it.
	ms = []*rnic.Message{msg(0, 1, 0, 10), msg(0, 2, 10, 20), {Src: 0, QPID: 3, Posted: 15}}
	if c := nicConcurrency(ms, 30); c.MaxFlows != 2 || c.MeanFlows != 35.0/30 {
		t.Errorf("got %+v, want max 2 flows, mean %.4f", c, 35.0/30)
	}
}

// Training runs use SimAI's per-flow QPs: every training built-in and
// example sweep leaves nic.qp_mapping at per-flow.
func TestTrainingUsesPerFlowQPs(t *testing.T) {
	for _, b := range scenario.Builtins() {
		s, err := Catalog().Load(b.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if k := s.Workload.Kind; (k == scenario.SimAI || k == scenario.Collective) && !s.NIC.QPMapping.PerFlow() {
			t.Errorf("%s: got qp_mapping %v, want per-flow", b.Name, s.NIC.QPMapping)
		}
	}
}

// A generated LLaMA-7B iteration on 16 hosts, scaled down 1000x in bytes so
// that it is quick: iteration time never falls below the compute time, and
// iterations.parquet and collectives.parquet are written.
func TestTrainingIteration(t *testing.T) {
	_, res := runTraining(t, 2, "topology.kind=star", "topology.hosts=16",
		"workload.simai.model=llama-7b", "workload.simai.tp=2", "workload.simai.comm_scale=0.001",
		"workload.simai.iterations=2")
	for _, it := range res.Iterations {
		if it.DurationNs < it.ComputeNs {
			t.Errorf("iteration %d: %d ns, below its compute %d ns", it.Iteration, it.DurationNs, it.ComputeNs)
		}
	}
	dir := t.TempDir()
	if err := res.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	its, err := analysis.ReadIterations(dir + "/" + analysis.IterationsFile)
	if err != nil || len(its) != 2 {
		t.Fatalf("iterations.parquet: %d rows, %v", len(its), err)
	}
	cs, err := analysis.ReadCollectives(dir + "/" + analysis.CollectivesFile)
	if err != nil || len(cs) == 0 {
		t.Fatalf("collectives.parquet: %d rows, %v", len(cs), err)
	}
	t.Logf("%s", res.Sim.trainingSummary())
}

// With 8 GPUs per server (the default) and TP 8, tensor-parallel traffic
// stays on NVLink: no TP flow crosses the network, and each data-parallel
// flow leaves through its own GPU's NIC. With gpus_per_server 1 the same
// TP collectives become network flows.
func TestNVLinkKeepsTPOffTheNetwork(t *testing.T) {
	flows := func(perServer string) (tp, dp int) {
		sim, _ := runTraining(t, 1, "topology.kind=star", "topology.hosts=16",
			"workload.simai.model=gpt3-13b", "workload.simai.tp=8", "workload.simai.comm_scale=0.0001",
			"workload.simai.gpus_per_server="+perServer)
		for _, m := range sim.Messages {
			switch {
			case strings.Contains(m.Tag, "/tp"):
				tp++
			case strings.Contains(m.Tag, "/dp"):
				dp++
				if m.Src/8 == m.Dst/8 {
					t.Errorf("DP flow %s between GPUs %d and %d of one server crossed the network", m.Tag, m.Src, m.Dst)
				}
			}
		}
		return tp, dp
	}
	tp8, dp8 := flows("8")
	tp1, _ := flows("1")
	if tp8 != 0 || dp8 == 0 || tp1 == 0 {
		t.Fatalf("8 per server: %d TP and %d DP network flows; 1 per server: %d TP flows; want 0, > 0, > 0", tp8, dp8, tp1)
	}
}
