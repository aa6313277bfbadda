package figure

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadCSV: the rows after the header; an empty file is an error (the
// plots indexed rows[1:] and panicked on one).
func TestReadCSV(t *testing.T) {
	dir := t.TempDir()
	empty, full := filepath.Join(dir, "empty.csv"), filepath.Join(dir, "full.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte("a,b\n1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCSV(empty); err == nil || !strings.Contains(err.Error(), "empty, want a header line") {
		t.Errorf("empty file: got %v, want an error naming the missing header", err)
	}
	rows, err := ReadCSV(full)
	if err != nil || len(rows) != 2 || !slices.Equal(rows[1], []string{"3", "4"}) {
		t.Errorf("got %v, %v; want the two rows after the header", rows, err)
	}
}
