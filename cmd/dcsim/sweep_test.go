package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/sweep"
)

// cliSweep is a sweep of four tiny points over testdata/small.yaml.
const cliSweep = `name: cli
base: small.yaml
set: {duration: 100us}
grid:
  nic.scheduler: [fair, fair-message]
zip:
  seed: [1, 2]
`

// sweepDir writes cliSweep (or text) and small.yaml into a directory and
// returns the sweep file.
func sweepDir(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	small, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.yaml"), small, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sweep.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadPoints expands the sweep file at path.
func loadPoints(t *testing.T, path string) []sweep.Point {
	t.Helper()
	spec, err := sweep.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := spec.Points()
	if err != nil {
		t.Fatal(err)
	}
	return pts
}

func TestSweepCommand(t *testing.T) {
	sw := sweepDir(t, cliSweep)
	out := filepath.Join(t.TempDir(), "out")

	code, stdout, stderr := runCLI(t, "sweep", sw, "--out", out, "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "sweep cli: 4 points") ||
		!strings.Contains(lines[2], "todo") || !strings.HasSuffix(lines[5], "nic.scheduler=fair-message seed=2") {
		t.Errorf("dry run printed:\n%s\nwant a header, a column line and 4 points, all todo", stdout)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--dry-run created the output directory")
	}

	code, stdout, stderr = runCLI(t, "sweep", sw, "--out", out, "--workers", "2")
	if code != 0 {
		t.Fatalf("sweep: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "4 ran, 0 skipped") {
		t.Errorf("sweep printed\n%s\nwant 4 ran", stdout)
	}
	// Not a terminal: a line per point as it ends, not a bar (issue #26).
	pts := loadPoints(t, sw)
	lines = strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	slices.Sort(lines) // two workers: any order
	for i, p := range pts {
		want := fmt.Sprintf("sweep cli: point %d (%s) done, ", p.Index, p.Label())
		if i >= len(lines) || !strings.HasPrefix(lines[i], want) || !strings.Contains(lines[i], " of 4: simulated ") {
			t.Errorf("stderr line %d: want %q... of 4: simulated ...; stderr:\n%s", i, want, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "sweep", sw, "--out", t.TempDir(), "--quiet"); code != 0 || stderr != "" {
		t.Errorf("--quiet: exit %d, stderr %q, want nothing", code, stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*", analysis.RunFile))
	if len(runs) != 4 {
		t.Fatalf("got %d run.parquet files, want 4", len(runs))
	}
	r, params, err := analysis.ReadRun(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(params) != 1 || params[0].Name != "nic.scheduler" || params[0].Value != r.Scheduler {
		t.Errorf("run.parquet swept columns %v, want nic.scheduler = %s (seed is pinned)", params, r.Scheduler)
	}
	if r.Version != version() {
		t.Errorf("run.parquet version %q, want %q", r.Version, version())
	}

	code, stdout, _ = runCLI(t, "sweep", sw, "--out", out)
	if code != 0 || !strings.Contains(stdout, "0 ran, 4 skipped") {
		t.Errorf("re-run: exit %d, printed\n%s\nwant 4 skipped", code, stdout)
	}
	code, stdout, _ = runCLI(t, "sweep", sw, "--out", out, "--shard", "1/3", "--force")
	if code != 0 || !strings.Contains(stdout, "1 in shard 1/3: 1 ran, 0 skipped") {
		t.Errorf("forced shard: exit %d, printed\n%s\nwant point 1 recomputed", code, stdout)
	}
	code, stdout, _ = runCLI(t, "sweep", sw, "--out", out, "--dry-run", "--shard", "0/2")
	if code != 0 || strings.Count(stdout, " done ") != 2 || !strings.Contains(stdout, "shard 0/2 has 2") {
		t.Errorf("dry run of a finished shard: exit %d, printed\n%s\nwant 2 points done", code, stdout)
	}
}

// --point I prints its summary line when stdout is a pipe (here a
// buffer) as on a terminal; it printed nothing. --quiet, as a sweep's
// point children run, prints nothing.
func TestSweepPointSummary(t *testing.T) {
	sw := sweepDir(t, cliSweep)
	out := filepath.Join(t.TempDir(), "out")
	pts := loadPoints(t, sw)
	code, stdout, stderr := runCLI(t, "sweep", sw, "--out", out, "--point", "3")
	want := "sweep cli point 3 (nic.scheduler=fair-message seed=2): simulated "
	wantEnd := "; results in " + sweep.Dir(out, &pts[3]) + "\n"
	if code != 0 || !strings.HasPrefix(stdout, want) || !strings.HasSuffix(stdout, wantEnd) ||
		!strings.Contains(stdout, " flows finished, slowdown mean ") || strings.Count(stdout, "\n") != 1 || stderr != "" {
		t.Errorf("got exit %d, stdout %q, stderr %q; want one line %q...%q", code, stdout, stderr, want, wantEnd)
	}
	code, stdout, stderr = runCLI(t, "sweep", sw, "--out", out, "--point", "3", "--quiet")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("--quiet: got exit %d, stdout %q, stderr %q; want 0 and nothing", code, stdout, stderr)
	}
	// --run-id pins the point's run_id (a SLURM job id); a whole sweep,
	// whose points each need an id of their own, refuses it.
	if code, _, stderr := runCLI(t, "sweep", sw, "--out", out, "--point", "3", "--run-id", "job-7", "-q"); code != 0 {
		t.Fatalf("--run-id: exit %d: %s", code, stderr)
	}
	if r, _, err := analysis.ReadRun(filepath.Join(sweep.Dir(out, &pts[3]), analysis.RunFile)); err != nil || r.RunID != "job-7" || r.ConfigHash != pts[3].Hash {
		t.Errorf("--run-id job-7: run_id %q, config_hash %q (%v); want job-7, %s", r.RunID, r.ConfigHash, err, pts[3].Hash)
	}
	code, _, stderr = runCLI(t, "sweep", sw, "--out", out, "--run-id", "job-7")
	if want := "dcsim: --run-id needs --point: every point of a sweep is a run with an id of its own\n"; code != 2 || stderr != want {
		t.Errorf("sweep --run-id: exit %d, stderr %q, want 2 and %q", code, stderr, want)
	}
}

// Bad sweep input exits 2 with one line naming file:line, and writes
// nothing.
func TestSweepBadInput(t *testing.T) {
	cases := []struct {
		name  string
		sweep string
		args  []string
		want  string
	}{
		{"bad value", "base: small.yaml\ngrid:\n  workload.load:\n    - 0.5\n    - 7\n", nil, "sweep.yaml:5: grid.workload.load[1]: workload.load: 7 is not in (0, 1)"},
		{"unknown key", "base: small.yaml\ngird: {seed: [1]}\n", nil, "sweep.yaml:2: gird: unknown field"},
		{"missing base", "base: other.yaml\ngrid: {seed: [1]}\n", nil, "sweep.yaml:1: base: \"other.yaml\" is neither"},
		{"build error", "base: small.yaml\nset: {workload.kind: flowlist, workload.flowlist.file: none.csv}\ngrid: {seed: [1]}\n", nil, "sweep.yaml:1: base: point 0 (seed=1): "},
		{"a scenario", "name: x\nduration: 1ms\n", []string{"-j", "1"}, "sweep.yaml: not a sweep file (it has no top-level grid, zip or base)"},
		{"syntax", "base: small.yaml\ngrid: {seed: [1,\n", []string{"-j", "1"}, "sweep.yaml:2: did not find expected node content"},
		{"bad shard", cliSweep, []string{"--shard", "4/4"}, "--shard: shard \"4/4\": want 0 <= I < N"},
		{"bad workers", cliSweep, []string{"--workers", "-1"}, "--workers: -1 is negative"},
		// It ran every point into failure, each writing its error.txt
		// (issue 27, item 9).
		{"point memory below the floor", cliSweep, []string{"--point-memory", "1KiB"}, "--point-memory: 1KiB is below the 32MiB a point needs at the least"},
		{"name escapes", "name: ../../escaped\nbase: small.yaml\ngrid: {seed: [1]}\n", nil, `sweep.yaml:1: name: "../../escaped" has '/'`},
		{"empty name", "name: ''\nbase: small.yaml\ngrid: {seed: [1]}\n", nil, `sweep.yaml:1: name: must not be empty`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sw := sweepDir(t, c.sweep)
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := runCLI(t, append([]string{"sweep", sw, "--out", out}, c.args...)...)
			msg := strings.ReplaceAll(stderr, sw, "sweep.yaml")
			if code != 2 || !strings.HasPrefix(msg, "dcsim: "+c.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
				t.Errorf("got exit %d, stdout %q, stderr %q; want 2 and one line starting %q", code, stdout, msg, "dcsim: "+c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("bad input wrote %s", out)
			}
			code, _, stderr = runCLI(t, "validate", sw)
			if c.args == nil && (code != 2 || !strings.HasPrefix(strings.ReplaceAll(stderr, sw, "sweep.yaml"), "dcsim: "+c.want)) {
				t.Errorf("validate: got exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
		})
	}
}

func TestValidateSweep(t *testing.T) {
	sw := sweepDir(t, cliSweep)
	code, stdout, stderr := runCLI(t, "validate", sw)
	if code != 0 || stdout != sw+": ok (sweep cli, 4 points)\n" {
		t.Errorf("got exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A scenario still validates as a scenario.
	code, stdout, _ = runCLI(t, "validate", "testdata/small.yaml")
	if code != 0 || stdout != "testdata/small.yaml: ok\n" {
		t.Errorf("scenario: got exit %d, stdout %q", code, stdout)
	}
}

// A point that fails at run time (here: its directory cannot be made,
// because a file stands in its place) is reported, the others finish,
// and the exit status is 1.
func TestSweepFailedPointExit1(t *testing.T) {
	sw := sweepDir(t, cliSweep)
	pts := loadPoints(t, sw)
	out := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(out, 0o755)
	if err := os.WriteFile(filepath.Join(out, pts[2].Hash), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "sweep", sw, "--out", out)
	if code != 1 || !strings.Contains(stdout, "3 ran, 0 skipped (already done), 1 failed") ||
		!strings.Contains(stdout, "point 2 (nic.scheduler=fair-message seed=1) failed") ||
		!strings.Contains(stderr, "1 of 4 points failed") {
		t.Errorf("got exit %d, stdout\n%s\nstderr %q; want 1 with point 2 failed", code, stdout, stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*", analysis.RunFile))
	if len(runs) != 3 {
		t.Errorf("got %d complete points, want 3", len(runs))
	}
}

func TestReportCommand(t *testing.T) {
	sw := sweepDir(t, cliSweep)
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := runCLI(t, "sweep", sw, "--out", out); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "report", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"4 runs in 2 groups, grouped by scheduler, cc", "fair-message", "by flow size (5% buckets)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}

	// The mean slowdown per scheduler equals a direct computation from
	// flows.parquet (clamped at 1, finished in-window flows, seeds pooled).
	code, stdout, stderr = runCLI(t, "report", out, "--group-by", "scheduler", "--format", "csv")
	if code != 0 {
		t.Fatalf("report csv: exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("csv: %v, %d records:\n%s", err, len(recs), stdout)
	}
	direct := map[string][2]float64{} // scheduler -> sum, count
	runs, _ := filepath.Glob(filepath.Join(out, "*", analysis.RunFile))
	for _, rf := range runs {
		r, _, err := analysis.ReadRun(rf)
		if err != nil {
			t.Fatal(err)
		}
		flows, err := analysis.ReadFlows(filepath.Join(filepath.Dir(rf), analysis.FlowsFile))
		if err != nil {
			t.Fatal(err)
		}
		d := direct[r.Scheduler]
		for _, f := range flows {
			if f.InWindow && f.Slowdown != nil {
				d[0] += math.Max(1, *f.Slowdown)
				d[1]++
			}
		}
		direct[r.Scheduler] = d
	}
	for _, rec := range recs[1:] {
		got, err := strconv.ParseFloat(rec[5], 64)
		if err != nil {
			t.Fatal(err)
		}
		d := direct[rec[0]]
		want := d[0] / d[1]
		// Same numbers summed in another order: equal to a few ulps.
		if math.Abs(got-want) > 1e-12*want || rec[2] != strconv.Itoa(int(d[1])) {
			t.Errorf("%s: report mean %.15g over %s flows, direct %.15g over %v", rec[0], got, rec[2], want, d[1])
		}
	}

	// The rows behind the curves, and the ratio view.
	code, stdout, stderr = runCLI(t, "report", out, "--group-by", "scheduler", "--format", "csv", "--per-size")
	if recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll(); code != 0 || err != nil || len(recs) != 1+2*20 || recs[0][1] != "size_percentile" {
		t.Errorf("--per-size: exit %d, %v, %d rows: %s", code, err, len(recs), stderr)
	}
	code, stdout, stderr = runCLI(t, "report", out, "--group-by", "scheduler", "--baseline", "scheduler=fair")
	if code != 0 || !strings.Contains(stdout, "ratio to scheduler=fair in the same group") || !strings.Contains(stdout, "\nfair-message  ") {
		t.Errorf("--baseline: exit %d: %s\n%s", code, stderr, stdout)
	}

	// Plots in the three formats.
	for _, name := range []string{"fig.png", "fig.svg", "fig.pdf"} {
		path := filepath.Join(t.TempDir(), name)
		code, stdout, stderr := runCLI(t, "report", out, "--plot", path)
		if code != 0 || !strings.Contains(stdout, "plot in "+path) {
			t.Fatalf("plot %s: exit %d: %s", name, code, stderr)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".png") {
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		} else if strings.HasSuffix(name, ".svg") && !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s is not SVG", name)
		} else if strings.HasSuffix(name, ".pdf") && !bytes.HasPrefix(b, []byte("%PDF")) {
			t.Errorf("%s is not PDF", name)
		}
	}
	// A figure that cannot be legible is refused before the report
	// prints anything.
	code, stdout, stderr = runCLI(t, "report", out, "--plot", filepath.Join(t.TempDir(), "x.png"), "--series", "colour")
	if code != 2 || stdout != "" || stderr != "dcsim: --plot: plot series \"colour\": not a grouping column (grouped by scheduler, cc)\n" {
		t.Errorf("--series colour: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestReportBadInput(t *testing.T) {
	empty := t.TempDir()
	plotDir := filepath.Join(t.TempDir(), "figs.png")
	os.Mkdir(plotDir, 0o755)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "requires at least 1 arg"},
		{[]string{"report", filepath.Join(empty, "nope")}, "no such file or directory"},
		{[]string{"report", empty}, "no complete run"},
		{[]string{"report", empty, "--plot", "x.gif"}, "--plot x.gif: want a .png, .svg or .pdf file"},
		// The plot path is checked before any work (issue #27 item 9):
		// with no run under the directory at all, it is what is named.
		{[]string{"report", empty, "--plot", filepath.Join(empty, "nodir", "x.png")}, "--plot " + filepath.Join(empty, "nodir", "x.png") + ": directory " + filepath.Join(empty, "nodir") + " does not exist"},
		{[]string{"report", empty, "--plot", plotDir}, "--plot " + plotDir + ": is a directory"},
		{[]string{"report", empty, "--format", "json"}, "--format \"json\": want text or csv"},
		{[]string{"report", empty, "--per-size"}, "--per-size goes with --format csv"},
		// Figure flags without a figure would be ignored.
		{[]string{"report", empty, "--plot-kind", "cdf"}, "--plot-kind shapes the figure: it goes with --plot FILE"},
		{[]string{"report", empty, "--stat", "p50"}, "--stat shapes the figure"},
		{[]string{"report", empty, "--series", "scheduler"}, "--series shapes the figure"},
		{[]string{"report", empty, "--format", "csv", "--baseline", "scheduler=fair"}, "--baseline is a text view"},
		{[]string{"report", empty, "--baseline", "fair"}, `--baseline "fair": want column=value`},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: got exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// An unknown grouping column names the ones there are.
	dir := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runCLI(t, "run", "testdata/small.yaml", "--set", "duration=50us", "--out", dir, "-q"); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := runCLI(t, "report", dir, "--group-by", "scheduler,colour")
	if code != 2 || !strings.Contains(stderr, `group by "colour": no such column (have: run_id, config_hash, scenario, scheduler`) {
		t.Errorf("got exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "report", dir, "--baseline", "scheduler=srpt")
	if code != 2 || stdout != "" || stderr != "dcsim: --baseline scheduler=srpt: no group has it (scheduler: fair)\n" {
		t.Errorf("--baseline scheduler=srpt: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A failed point is noted, not fatal.
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", sweep.ErrorFile), []byte("x"), 0o644)
	code, stdout, _ = runCLI(t, "report", dir)
	if code != 0 || !strings.Contains(stdout, "note: failed point, not reported") {
		t.Errorf("got exit %d, stdout\n%s", code, stdout)
	}
}

// Every example sweep validates.
func TestExampleSweeps(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) < 4 {
		t.Fatalf("example sweeps: %v, %v", files, err)
	}
	for _, f := range append(files, "../../examples/slurm/tiny.yaml") {
		if code, stdout, stderr := runCLI(t, "validate", f); code != 0 || !strings.Contains(stdout, ": ok (sweep ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", f, code, stdout, stderr)
		}
	}
}

// The Kubernetes example: its sweep validates, every pod gets a distinct
// shard of as many as there are completions.
func TestK8sExample(t *testing.T) {
	data, err := os.ReadFile("../../examples/k8s/sweep-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var sweepText string
	var job struct {
		Kind string
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Template       struct {
				Spec struct {
					Containers []struct {
						Args []string
						Env  []struct{ Name, Value string }
					}
				}
			}
		}
	}
	for {
		var doc struct {
			Kind string
			Data map[string]string
		}
		var node yaml.Node
		if err := dec.Decode(&node); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if err := node.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		switch doc.Kind {
		case "ConfigMap":
			sweepText = doc.Data["sweep.yaml"]
		case "Job":
			if err := node.Decode(&job); err != nil {
				t.Fatal(err)
			}
		}
	}
	spec, err := sweep.Parse("sweep.yaml", []byte(sweepText))
	if err != nil {
		t.Fatal(err)
	}
	if pts, err := spec.Points(); err != nil || len(pts) != 12 {
		t.Fatalf("the manifest's sweep: %d points, %v; want 12", len(pts), err)
	}
	c := job.Spec.Template.Spec.Containers[0]
	shards := ""
	for _, e := range c.Env {
		if e.Name == "SHARDS" {
			shards = e.Value
		}
	}
	args := strings.Join(c.Args, " ")
	if job.Spec.CompletionMode != "Indexed" || shards != strconv.Itoa(job.Spec.Completions) ||
		!strings.Contains(args, "--shard $(JOB_COMPLETION_INDEX)/$(SHARDS)") || !strings.HasPrefix(args, "sweep /sweep/sweep.yaml") {
		t.Errorf("job: mode %q, completions %d, SHARDS %q, args %q", job.Spec.CompletionMode, job.Spec.Completions, shards, args)
	}
}
