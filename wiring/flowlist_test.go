package wiring

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/workloads/cloud"
)

// TestFlowListCursorRun: a flow list sorted by start is posted from a
// cursor over the file (nothing of it held at Build), an unsorted one is
// read whole and sorted; both runs of the same flows give the same
// flows.parquet byte for byte, and a flow to a host the topology lacks is
// reported at Build as before, whichever line it is on.
func TestFlowListCursorRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	var lines []string
	for i := range 400 {
		src := rng.IntN(8)
		dst := (src + 1 + rng.IntN(7)) % 8
		lines = append(lines, fmt.Sprintf("%d,%d,%d,%d", src, dst, 1000+rng.IntN(20000), i*250))
	}
	dir := t.TempDir()
	write := func(name string, ls []string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("src,dst,size_bytes,start_ns\n"+strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	sorted := write("sorted.csv", lines)
	shuffled := append([]string(nil), lines...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	unsorted := write("unsorted.csv", shuffled)

	run := func(path string, wantCursor bool) []byte {
		t.Helper()
		sim := mustBuild(t, "default", "topology.kind=star", "topology.hosts=8", "duration=200us",
			"workload.kind=flowlist", "workload.flowlist.file="+path)
		if _, isCursor := sim.drivers[0].gen.(*cloud.FlowListCursor); isCursor != wantCursor {
			t.Fatalf("%s: generator %T, want a cursor: %v", path, sim.drivers[0].gen, wantCursor)
		}
		out := t.TempDir()
		res := sim.Run(Options{RunID: "r", Dir: out})
		if err := res.WriteDir(out); err != nil {
			t.Fatal(err)
		}
		if res.Run.FlowsTotal != 400 || !res.Drained {
			t.Fatalf("%s: got %d flows (drained %v), want 400", path, res.Run.FlowsTotal, res.Drained)
		}
		b, err := os.ReadFile(filepath.Join(out, analysis.FlowsFile))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := run(sorted, true), run(unsorted, false)
	if !bytes.Equal(a, b) {
		t.Errorf("flows.parquet of the sorted list (%d B) differs from the unsorted one's (%d B)", len(a), len(b))
	}

	bad := append(append([]string(nil), lines[:300]...), "2,9,100,75000")
	bad = append(bad, lines[300:]...)
	s, err := Catalog().Load("default", []string{"topology.kind=star", "topology.hosts=8", "workload.kind=flowlist",
		"workload.flowlist.file=" + write("bad.csv", bad)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(s)
	if want := "workload: flowlist.file: flow 2->9: the topology has 8 hosts"; err == nil || err.Error() != want {
		t.Errorf("a flow to host 9: got %v, want %s", err, want)
	}
}
