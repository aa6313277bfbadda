package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/sweep"
)

// A child's end maps to dcsim's exit status: bad input (3 in the child)
// to 2, a Go runtime crash (2) to 1 with a message, a kill to 1 (issue
// #15, item 11).
func TestChildStatus(t *testing.T) {
	for _, tc := range []struct {
		script string
		code   int
		msg    string
	}{
		{"exit 0", 0, ""},
		{"exit 1", 1, ""},
		{"exit 3", 2, ""},
		{"exit 2", 1, "crashed: a Go runtime error (above) ended the run; this is a bug or a lack of memory, not bad input"},
		{"kill -KILL $$", 1, "killed by signal killed (the system may have run out of memory)"},
		// Ctrl-C and SIGTERM stop a command that does not catch them:
		// "killed by signal interrupt", exit 1, read as a crash (issue 27).
		{"kill -TERM $$", 143, "interrupted"},
		{"kill -INT $$", 130, "interrupted"},
		{"kill -HUP $$", 1, "killed by signal hangup"},
		{"kill -PIPE $$", 141, ""},
	} {
		code, msg := childStatus(exec.Command("sh", "-c", tc.script).Run())
		if code != tc.code || msg != tc.msg {
			t.Errorf("%s: got (%d, %q), want (%d, %q)", tc.script, code, msg, tc.code, tc.msg)
		}
	}
}

// buildDcsim builds the dcsim binary into a temporary directory.
func buildDcsim(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dcsim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The binary: bad input exits 2, and in a sweep one point that runs out
// of its memory budget is recorded in its error.txt while the other
// points finish; the sweep exits 1 (issue #15, item 10). The failing
// point is a k = 24 fat-tree, whose build holds about 100 MB of heap,
// against a 48 MiB budget; the k = 4 and k = 8 points need under 10 MB.
func TestBinaryPointIsolation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildDcsim(t)
	dir := t.TempDir()
	if out, err := exec.Command(bin, "run", "--set", "workload.load=7", "--out", filepath.Join(dir, "bad")).CombinedOutput(); exitCode(err) != 2 ||
		!strings.HasPrefix(string(out), "dcsim: --set workload.load=7: workload.load: 7 is not in (0, 1)") {
		t.Errorf("bad input: got exit %d, output %q; want 2 and the field", exitCode(err), out)
	}
	sw := filepath.Join(dir, "mem.yaml")
	os.WriteFile(sw, []byte("base: default\nset: {duration: 1us, topology.kind: fat-tree}\ngrid:\n  topology.k: [4, 40, 8]\n"), 0o644)
	out := filepath.Join(dir, "out")
	got, err := exec.Command(bin, "sweep", sw, "--out", out, "-j", "1", "--point-memory", "48MiB").CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(got), "2 ran, 0 skipped (already done), 1 failed") ||
		!strings.Contains(string(got), "point 1 (topology.k=40) failed: ran out of memory: the live heap reached") {
		t.Fatalf("got exit %d, output\n%s\nwant 1 with point 1 out of memory", exitCode(err), got)
	}
	for i, p := range loadPoints(t, sw) {
		_, runErr := os.Stat(filepath.Join(sweep.Dir(out, &p), analysis.RunFile))
		errTxt, _ := os.ReadFile(filepath.Join(sweep.Dir(out, &p), sweep.ErrorFile))
		if i == 1 {
			if runErr == nil || !strings.Contains(string(errTxt), "above the budget of 48 MiB per point") {
				t.Errorf("point 1: run.parquet exists (%v) or error.txt %q lacks the budget", runErr == nil, errTxt)
			}
		} else if runErr != nil || len(errTxt) > 0 {
			t.Errorf("point %d: want run.parquet and no error.txt, got %v, %q", i, runErr, errTxt)
		}
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
