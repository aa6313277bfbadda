package main

import (
	"path/filepath"
	"testing"

	"github.com/dcsim/dcsim/analysis"
)

func writeRun(t *testing.T, r analysis.RunRecord, flowID int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := analysis.WriteRun(filepath.Join(dir, "run.parquet"), r, nil); err != nil {
		t.Fatal(err)
	}
	flows := []analysis.FlowRecord{{RunID: r.RunID, FlowID: flowID, SizeBytes: 1000}}
	if err := analysis.WriteFlows(filepath.Join(dir, "flows.parquet"), flows); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Wall time and version may differ, and the run id with the resolved
// scenario (a note); any other column, or a flow row, may not.
func TestCompare(t *testing.T) {
	base := analysis.RunRecord{RunID: "r", Scenario: "s", Events: 10, WallSeconds: 1, Version: "a"}
	other := base
	other.WallSeconds, other.Version = 2, "b"
	a := writeRun(t, base, 1)
	if d, n, err := compare(a, writeRun(t, other, 1)); err != nil || len(d) != 0 || len(n) != 0 {
		t.Errorf("wall time and version differ: got %v, %v, %v; want no differences or notes", d, n, err)
	}
	other.RunID = "q"
	d, n, err := compare(a, writeRun(t, other, 1))
	if err != nil || len(d) != 0 || len(n) != 0 {
		t.Errorf("run id differs: got %q, %q, %v; want no differences or notes (ids are unique per run)", d, n, err)
	}
	// A run.parquet from before config_hash is a schema addition; a
	// config_hash that differs with equal scenario.yaml files is not.
	other.ConfigHash = "0123456789abcdef"
	if d, n, err := compare(a, writeRun(t, other, 1)); err != nil || len(d) != 0 || len(n) != 1 {
		t.Errorf("config_hash new: got %q, %q, %v; want one note", d, n, err)
	}
	withHash := base
	withHash.ConfigHash = "fedcba9876543210"
	if d, _, err := compare(writeRun(t, withHash, 1), writeRun(t, other, 1)); err != nil || len(d) != 1 {
		t.Errorf("config_hash differs: got %q, %v; want one difference", d, err)
	}
	other.ConfigHash = ""
	other.Events = 11
	d, _, err = compare(a, writeRun(t, other, 2))
	if want := []string{"flows.parquet: differs (" + "", "run.parquet Events: 11, want 10"}; err != nil || len(d) != 2 || d[1] != want[1] || d[0][:len(want[0])] != want[0] {
		t.Errorf("got %q, %v; want %q", d, err, want)
	}
}
