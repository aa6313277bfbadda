package main

import (
	"os"
	"strings"
	"testing"
)

// A scenario or sweep piped in with "-" is read, validated and run like
// a file; its errors name <stdin>:line.
func TestStdinInput(t *testing.T) {
	small, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sw := sweepDir(t, cliSweep)
	sweepText, err := os.ReadFile(sw)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(strings.TrimSuffix(sw, "sweep.yaml")) // the sweep's base is relative to the working directory
	for _, c := range []struct {
		name, stdin string
		args        []string
		code        int
		stdout      string // a prefix
		stderr      string
	}{
		{"validate scenario", string(small), []string{"validate", "-"}, 0, "<stdin>: ok\n", ""},
		{"validate sweep", string(sweepText), []string{"validate", "-"}, 0, "<stdin>: ok (sweep cli, 4 points)\n", ""},
		{"validate bad field", "name: x\nworkload:\n  lod: 0.5\n", []string{"validate", "-"}, 2, "", "dcsim: <stdin>:3: workload.lod"},
		{"validate comments only", "# a comment\n", []string{"validate", "-"}, 2, "", "dcsim: <stdin>: empty input"},
		{"show", string(small), []string{"show", "-", "--set", "seed=9"}, 0, "name: small\nseed: 9\n", ""},
		{"run", string(small), []string{"run", "-", "--quiet", "--set", "duration=20us", "--out", t.TempDir()}, 0, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLIInput(t, c.stdin, c.args...)
			if code != c.code || !strings.HasPrefix(stdout, c.stdout) || !strings.HasPrefix(stderr, c.stderr) || (c.stderr == "") != (stderr == "") {
				t.Errorf("got exit %d, stdout %q, stderr %q; want %d, stdout starting %q, stderr starting %q", code, stdout, stderr, c.code, c.stdout, c.stderr)
			}
			if c.code == 2 && strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr has more than one line: %q", stderr)
			}
		})
	}
}
