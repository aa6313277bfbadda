package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/scenario"
)

// TestSweepSlurmArray runs examples/slurm/tiny.yaml as a 4-task SLURM
// array job through examples/slurm/sweep.sbatch, on a real cluster, and
// checks that the results equal a local run of the same sweep: the same
// point directories, flows.parquet and scenario.yaml byte for byte,
// run.parquet equal but for its wall clock and version. It needs a
// running cluster (.ci/slurm-setup starts a one-node one) and
// DCSIM_SLURM=1.
func TestSweepSlurmArray(t *testing.T) {
	if os.Getenv("DCSIM_SLURM") != "1" {
		t.Skip("SLURM array test skipped: run .ci/slurm-setup, then set DCSIM_SLURM=1")
	}
	for _, tool := range []string{"sbatch", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("DCSIM_SLURM=1 but %s is not on PATH: %v", tool, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	// slurmd runs the tasks as the submitting user; make sure they can
	// reach everything under tmp.
	os.Chmod(tmp, 0o755)

	bin := filepath.Join(tmp, "dcsim")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sweepFile, err := filepath.Abs("../../examples/slurm/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("../../examples/slurm/sweep.sbatch")
	slurmOut := filepath.Join(tmp, "slurm")
	logs := filepath.Join(tmp, "logs")
	os.MkdirAll(logs, 0o755)

	sb := exec.CommandContext(ctx, "sbatch", "--wait", "--array=0-3", "--time=5",
		"--job-name=dcsim-test", "--chdir="+tmp, "--output="+filepath.Join(logs, "task-%a.out"),
		"--export=ALL,DCSIM="+bin, script, sweepFile, slurmOut)
	out, err := sb.CombinedOutput()
	taskLogs := readLogs(logs)
	if err != nil {
		t.Fatalf("sbatch --wait: %v\n%s\ntask logs:\n%s", err, out, taskLogs)
	}
	t.Logf("%s", bytes.TrimSpace(out))
	// Each task ran its one point.
	for i := range 4 {
		want := fmt.Sprintf("1 in shard %d/4: 1 ran, 0 skipped (already done), 0 failed", i)
		if !strings.Contains(taskLogs, want) {
			t.Errorf("task logs lack %q:\n%s", want, taskLogs)
		}
	}

	local := filepath.Join(tmp, "local")
	if code, _, stderr := runCLI(t, "sweep", sweepFile, "--out", local, "-q"); code != 0 {
		t.Fatalf("local sweep: exit %d: %s", code, stderr)
	}
	a, b := pointFiles(t, slurmOut), pointFiles(t, local)
	if len(a) != 4*3 {
		t.Errorf("SLURM run made %d files, want 12 (4 points x flows, scenario, run): %v", len(a), slices.Sorted(keysOf(a)))
	}
	if !slices.Equal(slices.Sorted(keysOf(a)), slices.Sorted(keysOf(b))) {
		t.Fatalf("file sets differ:\nslurm %v\nlocal %v", slices.Sorted(keysOf(a)), slices.Sorted(keysOf(b)))
	}
	for name, content := range a {
		if strings.HasSuffix(name, ".parquet") && filepath.Base(name) != analysis.RunFile {
			// Every run has an id of its own: the rows must match but for it.
			same, err := analysis.SameRows(filepath.Join(slurmOut, name), filepath.Join(local, name))
			if err != nil {
				t.Fatal(err)
			}
			if !same {
				t.Errorf("%s differs between the SLURM and the local run", name)
			}
			continue
		}
		if content != b[name] {
			t.Errorf("%s differs between the SLURM and the local run", name)
		}
	}
}

func readLogs(dir string) string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(dir, "*.out"))
	slices.Sort(files)
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "--- %s\n%s", filepath.Base(f), data)
	}
	return b.String()
}

// pointFiles maps HASH/FILE to content under a sweep's out directory;
// run.parquet becomes its record without run_id, wall_seconds and
// version, the columns that may differ between two runs of the same
// scenario.
func pointFiles(t *testing.T, out string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(out, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, f := range files {
		rel, _ := filepath.Rel(out, f)
		if filepath.Base(f) == scenario.LockFile {
			continue // each point's lock: the pid of whichever dcsim ran it
		}
		if filepath.Base(f) == analysis.RunFile {
			r, params, err := analysis.ReadRun(f)
			if err != nil {
				t.Fatal(err)
			}
			r.RunID, r.WallSeconds, r.Version = "", 0, ""
			load := "null"
			if r.Load != nil {
				load = fmt.Sprint(*r.Load)
			}
			r.Load = nil // a pointer would print as an address
			m[rel] = fmt.Sprintf("%+v load=%s %v", r, load, params)
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[rel] = string(data)
	}
	return m
}

func keysOf(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
