package wiring

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
)

// feed gives the tracker the messages' posts and finishes in time order
// (same-instant events in a random order, as a run may give them).
func feed(rng *rand.Rand, ms []*rnic.Message) *nicTracker {
	type ev struct {
		at   engine.Time
		post bool
		m    *rnic.Message
	}
	var evs []ev
	for _, m := range ms {
		evs = append(evs, ev{m.Posted, true, m})
		if m.Done {
			evs = append(evs, ev{m.Finished, false, m})
		}
	}
	rng.Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] })
	slices.SortStableFunc(evs, func(a, b ev) int { return cmp.Compare(a.at, b.at) })
	t := newNICTracker()
	for _, e := range evs {
		if e.post {
			t.posted(e.m)
		} else {
			t.finished(e.m)
		}
	}
	return t
}

// TestNICTrackerMatches: the counts made as the run goes equal
// nicConcurrency's over the kept messages, exactly: on TestNICConcurrency's
// hand-made cases and on random ones with many same-instant posts and
// finishes (ring steps ending as the next begins).
func TestNICTrackerMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 0))
	msg := func(src int, qp int64, from, to engine.Time) *rnic.Message {
		return &rnic.Message{Src: src, QPID: qp, Posted: from, Finished: to, Done: true}
	}
	cases := [][]*rnic.Message{
		{msg(0, 1, 0, 10), msg(0, 1, 5, 20), msg(0, 2, 5, 8), msg(1, 3, 0, 4)},
		{msg(0, 1, 0, 10), msg(0, 2, 10, 20), {Src: 0, QPID: 3, Posted: 15}},
	}
	for range 200 {
		var ms []*rnic.Message
		for range 1 + rng.IntN(60) {
			from := engine.Time(rng.IntN(40)) * 1000
			m := &rnic.Message{Src: rng.IntN(4), QPID: int64(rng.IntN(6)), Posted: from}
			if rng.IntN(5) > 0 {
				m.Done, m.Finished = true, from+engine.Time(rng.IntN(20))*1000
			}
			ms = append(ms, m)
		}
		cases = append(cases, ms)
	}
	for i, ms := range cases {
		end := engine.Time(100_000)
		want := nicConcurrency(ms, end)
		tr := feed(rng, ms)
		if got := tr.result(end); got != want {
			t.Fatalf("case %d: got %+v, want %+v (nicConcurrency)", i, got, want)
		}
		if got := tr.result(end); got != want {
			t.Fatalf("case %d, asked again: got %+v, want %+v", i, got, want)
		}
	}
}

// TestTrainingStreamed: a training run given a directory streams
// flows.parquet like any run, and writes the same flows.parquet,
// iterations, run record (NIC concurrency counters included) and summary
// as the run that keeps its messages, which leave memory as they finish.
func TestTrainingStreamed(t *testing.T) {
	sets := []string{"topology.kind=star", "topology.hosts=16", "workload.kind=collective",
		"workload.collective.op=allreduce", "workload.collective.bytes=2MiB", "workload.collective.iterations=2",
		"duration=50us", "drain_limit=1s", "extra_workloads[0].kind=cloud", "extra_workloads[0].load=0.3", "extra_workloads[0].distribution=googlerpc"}
	kept := mustBuild(t, "default", sets...)
	mem := kept.Run(Options{RunID: "r"})
	memDir := t.TempDir()
	if err := mem.WriteDir(memDir); err != nil {
		t.Fatal(err)
	}
	streamed := mustBuild(t, "default", sets...)
	dir := t.TempDir()
	res := streamed.Run(Options{RunID: "r", Dir: dir})
	if err := res.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	if res.Flows != nil || len(streamed.Messages) != 0 {
		t.Errorf("streamed training run: got %d flow records and %d messages held, want none", len(res.Flows), len(streamed.Messages))
	}
	if len(mem.Iterations) != 2 || !mem.Drained || mem.Run.FlowsTotal <= 960 {
		t.Fatalf("kept run: %d iterations (drained %v), %d flows; want 2, and cloud flows beside the 960 of the collective", len(mem.Iterations), mem.Drained, mem.Run.FlowsTotal)
	}
	for _, f := range []string{analysis.FlowsFile, analysis.IterationsFile, analysis.CollectivesFile} {
		a, _ := os.ReadFile(filepath.Join(memDir, f))
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: streamed %d bytes, want the kept run's %d, byte for byte", f, len(b), len(a))
		}
	}
	mem.Run.WallSeconds, res.Run.WallSeconds = 0, 0
	if fmt.Sprintf("%+v", mem.Run) != fmt.Sprintf("%+v", res.Run) { // NaN slowdowns print equal
		t.Errorf("run record: got %+v, want %+v", res.Run, mem.Run)
	}
	if want := nicConcurrency(kept.Messages, kept.Engine.Now()).counters(); !reflect.DeepEqual(want["nic_max_flows"], res.Run.Counters["nic_max_flows"]) ||
		want["nic_mean_qps_milli"] != res.Run.Counters["nic_mean_qps_milli"] {
		t.Errorf("NIC counters: got %v, want %v (nicConcurrency over the kept messages)", res.Run.Counters, want)
	}
	if a, b := kept.trainingSummary(), streamed.trainingSummary(); a != b || a == "" {
		t.Errorf("training summary: got %q, want %q", b, a)
	}
}
