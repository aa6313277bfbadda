package wiring

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A run holding the lock removes the temporary files an interrupted run
// of its own left, and nothing else (issue 27, item 7).
func TestRemoveTempFiles(t *testing.T) {
	dir := t.TempDir()
	stale := []string{".flows.parquet.tmp-123", ".samples.parquet.tmp-9", ".run.parquet.tmp-1", ".flows-spill-77", ".dcsim-probe-5"}
	kept := []string{".dcsim.lock", ".notes.tmp-1", "flows.parquet", "mine.txt"}
	for _, f := range append(slices.Clone(stale), kept...) {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveTempFiles(dir); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	slices.Sort(kept)
	if !slices.Equal(got, kept) {
		t.Errorf("left %v, want %v", got, kept)
	}
}
