package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/analysis"
)

func writeRun(t *testing.T, r analysis.RunRecord, flows string) string {
	t.Helper()
	dir := t.TempDir()
	if err := analysis.WriteRun(filepath.Join(dir, "run.parquet"), r, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "flows.parquet"), []byte(flows), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Wall time and version may differ; any other column, or a byte of a
// deterministic file, may not.
func TestCompare(t *testing.T) {
	base := analysis.RunRecord{RunID: "r", Scenario: "s", Events: 10, WallSeconds: 1, Version: "a"}
	other := base
	other.WallSeconds, other.Version = 2, "b"
	a, b := writeRun(t, base, "x"), writeRun(t, other, "x")
	if d, err := compare(a, b); err != nil || len(d) != 0 {
		t.Errorf("wall time and version differ: got %v, %v; want no differences", d, err)
	}
	other.Events = 11
	c := writeRun(t, other, "y")
	d, err := compare(a, c)
	want := []string{"flows.parquet: differs (1 B and 1 B)", "run.parquet Events: 11, want 10"}
	if err != nil || !slices.Equal(d, want) {
		t.Errorf("got %q, %v; want %q", d, err, want)
	}
}
