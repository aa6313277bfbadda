package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/scenario"
)

// While another dcsim holds --out, a run, a sweep, a shard and a --point
// into it exit 2 with one line naming the holder's pid, and write nothing;
// two runs into one directory both exited 0 and one's files silently won
// (issue 27, item 1).
func TestOutLocked(t *testing.T) {
	out := t.TempDir()
	held, err := scenario.LockDir(out, "", 4242)
	if err != nil {
		t.Fatal(err)
	}
	sw := sweepDir(t, cliSweep)
	want := "dcsim: --out: " + out + " is in use by dcsim pid 4242 (lock " + filepath.Join(out, scenario.LockFile) + "); wait for it to end or stop it\n"
	for _, args := range [][]string{
		{"run", "testdata/small.yaml"},
		{"sweep", sw},
		{"sweep", sw, "--shard", "1/2"},
		{"sweep", sw, "--point", "1"},
	} {
		code, stdout, stderr := runCLI(t, append(args, "--out", out)...)
		if code != 2 || stderr != want || stdout != "" {
			t.Errorf("%s: got exit %d, stdout %q, stderr %q; want 2 and %q", args[:2], code, stdout, stderr, want)
		}
	}
	if files := filesIn(t, out); !slices.Equal(files, []string{scenario.LockFile}) {
		t.Errorf("a refused command wrote %v", files)
	}
	held.Unlock()
	if code, _, stderr := runCLI(t, "run", "testdata/small.yaml", "--out", out, "-q"); code != 0 {
		t.Errorf("once released: exit %d, stderr %q", code, stderr)
	}
}

// A run that holds --out removes the temporary files an interrupted run
// left there (one was 120 MB), and only those (issue 27, item 7).
func TestRunRemovesStaleTempFiles(t *testing.T) {
	out := t.TempDir()
	for _, f := range []string{".flows.parquet.tmp-12345", ".samples.parquet.tmp-9", ".flows-spill-3", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(out, f), []byte("left"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := runCLI(t, "run", "testdata/small.yaml", "--out", out, "-q"); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := []string{scenario.LockFile, analysis.FlowsFile, "notes.txt", analysis.RunFile, scenario.ScenarioFile}
	if got := filesIn(t, out); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// filesIn lists dir's file names, hidden ones included, sorted.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
