package wiring

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
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
	// With the default bound nothing spills here; with 256 rows most rows
	// that wait behind a running message go through the spill file.
	for _, hold := range []int{0, 256} {
		t.Run(fmt.Sprintf("hold=%d", hold), func(t *testing.T) {
			streamed := mustBuild(t, "default", sets...)
			dir := t.TempDir()
			var posted, held int64 // at the last progress report before the drain
			res := streamed.Run(Options{RunID: "r", Dir: dir, holdRows: hold, Progress: func(p Progress) {
				if !p.Draining {
					posted, held = p.FlowsPosted, int64(len(streamed.Messages))
				}
			}})
			if res.Flows != nil {
				t.Fatalf("streamed run kept %d flow records in memory", len(res.Flows))
			}
			// Only running messages stay; the rows after a running one
			// wait as rows, in memory or spilled.
			t.Logf("at the end of the arrivals %d of %d posted messages running; at most %d rows waited in memory, %d went through the spill file",
				held, posted, res.waiting, res.spilled)
			if held >= posted/4 {
				t.Errorf("at the end of the arrivals: got %d of %d posted messages still held, want only the running ones", held, posted)
			}
			// Rows spill at the end of a chunk, so memory holds at most hold
			// rows plus one chunk's finished flows (27k of GoogleRPC's here).
			if hold > 0 && (res.spilled == 0 || res.waiting > int(posted)/2) {
				t.Errorf("hold %d: got %d rows spilled and at most %d waiting in memory, want some spilled and fewer than %d waiting", hold, res.spilled, res.waiting, posted/2)
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
			if left, _ := filepath.Glob(filepath.Join(dir, ".flows-spill-*")); len(left) != 0 {
				t.Errorf("spill files left behind: %v", left)
			}
			run := mem.Run
			run.WallSeconds, res.Run.WallSeconds = 0, 0
			if !reflect.DeepEqual(run, res.Run) {
				t.Errorf("run record: got %+v, want %+v", res.Run, run)
			}
			if !reflect.DeepEqual(mem.Analysis, res.Analysis) {
				t.Errorf("analysis: got %+v, want %+v", res.Analysis, mem.Analysis)
			}
			if err := res.WriteDir(t.TempDir()); err == nil {
				t.Error("writing a streamed run to another directory: got no error")
			}
		})
	}
}

// TestPathCache: the rows (small fabrics) and the map (large ones) give
// back what was put, and nothing for a pair not put.
func TestPathCache(t *testing.T) {
	for _, hosts := range []int{4, denseHosts + 1} {
		var c pathCache
		want := pathInfo{baseRTT: 5 * engine.Microsecond, bottleneck: 100 * engine.Gbps}
		c.put(2, 3, want, hosts)
		if got, ok := c.get(2, 3); !ok || got != want {
			t.Errorf("hosts %d: get(2, 3) = %v, %v; want %v, true", hosts, got, ok, want)
		}
		for _, p := range [][2]int{{3, 2}, {2, 1}, {0, 1}} {
			if got, ok := c.get(p[0], p[1]); ok {
				t.Errorf("hosts %d: get%v = %v, true; want not cached", hosts, p, got)
			}
		}
	}
}

// TestMergeRows: the one-pass merge gives the sorted union, whatever the
// interleaving of the two runs' ids.
func TestMergeRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 0))
	for trial := 0; trial < 200; trial++ {
		var a, b []analysis.FlowRecord
		for id := int64(1); id <= int64(rng.IntN(60)); id++ {
			if rng.IntN(2) == 0 {
				a = append(a, analysis.FlowRecord{FlowID: id})
			} else {
				b = append(b, analysis.FlowRecord{FlowID: id, SizeBytes: id})
			}
		}
		n := len(a) + len(b)
		got := mergeRows(a, b)
		if len(got) != n {
			t.Fatalf("trial %d: got %d rows, want %d", trial, len(got), n)
		}
		for i, f := range got {
			if f.FlowID != int64(i+1) {
				t.Fatalf("trial %d: row %d has flow %d, want %d", trial, i, f.FlowID, i+1)
			}
		}
	}
}
