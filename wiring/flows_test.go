package wiring

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dcsim/dcsim/analysis"
)

// A run given a directory streams flows.parquet while it runs: the file is
// byte-identical to the one WriteDir writes from the records a run without
// a directory keeps, the run record and the analysis are the same, and the
// finished flows leave Sim.Messages during the run, not only at its end.
func TestFlowsStreamed(t *testing.T) {
	sets := []string{"duration=300us", "workload.distribution=googlerpc"}
	kept := mustBuild(t, "default", sets...)
	mem := kept.Run(Options{RunID: "r"})
	memDir := t.TempDir()
	if err := mem.WriteDir(memDir); err != nil {
		t.Fatal(err)
	}
	if got, want := len(kept.Messages), len(mem.Flows); got != want {
		t.Errorf("run without a directory: got %d messages kept, want all %d", got, want)
	}

	streamed := mustBuild(t, "default", sets...)
	dir := t.TempDir()
	var posted, held int64 // at the last progress report before the drain
	res := streamed.Run(Options{RunID: "r", Dir: dir, Progress: func(p Progress) {
		if !p.Draining {
			posted, held = p.FlowsPosted, int64(len(streamed.Messages))
		}
	}})
	if res.Flows != nil {
		t.Fatalf("streamed run kept %d flow records in memory", len(res.Flows))
	}
	// A message leaves once it and every message posted before it have
	// finished, so one long flow holds those behind it: with GoogleRPC's
	// sizes most of the 300 us's messages are behind a running one.
	t.Logf("at the end of the arrivals %d of %d posted messages held", held, posted)
	if held >= posted {
		t.Errorf("at the end of the arrivals: got %d of %d posted messages still held, want fewer", held, posted)
	}
	if n := len(streamed.Messages); n != 0 {
		t.Errorf("after the run: got %d messages held, want 0", n)
	}
	if err := res.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(memDir, analysis.FlowsFile))
	b, _ := os.ReadFile(filepath.Join(dir, analysis.FlowsFile))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("streamed flows.parquet: got %d bytes, want the %d written from the kept records, byte for byte", len(b), len(a))
	}
	mem.Run.WallSeconds, res.Run.WallSeconds = 0, 0
	if !reflect.DeepEqual(mem.Run, res.Run) {
		t.Errorf("run record: got %+v, want %+v", res.Run, mem.Run)
	}
	if !reflect.DeepEqual(mem.Analysis, res.Analysis) {
		t.Errorf("analysis: got %+v, want %+v", res.Analysis, mem.Analysis)
	}
	if err := res.WriteDir(t.TempDir()); err == nil {
		t.Error("writing a streamed run to another directory: got no error")
	}
}
