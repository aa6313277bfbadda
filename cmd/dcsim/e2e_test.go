package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLIInput(t, "", args...)
}

// runCLIInput is runCLI with stdin as the standard input.
func runCLIInput(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// The CLI path end to end: run a small scenario, read the parquet back,
// check rows, types and physics.
func TestRunEndToEnd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, "run", "testdata/small.yaml", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "slowdown of in-window flows") {
		t.Errorf("summary table missing from stdout:\n%s", stdout)
	}
	flows, err := analysis.ReadFlows(filepath.Join(dir, analysis.FlowsFile))
	if err != nil {
		t.Fatal(err)
	}
	rr, _, err := analysis.ReadRun(filepath.Join(dir, analysis.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(flows) == 0 || int64(len(flows)) != rr.FlowsTotal {
		t.Fatalf("%d flow rows, run.parquet says %d", len(flows), rr.FlowsTotal)
	}
	if _, err := os.Stat(filepath.Join(dir, "scenario.yaml")); err != nil {
		t.Fatal(err)
	}
	// Physics: a flow on this star crosses two 1 us links each way and
	// must serialize all its wire bytes (48 B header per 1000 B) at 100
	// Gbps. The reference ideal FCT adds one payload-sized serialization
	// per hop on top (2 x 80 ns here); only flows inside that 160 ns gap
	// may beat their ideal, so every slowdown below 1 is explained by it.
	below := 0
	for _, f := range flows {
		if f.FctNs == nil {
			t.Errorf("flow %d unfinished in a drained run", f.FlowID)
			continue
		}
		pk := (f.SizeBytes + 999) / 1000
		wireNs := (f.SizeBytes + 48*pk) * 8 / 100
		physics := 4000 + wireNs
		if *f.FctNs < physics {
			t.Errorf("flow %d (%d B): fct %d ns below the physical bound %d ns", f.FlowID, f.SizeBytes, *f.FctNs, physics)
		}
		if *f.Slowdown < 1 {
			below++
			if f.IdealFctNs-*f.FctNs > 160 {
				t.Errorf("flow %d: fct %d ns is %d ns under its ideal %d ns, more than the 160 ns per-hop payload term",
					f.FlowID, *f.FctNs, f.IdealFctNs-*f.FctNs, f.IdealFctNs)
			}
		}
	}
	if int64(below) > rr.FlowsBelowOne+int64(len(flows)) || rr.FlowsBelowOne > int64(below) {
		t.Errorf("run.parquet flows_below_one %d, counted %d below 1 among all flows", rr.FlowsBelowOne, below)
	}
	t.Logf("%d flows, %d below 1 (all within the ideal formula's per-hop payload term)", len(flows), below)
}

// Same seed: the same flows.parquet rows under two run ids of their own
// and one config_hash, byte-identical files with the id pinned
// (--run-id), run.parquet equal but for the wall clock and run_id.
// Another seed: different flows. A report over both runs counts the run
// once and says so (issue #26).
func TestRunDeterminism(t *testing.T) {
	base := t.TempDir()
	read := func(name string, seed string, extra ...string) (string, analysis.RunRecord) {
		dir := filepath.Join(base, name)
		args := append([]string{"run", "testdata/small.yaml", "--quiet", "--seed", seed, "--out", dir}, extra...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		r, _, err := analysis.ReadRun(filepath.Join(dir, analysis.RunFile))
		if err != nil {
			t.Fatal(err)
		}
		r.WallSeconds = 0
		return filepath.Join(dir, analysis.FlowsFile), r
	}
	a, ra := read("a", "5")
	b, rb := read("b", "5")
	c, _ := read("c", "6")
	if same, err := analysis.SameRows(a, b); err != nil || !same {
		t.Errorf("same seed: flows.parquet rows differ (%v)", err)
	}
	if ra.RunID == rb.RunID || ra.ConfigHash != rb.ConfigHash || ra.ConfigHash == "" {
		t.Errorf("same seed: run ids %q, %q (want two), config_hash %q, %q (want one)", ra.RunID, rb.RunID, ra.ConfigHash, rb.ConfigHash)
	}
	ra.RunID, rb.RunID = "", ""
	if !reflect.DeepEqual(ra, rb) {
		t.Errorf("same seed: run records differ beyond the wall clock and run_id:\n%+v\n%+v", ra, rb)
	}
	if same, _ := analysis.SameRows(a, c); same {
		t.Error("different seeds gave identical flows.parquet")
	}
	p, _ := read("p", "5", "--run-id", "job-1")
	q, rq := read("q", "5", "--run-id", "job-1")
	x, _ := os.ReadFile(p)
	y, _ := os.ReadFile(q)
	if rq.RunID != "job-1" || len(x) == 0 || !bytes.Equal(x, y) {
		t.Errorf("pinned run id: got %q and flows.parquet equal %v, want job-1 and byte-identical files", rq.RunID, bytes.Equal(x, y))
	}
	code, stdout, stderr := runCLI(t, "report", filepath.Join(base, "a"), filepath.Join(base, "b"))
	if want := "dcsim: warning: 1 run directory holds a run read from another directory (same config_hash"; code != 0 || !strings.Contains(stderr, want) ||
		!strings.Contains(stdout, "1 run in 1 group") {
		t.Errorf("report of a run twice: exit %d, stderr %q, want the warning %q and 1 run counted:\n%s", code, stderr, want, stdout)
	}
	for _, bad := range [][]string{{"run", "testdata/small.yaml", "--run-id", "a b"}, {"run", "testdata/small.yaml", "--run-id", ""}} {
		if code, _, stderr := runCLI(t, bad...); code != 2 || !strings.HasPrefix(stderr, "dcsim: --run-id: run id") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want 2 and one line on --run-id", bad, code, stderr)
		}
	}
}

// Bad input: exit 2, one line naming the file:line or field, nothing written.
func TestBadInput(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"malformed yaml", []string{"run", write("bad.yaml", "name: x\nworkload: {load: [\n")}, "bad.yaml:"},
		{"unknown field", []string{"run", write("unk.yaml", "name: x\nworkload:\n  lod: 0.5\n")}, "unk.yaml:3: workload.lod"},
		{"negative load", []string{"run", write("neg.yaml", "workload:\n  load: -0.5\n")}, "neg.yaml:2: workload.load"},
		{"load >= 1", []string{"run", "--set", "workload.load=1"}, "workload.load"},
		{"unknown scheduler", []string{"run", "--set", "nic.scheduler=magic"}, "nic.scheduler"},
		{"missing cdf file", []string{"run", "--set", "workload.distribution=testdata/nope.cdf"}, "nope.cdf"},
		{"non-monotone cdf", []string{"run", "--set", "workload.distribution=testdata/nonmonotone.cdf"}, "nonmonotone.cdf:3"},
		{"cdf not ending at 1", []string{"run", "--set", "workload.distribution=testdata/short.cdf"}, "short.cdf"},
		{"bad --set path", []string{"run", "--set", "nic.warp=9"}, "nic.warp"},
		{"bad --set syntax", []string{"run", "--set", "nowhere"}, "--set"},
		{"bad unit", []string{"run", "--set", "duration=10"}, "duration"},
		{"unknown flag", []string{"run", "--bogus"}, "unknown flag"},
		{"too many args", []string{"run", "a", "b"}, "arg"},
		{"negative seed", []string{"run", "--seed", "-3"}, "--seed"},
		// Bad flag values, worded by one function for every flag: cobra's
		// read `invalid argument "x" for "--seed" flag: strconv.ParseInt: ...`.
		{"seed not a number", []string{"run", "--seed", "x"}, `dcsim: --seed: "x" is not an integer`},
		{"seed fractional", []string{"run", "--seed=1.5"}, `dcsim: --seed: "1.5" is not an integer`},
		{"seed out of range", []string{"run", "--seed", "99999999999999999999"}, "dcsim: --seed: 99999999999999999999 is out of range for an int64"},
		{"quiet not a bool", []string{"run", "--quiet=maybe"}, `dcsim: --quiet: "maybe" is not true or false`},
		{"workers not a number", []string{"sweep", "x.yaml", "-j", "two"}, `dcsim: --workers: "two" is not an integer`},
		{"point not a number", []string{"sweep", "x.yaml", "--point", "first"}, `dcsim: --point: "first" is not an integer`},
		{"point-memory unit", []string{"sweep", "x.yaml", "--point-memory", "8QB"}, `dcsim: --point-memory: bad size "8QB": unknown unit "QB"`},
		{"validate missing file", []string{"validate", filepath.Join(tmp, "none.yaml")}, "none.yaml"},
		// An empty input validated as a scenario of defaults (issue: a
		// pipe read twice came back empty and said ok).
		{"sweep from stdin", []string{"sweep", "-"}, `dcsim: sweep: FILE "-" (standard input) is not supported`},
		{"validate empty stdin", []string{"validate", "-"}, "dcsim: <stdin>: empty input: no scenario or sweep was piped in"},
		{"validate empty file", []string{"validate", write("empty.yaml", "# nothing here\n\n")}, "empty.yaml: empty: no scenario or sweep to validate"},
		{"run empty stdin", []string{"run", "-"}, "dcsim: <stdin>: empty input"},
		{"show empty stdin", []string{"show", "-"}, "dcsim: <stdin>: empty input"},
		// cobra prints an unknown command's suggestions over four lines
		// and the root's error exited 1.
		{"unknown command", []string{"rnu"}, `dcsim: unknown command "rnu"; did you mean run? (see "dcsim --help")`},
		{"unknown command, no suggestion", []string{"frob", "x"}, `dcsim: unknown command "frob" (see "dcsim --help")`},
		{"unknown root flag", []string{"--bogus"}, "dcsim: unknown flag: --bogus"},
		// Names become directory names: each must be one safe component.
		{"name escapes", []string{"run", "--set", "name=../../escaped"}, `name: "../../escaped" has '/'`},
		{"absolute name", []string{"run", "--set", "name=/tmp/abs"}, `name: "/tmp/abs" has '/'`},
		{"name with newline", []string{"run", "--set", `name="a\nb"`}, `name: "a\nb" has '\n'`},
		{"dot-dot name", []string{"run", "--set", "name=.."}, `name: ".." starts with "."`},
		{"name from file", []string{"run", write("..yaml", "seed: 1\n")}, `name: "." starts with "."`},
		// Issue 27: an endless line was read whole (4 GB, then OOM); a
		// long value was echoed whole in the error.
		{"flow list /dev/zero", []string{"run", "--set", "workload.kind=flowlist", "--set", "workload.flowlist.file=/dev/zero"}, "/dev/zero:1: line longer than 1048576 bytes"},
		{"1 MB compat value", []string{"run", "--set", "compat=" + strings.Repeat("x", 1<<20)}, "…(1048576 bytes)"},
		{"100 KB unknown flag", []string{"run", "--" + strings.Repeat("x", 100_000)}, "…("},
		{"100 KB scenario path", []string{"run", strings.Repeat("x", 100_000)}, "…("},
		{"trace with an endless drain", []string{"run", "--set", "trace.interval=10us", "--set", "drain_limit=never"}, "trace.interval: 10us with drain_limit: never would sample for as long as the drain lasts"},
		{"DCQCN timer of 1ps", []string{"run", "--set", "cc.dcqcn.rp_timer=1ps"}, "rp_timer: must be at least 100ns"},
		// Issue 27, items 4-6: values of unbounded cost, or of no effect.
		{"flowlet tables", []string{"run", "--set", "switch.routing.kind=adaptive", "--set", "switch.routing.flowlet_slots=16777216"}, "switch.routing.flowlet_slots: must be a power of two in [1, 2^20]"},
		{"arn lifetime 1ps", []string{"run", "arn-afi", "--set", "switch.isolation={}", "--set", "switch.isolation.arn_entry_lifetime=1ps"}, "switch.isolation.arn_entry_lifetime: 1ps is below the minimum of 420480ps"},
		{"trace every 1ps", []string{"run", "--set", "duration=1us", "--set", "trace.interval=1ps", "--set", "trace.metrics=[qp_rate]"}, "trace.interval: 1ps would sample"},
		{"afi without adaptive routing", []string{"run", "--set", "switch.isolation.afi=true"}, "switch.isolation.afi: true has no effect without adaptive routing"},
		{"flowlet gap under ecmp", []string{"run", "--set", "switch.routing.kind=ecmp", "--set", "switch.routing.flowlet_gap=10us"}, "switch.routing.flowlet_gap: has no effect under kind: ecmp"},
		{"flowlet gap 1ps", []string{"run", "--set", "switch.routing.kind=adaptive", "--set", "switch.routing.flowlet_gap=1ps"}, "or a gap of at least 80ns"},
		// The output location is checked before simulating.
		{"out is a file", []string{"run", "--set", "duration=10us", "--out", write("afile", "")}, "--out: " + filepath.Join(tmp, "afile") + " exists and is not a directory"},
		{"out under a file", []string{"run", "--set", "duration=10us", "--out", filepath.Join(tmp, "afile", "sub")}, "--out: mkdir " + filepath.Join(tmp, "afile") + ": not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(tmp, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			args := append(append([]string(nil), tc.args...), "--out", out)
			if tc.args[0] != "run" || slices.Contains(tc.args, "--out") {
				args = tc.args
			}
			code, _, stderr := runCLI(t, args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if len(stderr) > 1000 {
				t.Errorf("stderr is %d bytes, want a short line: %.300q", len(stderr), stderr)
			}
			if lines := strings.Count(strings.TrimRight(stderr, "\n"), "\n"); lines != 0 {
				t.Errorf("stderr has %d lines, want one: %q", lines+1, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output directory %s exists after bad input", out)
			}
		})
	}
}

// A run into an earlier run's directory replaces that run's files: a
// training run's iterations.parquet and collectives.parquet and a traced
// run's samples.parquet do not survive a cloud run written over them
// (issue #15, item 7), and files that are not run files stay.
func TestRunReplacesEarlierRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runCLI(t, "run", "allreduce-128", "--quiet", "--out", dir,
		"--set", "workload.collective.bytes=64KiB", "--set", "trace.interval=10us"); code != 0 {
		t.Fatalf("training run: exit %d: %s", code, stderr)
	}
	for _, f := range []string{analysis.IterationsFile, analysis.CollectivesFile, analysis.SamplesFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("training run wrote no %s: %v", f, err)
		}
	}
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "run", "testdata/small.yaml", "--quiet", "--out", dir); code != 0 {
		t.Fatalf("cloud run: exit %d: %s", code, stderr)
	}
	got := filesIn(t, dir)
	// .dcsim.lock is the lock a run holds on its directory (issue 27).
	want := []string{scenario.LockFile, analysis.FlowsFile, "notes.txt", analysis.RunFile, "scenario.yaml"}
	if !slices.Equal(got, want) {
		t.Errorf("directory after the second run: got %v, want %v", got, want)
	}
	rr, _, err := analysis.ReadRun(filepath.Join(dir, analysis.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if rr.Workload != "cloud:alistorage" {
		t.Errorf("run.parquet workload: got %q, want the second run's cloud:alistorage", rr.Workload)
	}
}

// dcsim version prints the stamped version when there is one.
func TestVersionStamped(t *testing.T) {
	defer func(v string) { stampedVersion = v }(stampedVersion)
	stampedVersion = "v1.2.3"
	code, stdout, _ := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "dcsim v1.2.3 (go") {
		t.Errorf("got exit %d, %q; want 0 and dcsim v1.2.3 (go...)", code, stdout)
	}
}

// A class-tagging scheduler run outside its study set-up gets a one-line
// note on stderr, none with --quiet; the progress text keeps one style
// (issue #26).
func TestStudyNoteAndProgressText(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "run", "testdata/small.yaml", "--set", "nic.scheduler=storm", "--set", "duration=50us", "--out", filepath.Join(dir, "a"))
	want := "dcsim: note: nic.scheduler=storm was studied with switch.discipline=strict and nic.qp_mapping=per-pair (the built-ins storm-cloud and storm-80); this run has switch.discipline=rr and nic.qp_mapping=per-flow\n"
	if code != 0 || stderr != want {
		t.Errorf("exit %d, stderr %q, want %q", code, stderr, want)
	}
	if code, _, stderr := runCLI(t, "run", "testdata/small.yaml", "--set", "nic.scheduler=storm", "--set", "duration=50us", "--out", filepath.Join(dir, "b"), "-q"); code != 0 || stderr != "" {
		t.Errorf("--quiet: exit %d, stderr %q", code, stderr)
	}
	p := wiring.Progress{SimTime: 6200 * engine.Microsecond, Duration: 5 * engine.Millisecond, FlowsPosted: 3767, FlowsDone: 3730,
		BytesPosted: 90_000_000, BytesDone: 77_700_000, Draining: true}
	if got, want := progressText(p, 1.23e6), "draining: 37 flows (12.3MB) unfinished of 3767, at 6.20 ms, 1.2 M events/s"; got != want {
		t.Errorf("draining: got %q, want %q", got, want)
	}
	p.SimTime, p.Draining = 1300*engine.Microsecond, false
	if got, want := progressText(p, 2e6), "arrivals: 1.30 of 5.00 ms, 37 flows (12.3MB) unfinished of 3767, 2.0 M events/s"; got != want {
		t.Errorf("arrivals: got %q, want %q", got, want)
	}
}

// A bar's description is cut to the terminal's width, so that the line
// never wraps (a carriage return cannot clear a wrapped line).
func TestProgressFitsTerminal(t *testing.T) {
	defer func(c int) { progressCols = c }(progressCols)
	long := "draining: 80 flows (929.5MB) unfinished of 936, at 2.50 ms, 8.1 M events/s"
	for _, tc := range []struct {
		cols int
		want string
	}{
		{0, long},
		{200, long},
		{80, long[:80-barRest-2] + "…"},
	} {
		progressCols = tc.cols
		got := fitLine(long)
		if got != tc.want {
			t.Errorf("%d columns: got %q, want %q", tc.cols, got, tc.want)
		}
		if tc.cols > 0 && len([]rune(got))+barRest > tc.cols {
			t.Errorf("%d columns: %d + %d columns do not fit", tc.cols, len([]rune(got)), barRest)
		}
	}
}

// --threads runs the parallel engine: byte-identical files (run id
// pinned) for 1 and 2 threads; a bad count or a scenario that cannot run
// there is bad input.
func TestRunThreads(t *testing.T) {
	base := t.TempDir()
	read := func(threads string, more ...string) []byte {
		dir := filepath.Join(base, threads+strings.Join(more, ""))
		args := append([]string{"run", "testdata/small.yaml", "--quiet", "--run-id", "job-1", "--out", dir,
			"--set", "topology.kind=fat-tree", "--set", "topology.k=4", "--set", "duration=100us", "--threads", threads}, more...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("--threads %s %v: exit %d: %s", threads, more, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, analysis.FlowsFile))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if one, two := read("1"), read("2"); len(one) == 0 || !bytes.Equal(one, two) {
		t.Error("flows.parquet differs between --threads 1 and 2")
	}
	if one, two := read("1", "--units", "switch"), read("2", "--units", "switch"); len(one) == 0 || !bytes.Equal(one, two) {
		t.Error("flows.parquet differs between --threads 1 and 2 with --units switch")
	}
	// The engine and the cut are in the run's scenario.yaml: running it
	// again, without flags, gives the same rows; the sequential run has
	// another config hash, so another default directory.
	dir := filepath.Join(base, "2--unitsswitch")
	y, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if err != nil || !strings.Contains(string(y), "parallel:\n  units: switch\n") {
		t.Fatalf("scenario.yaml of a --threads run: %v, want a parallel section:\n%s", err, y)
	}
	again := filepath.Join(base, "again")
	if code, _, stderr := runCLI(t, "run", filepath.Join(dir, "scenario.yaml"), "--quiet", "--run-id", "job-1", "--out", again); code != 0 {
		t.Fatalf("re-running a --threads run's scenario.yaml: exit %d: %s", code, stderr)
	}
	if a, b := readFile(t, filepath.Join(dir, analysis.FlowsFile)), readFile(t, filepath.Join(again, analysis.FlowsFile)); !bytes.Equal(a, b) {
		t.Error("a --threads run's scenario.yaml did not reproduce its flows.parquet")
	}
	seq := filepath.Join(base, "seq")
	if code, _, stderr := runCLI(t, "run", "testdata/small.yaml", "--quiet", "--run-id", "job-1", "--out", seq,
		"--set", "topology.kind=fat-tree", "--set", "topology.k=4", "--set", "duration=100us"); code != 0 {
		t.Fatalf("sequential run: exit %d: %s", code, stderr)
	}
	if hashOf(t, seq) == hashOf(t, dir) {
		t.Error("a --threads run has the sequential run's config hash")
	}
	// Its headline names the engine and the cut.
	if code, stdout, stderr := runCLI(t, "run", filepath.Join(dir, "scenario.yaml"), "--threads", "2", "--out", filepath.Join(base, "loud")); code != 0 ||
		!strings.Contains(stdout, "; parallel engine, units by switch: 20 units on 2 threads\n") {
		t.Errorf("headline of a --threads run: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, bad := range [][]string{
		{"--threads", "0"}, {"--threads", "two"}, {"--threads", "100000"},
		{"--threads", "1", "--set", "compat=hpcc-ns3"},
		{"--threads", "2", "--units", "rack"}, {"--threads", "2", "--units", ""}, {"--units", "switch"},
	} {
		args := append([]string{"run", "testdata/small.yaml", "--out", filepath.Join(base, "bad")}, bad...)
		if code, _, stderr := runCLI(t, args...); code != 2 || !strings.HasPrefix(stderr, "dcsim: ") || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "threads") && !strings.Contains(stderr, "units") {
			t.Errorf("%v: exit %d, stderr %q, want 2 and one line", bad, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "bad")); err == nil {
		t.Error("a refused run made its --out directory")
	}
}

// readFile is os.ReadFile that fails the test.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hashOf is the config_hash of the run in dir.
func hashOf(t *testing.T, dir string) string {
	t.Helper()
	r, _, err := analysis.ReadRun(filepath.Join(dir, analysis.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	return r.ConfigHash
}
