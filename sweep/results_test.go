package sweep

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/wiring"
)

const schedSeeds = `name: ss
base: base.yaml
grid:
  nic.scheduler: [fair, fair-message]
zip:
  seed: [1, 2]
`

// collected runs schedSeeds once per test binary.
func collected(t *testing.T) (string, *Results) {
	t.Helper()
	_, pts := mustPoints(t, writeSweep(t, schedSeeds))
	out := t.TempDir()
	runSweep(t, pts, out, 2, false)
	res, err := Collect(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 4 {
		t.Fatalf("collected %d runs, want 4", len(res.Runs))
	}
	return out, res
}

// directMean is the mean clamped slowdown of the finished in-window
// flows of the runs with the given scheduler, computed straight from the
// files.
func directMean(t *testing.T, out, scheduler string) (mean float64, n int) {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(out, "*", analysis.RunFile))
	var sum float64
	for _, rf := range runs {
		r, _, err := analysis.ReadRun(rf)
		if err != nil {
			t.Fatal(err)
		}
		if r.Scheduler != scheduler {
			continue
		}
		flows, err := analysis.ReadFlows(filepath.Join(filepath.Dir(rf), analysis.FlowsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range flows {
			if f.InWindow && f.Slowdown != nil {
				sum += math.Max(*f.Slowdown, 1)
				n++
			}
		}
	}
	return sum / float64(n), n
}

func TestGroupMeansEqualDirect(t *testing.T) {
	out, res := collected(t)
	groups, err := res.Group(nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"scheduler", "cc"}, groups[0].Keys); diff != "" {
		t.Errorf("default grouping (-want +got):\n%s", diff)
	}
	if len(groups) != 2 {
		t.Fatalf("got %d groups, want 2 (one per scheduler, seeds pooled)", len(groups))
	}
	for i, sched := range []string{"fair", "fair-message"} {
		g := groups[i]
		if g.Values[0] != sched || len(g.Runs) != 2 {
			t.Fatalf("group %d: %s with %d runs, want %s with 2", i, g.Label(), len(g.Runs), sched)
		}
		want, n := directMean(t, out, sched)
		got := g.Analysis.Overall
		// The sums differ only in order (Analyze sorts first), so they
		// agree to a few ulps of the mean.
		if got.Count != n || math.Abs(got.Mean-want) > 1e-12*want {
			t.Errorf("%s: got mean %.15g over %d flows, want %.15g over %d", sched, got.Mean, got.Count, want, n)
		}
	}
}

func TestGroupKeys(t *testing.T) {
	_, res := collected(t)
	cases := []struct {
		keys   []string
		groups int
		label  string
	}{
		{[]string{}, 1, "all"},
		{[]string{"seed"}, 2, "seed=1"},
		{[]string{"nic.scheduler", "seed"}, 4, "nic.scheduler=fair seed=1"},
		{[]string{"load", "workload"}, 1, "load=0.5 workload=cloud:alistorage"},
	}
	for _, c := range cases {
		groups, err := res.Group(c.keys)
		if err != nil {
			t.Fatal(err)
		}
		if len(groups) != c.groups || groups[0].Label() != c.label {
			t.Errorf("group by %v: got %d groups, first %q, want %d, %q", c.keys, len(groups), groups[0].Label(), c.groups, c.label)
		}
	}
	if _, err := res.Group([]string{"colour"}); err == nil || !strings.Contains(err.Error(), `group by "colour": no such column`) {
		t.Errorf("unknown column: got %v", err)
	}
	if _, err := res.Group([]string{"counters"}); err == nil {
		t.Error("counters (a map) accepted as a grouping column")
	}
}

// Numbers sort as numbers.
func TestGroupOrder(t *testing.T) {
	if compareValues("10", "9") <= 0 || compareValues("0.5", "0.25") <= 0 || compareValues("b", "a") <= 0 || compareValues("-", "1") >= 0 {
		t.Error("compareValues does not order numbers numerically and text by bytes")
	}
}

// A training run's iterations.parquet is reported and plotted.
func TestIterationsReportedAndPlotted(t *testing.T) {
	out, _ := collected(t)
	runs, _ := filepath.Glob(filepath.Join(out, "*", analysis.RunFile))
	dir := filepath.Dir(runs[0])
	its := []analysis.IterationRecord{
		{RunID: "x", Iteration: 0, StartNs: 0, EndNs: 2_000_000, DurationNs: 2_000_000, ComputeNs: 1_500_000, ExposedCommNs: 500_000},
		{RunID: "x", Iteration: 1, StartNs: 2_000_000, EndNs: 5_000_000, DurationNs: 3_000_000, ComputeNs: 1_500_000, ExposedCommNs: 1_500_000},
	}
	if err := analysis.WriteIterations(filepath.Join(dir, analysis.IterationsFile), its); err != nil {
		t.Fatal(err)
	}
	res, err := Collect(out)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := res.Group([]string{"run_id"})
	if err != nil {
		t.Fatal(err)
	}
	var it IterationSummary
	for _, g := range groups {
		if g.Iterations.Count > 0 {
			it = g.Iterations
		}
	}
	if it.Count != 2 || it.Mean != 2.5e6 || it.P50 != 3e6 || it.P99 != 3e6 || it.MeanComm != 1e6 {
		t.Errorf("got %+v, want 2 iterations, mean 2.5ms, p50 = p99 = 3ms (sorted[int(n*p)]), comm 1ms", it)
	}
	var text bytes.Buffer
	if err := FormatGroups(&text, groups); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "iteration time of training runs") || !strings.Contains(text.String(), "2.50ms") {
		t.Errorf("report lacks the iteration table:\n%s", text.String())
	}
	// Flows and iterations: slowdown by size unless asked for iterations.
	for kind, want := range map[string]string{"": "slowdown-by-size", "iterations": "iterations"} {
		f, err := NewFigure(groups, PlotOptions{Kind: kind})
		if err != nil || f.kind != want {
			t.Errorf("kind %q: got %v, %v, want %s", kind, f, err, want)
		}
	}
	plotImage(t, groups, PlotOptions{Kind: "iterations"})
}

// plotImage draws groups as PNG and decodes it.
func plotImage(t *testing.T, groups []*Group, opt PlotOptions) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := Plot(&buf, "png", groups, opt); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestFormatAndCSV(t *testing.T) {
	out, res := collected(t)
	groups, err := res.Group([]string{"scheduler"})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := FormatGroups(&text, groups); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4 runs in 2 groups, grouped by scheduler", "fair-message", "by flow size (5% buckets)", "== scheduler=fair (2 runs)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, groups); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0][0] != "scheduler" || recs[0][5] != "mean_slowdown" {
		t.Fatalf("got CSV %v, want a header and 2 rows", recs)
	}
	for _, rec := range recs[1:] {
		got, err := strconv.ParseFloat(rec[5], 64)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := directMean(t, out, rec[0])
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s: CSV mean %v, direct %v", rec[0], got, want)
		}
	}
	// The transport totals are the sums of the group's run.parquet columns.
	if h := recs[0]; h[len(h)-3] != "nacks" || h[len(h)-2] != "rto_timeouts" || h[len(h)-1] != "pfc_pause_frames" {
		t.Fatalf("CSV header ends %v, want nacks, rto_timeouts, pfc_pause_frames", h[len(h)-3:])
	}
	for i, g := range groups {
		var nacks, rtos, pauses int64
		for _, r := range g.Runs {
			nacks, rtos, pauses = nacks+r.Run.NACKs, rtos+r.Run.RTOTimeouts, pauses+r.Run.PFCPauseFrames
		}
		rec := recs[i+1]
		if want := fmt.Sprintf("%d %d %d", nacks, rtos, pauses); strings.Join(rec[len(rec)-3:], " ") != want {
			t.Errorf("%s: CSV totals %v, want %s", g.Label(), rec[len(rec)-3:], want)
		}
	}
}

// Failed points are listed, incomplete directories ignored, a directory
// given twice read once.
func TestCollectFailedAndDuplicates(t *testing.T) {
	out, _ := collected(t)
	failed := filepath.Join(out, "deadbeef")
	if err := os.MkdirAll(failed, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(failed, ErrorFile), []byte("boom\n"), 0o644)
	os.MkdirAll(filepath.Join(out, "incomplete"), 0o755)
	runs, _ := filepath.Glob(filepath.Join(out, "*", analysis.RunFile))
	res, err := Collect(out, filepath.Dir(runs[0]))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 4 || len(res.Failed) != 1 || res.Failed[0] != failed {
		t.Errorf("got %d runs, failed %v, want 4 runs and %s", len(res.Runs), res.Failed, failed)
	}
	if _, err := Collect(filepath.Join(out, "nope")); err == nil {
		t.Error("a missing directory gave no error")
	}
	// The same run in two directories (a re-run into a fresh --out) is
	// counted once, from its first directory, and listed as a repeat.
	again := filepath.Join(out, "zz-again")
	os.MkdirAll(again, 0o755)
	for _, name := range []string{analysis.RunFile, analysis.FlowsFile} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(runs[0]), name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(again, name), b, 0o644)
	}
	res, err = Collect(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Repeat{{Dir: again, Of: filepath.Dir(runs[0])}}; len(res.Runs) != 4 || !slices.Equal(res.Repeats, want) {
		t.Errorf("got %d runs, repeats %v, want 4 runs and %v", len(res.Runs), res.Repeats, want)
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 runs"}, {1, "1 run"}, {2, "2 runs"}} {
		if got := Count(tc.n, "run"); got != tc.want {
			t.Errorf("Count(%d): got %q, want %q", tc.n, got, tc.want)
		}
	}
}

// By default a report pools only runs that differ in seed alone: a
// workload or a hidden --set (a different resolved scenario) splits them,
// and iteration times of different workloads are never averaged (issue
// #15, first use).
func TestDefaultGroupBySeparatesConfigs(t *testing.T) {
	run := func(wl string, seed int64, config string, its int) *RunResult {
		r := &RunResult{Run: analysis.RunRecord{Scheduler: "fair", CC: "dcqcn", Workload: wl, Seed: seed, Scenario: "default"}, Config: config}
		for i := range its {
			r.Iterations = append(r.Iterations, analysis.IterationRecord{Iteration: int64(i), DurationNs: 1000})
		}
		return r
	}
	res := &Results{Runs: []*RunResult{
		run("cloud:websearch", 1, "aaa", 0), run("cloud:websearch", 2, "aaa", 0), // seeds: pooled
		run("cloud:websearch", 1, "bbb", 0), // a fat-tree via --set: same columns, other scenario
		run("simai:gpt3-13b", 1, "ccc", 2), run("simai:llama-7b", 1, "ddd", 3),
	}}
	keys := res.DefaultGroupBy()
	if want := []string{"scheduler", "cc", "workload", "config"}; !slices.Equal(keys, want) {
		t.Fatalf("default keys: got %v, want %v", keys, want)
	}
	groups, err := res.Group(nil)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, g := range groups {
		sizes = append(sizes, len(g.Runs))
	}
	if want := []int{2, 1, 1, 1}; !slices.Equal(sizes, want) {
		t.Errorf("group sizes: got %v, want %v", sizes, want)
	}
	one, err := res.Group([]string{"scheduler"})
	if err != nil {
		t.Fatal(err)
	}
	if it := one[0].Iterations; it.Workloads != 2 || it.Count != 0 {
		t.Errorf("GPT-3 and LLaMA in one group: got %+v, want no pooled iterations and Workloads 2", it)
	}
	var text bytes.Buffer
	if err := FormatGroups(&text, one); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "(not averaged: 2 training workloads in one group; group by workload)") {
		t.Errorf("report does not say why iterations are not averaged:\n%s", text.String())
	}
}

// synthetic is a run with the given columns and flows of 1 KB to 1 MB
// whose slowdown grows with scale.
func synthetic(workload string, load float64, sched string, scale float64) *RunResult {
	r := &RunResult{Run: analysis.RunRecord{Scenario: "s", Scheduler: sched, CC: "dcqcn", Workload: workload, Load: &load}, Config: "-"}
	for i := range 200 {
		r.Flows = append(r.Flows, analysis.FlowStat{SizeBytes: int64(1000 + 5000*i), Slowdown: 1 + scale*float64(i%20)})
	}
	return r
}

// Every field of a run's scenario.yaml is a column: plain runs, with no
// swept parameters, are told apart by the field they differ in, not by an
// opaque config hash.
func TestScenarioFieldColumns(t *testing.T) {
	const base = "name: a\nseed: 3\ntopology:\n  kind: spine-leaf\n  hosts: 128\nswitch:\n  wrr_weights: [1, 2]\n  ecn:\n    kmin: 100KB\nworkload:\n  kind: cloud\n  load: 0.5\nextra_workloads:\n  - kind: incast\n"
	fields, order := scenarioFields([]byte(base))
	for k, want := range map[string]string{"topology.kind": "spine-leaf", "switch.ecn.kmin": "100KB", "switch.wrr_weights": "[1, 2]",
		"workload.load": "0.5", "extra_workloads[0].kind": "incast"} {
		if fields[k] != want {
			t.Errorf("%s = %q, want %q", k, fields[k], want)
		}
	}
	if _, ok := fields["seed"]; ok || order[0] != "topology.kind" {
		t.Errorf("seed and name are no fields; order %v", order)
	}
	res := &Results{}
	for _, kind := range []string{"spine-leaf", "fat-tree", "spine-leaf"} {
		r := synthetic("w", 0.5, "fair", 1)
		r.fields, r.fieldOrder = scenarioFields([]byte(strings.Replace(base, "spine-leaf", kind, 1)))
		r.Config = fmt.Sprint("hash-", kind)
		res.Runs = append(res.Runs, r)
	}
	if got := res.DefaultGroupBy(); !slices.Equal(got, []string{"scheduler", "cc", "topology.kind"}) {
		t.Errorf("default grouping %v, want the differing field named", got)
	}
	groups, err := res.Group([]string{"topology.kind"})
	if err != nil || len(groups) != 2 || groups[0].Values[0] != "fat-tree" || len(groups[1].Runs) != 2 {
		t.Errorf("grouped by topology.kind: %v, %v", groups, err)
	}
	if _, err := res.Group([]string{"topology.colour"}); err == nil || !strings.Contains(err.Error(), "and the scenario's fields") {
		t.Errorf("unknown field: %v", err)
	}
}

// Grouped by workload, load and scheduler, the figure has one panel per
// workload x load (loads across, workloads down), the schedulers as
// series in one palette order, and what all runs share in its title; the
// limits and bad options are errors (issue #26: 28 curves in one panel).
func TestFigureLayout(t *testing.T) {
	res := &Results{}
	for _, wl := range []string{"cloud:websearch", "cloud:alistorage"} {
		for _, load := range []float64{0.5, 0.8} {
			for k, sched := range []string{"storm", "fair", "srpt"} {
				res.Runs = append(res.Runs, synthetic(wl, load, sched, float64(k+1)*load))
			}
		}
	}
	groups, err := res.Group([]string{"workload", "load", "scheduler"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFigure(groups, PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows, cols := f.Grid()
	col, series := f.Series()
	if f.Panels() != 4 || rows != 2 || cols != 2 || col != "scheduler" || !slices.Equal(series, []string{"fair", "srpt", "storm"}) {
		t.Errorf("got %d panels in %dx%d, series %s %v; want 4 in 2x2, scheduler [fair srpt storm]", f.Panels(), rows, cols, col, series)
	}
	if want := "workload=cloud:alistorage, load=0.8"; f.panels[1].title != want || f.title != "s, dcqcn" {
		t.Errorf("got panel 1 %q, title %q; want %q and \"s, dcqcn\"", f.panels[1].title, f.title, want)
	}
	for _, p := range f.panels {
		for i, g := range p.groups {
			if series[p.series[i]] != g.Values[2] {
				t.Errorf("%s: style of %s", g.Label(), series[p.series[i]])
			}
		}
	}
	// --series load: the loads are the lines, workload x scheduler the panels.
	if f, err := NewFigure(groups, PlotOptions{Series: "load", Kind: "ccdf"}); err != nil || f.Panels() != 6 {
		t.Errorf("series load: got %v panels, %v; want 6", f, err)
	}
	for _, tc := range []struct {
		opt  PlotOptions
		want string
	}{
		{PlotOptions{Series: "colour"}, `plot series "colour": not a grouping column (grouped by workload, load, scheduler)`},
		{PlotOptions{Kind: "pie"}, `plot kind "pie": want one of slowdown-by-size, cdf, ccdf, summary, iterations`},
		{PlotOptions{Stat: "p42"}, `plot statistic "p42": want p50, p95, p99 or mean`},
		{PlotOptions{Kind: "iterations"}, "plot kind iterations: no run has training iterations"},
	} {
		if _, err := NewFigure(groups, tc.opt); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: got %v, want %s", tc.opt, err, tc.want)
		}
	}
	many := &Results{}
	for i := range MaxSeries + 1 {
		many.Runs = append(many.Runs, synthetic("w", 0.5, fmt.Sprintf("s%d", i), 1))
	}
	g, _ := many.Group([]string{"scheduler"})
	if _, err := NewFigure(g, PlotOptions{}); err == nil || !strings.Contains(err.Error(), "9 values of scheduler in a panel, at most 8") {
		t.Errorf("9 schedulers: got %v", err)
	}
	if _, err := NewFigure(g, PlotOptions{Series: "scheduler"}); err == nil {
		t.Error("9 series accepted")
	}
	many = &Results{}
	for i := range MaxPanels + 1 {
		many.Runs = append(many.Runs, synthetic("w", float64(i+1)/100, "fair", 1))
	}
	g, _ = many.Group([]string{"load", "scheduler"})
	if _, err := NewFigure(g, PlotOptions{Series: "scheduler", Kind: "summary"}); err == nil || !strings.Contains(err.Error(), "panels (one per load), at most 24") {
		t.Errorf("25 loads: got %v", err)
	}
}

// Every panel draws each series in the series' palette colour, the same
// colour in each panel; colours of absent series appear nowhere. The
// figure is 3.5 in wide per panel at 300 dpi.
func TestFigureColours(t *testing.T) {
	res := &Results{}
	for _, load := range []float64{0.5, 0.8} {
		for k, sched := range []string{"fair", "storm"} {
			res.Runs = append(res.Runs, synthetic("w", load, sched, float64(k+1)))
		}
	}
	groups, err := res.Group([]string{"load", "scheduler"})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"slowdown-by-size", "ccdf"} {
		img := plotImage(t, groups, PlotOptions{Kind: kind})
		b := img.Bounds()
		if b.Dx() != 2*350*plotDPI/100 {
			t.Errorf("%s: %d px wide, want two 3.5 in panels at %d dpi", kind, b.Dx(), plotDPI)
		}
		top := int((titleHeight + 2*legendRow).Points() / 72 * plotDPI) // below the title and the legend
		count := func(x0, x1 int, c color.Color) int {
			r0, g0, b0, _ := c.RGBA()
			n := 0
			for y := top; y < b.Max.Y; y++ {
				for x := x0; x < x1; x++ {
					if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 == r0>>8 && g>>8 == g0>>8 && bl>>8 == b0>>8 {
						n++
					}
				}
			}
			return n
		}
		// fair and storm keep their catalog slots: 0 (blue) and 4 (orange).
		for half, x := range []int{0, b.Dx() / 2} {
			for i := range 6 {
				n := count(x, x+b.Dx()/2, okabeIto[i])
				if (i == 0 || i == 4) != (n > 50) {
					t.Errorf("%s: panel %d has %d pixels of palette colour %d", kind, half, n, i)
				}
			}
		}
	}
}

// A scheduler has one style in every figure, whichever others it is drawn
// with; other columns take the styles in legend order.
func TestSeriesSlots(t *testing.T) {
	names := []string{}
	for _, p := range wiring.Catalog().Schedulers {
		names = append(names, p.Name)
	}
	slices.SortFunc(names, compareValues)
	storm := slices.Index(names, "storm")
	for _, vals := range [][]string{{"storm"}, {"fair", "storm"}, {"pias", "storm", "srpt"}} {
		v := slices.Clone(vals)
		slots := seriesSlots("scheduler", v)
		i := slices.Index(v, "storm")
		if slots[i] != storm {
			t.Errorf("%v: storm in slot %d, want %d", vals, slots[i], storm)
		}
	}
	if got := seriesSlots("scheduler", []string{"fair", "my-test-only"}); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("unknown scheduler: slots %v, want legend order", got)
	}
	if got := seriesSlots("load", []string{"0.8", "0.5"}); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("load: slots %v", got)
	}
	if got := seriesSlots("", nil); !slices.Equal(got, []int{0}) {
		t.Errorf("no series: slots %v", got)
	}
}

// The format follows the file's extension; each writer makes its format.
func TestPlotFormats(t *testing.T) {
	_, res := collected(t)
	groups, err := res.Group(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, magic string }{{"x.png", "\x89PNG"}, {"x.SVG", "<?xml"}, {"x.pdf", "%PDF"}} {
		format, err := PlotFormat(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Plot(&buf, format, groups, PlotOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(buf.Bytes(), []byte(tc.magic)) {
			t.Errorf("%s: starts %q, want %q", tc.path, buf.Bytes()[:min(8, buf.Len())], tc.magic)
		}
		if format == "svg" && !bytes.Contains(buf.Bytes(), []byte("scheduler:")) {
			t.Error("SVG lacks the legend's column name")
		}
		// The SVG carries its fonts (a viewer without them drew others).
		if format == "svg" && !bytes.Contains(buf.Bytes(), []byte("@font-face")) {
			t.Error("SVG does not embed its fonts")
		}
	}
	for _, bad := range []string{"x.gif", "x", "dir/"} {
		if _, err := PlotFormat(bad); err == nil {
			t.Errorf("%s accepted as a plot file", bad)
		}
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (logTicks{format: func(v int64) string { return strconv.FormatInt(v, 10) }}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{1, niceCeil(4.5), "1 2 3 4 5"}, // issue #26: labelled 1 and 2 only, data to 4.5
		{1, 1000, "1 2 5 10 20 50 100 200 500 1000"},
		{1, 1e5, "1 10 100 1000 10000 100000"},
	} {
		if got := strings.Join(labels(tc.lo, tc.hi), " "); got != tc.want {
			t.Errorf("ticks %g-%g: got %s, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
	for v, want := range map[float64]float64{4.5: 5, 1: 1, 11: 20, 230: 500, 0.03: 0.05} {
		if got := niceCeil(v); math.Abs(got-want) > 1e-12 {
			t.Errorf("niceCeil(%g) = %g, want %g", v, got, want)
		}
	}
}

// The per-size CSV has a row per group and bucket, equal to the text
// report's buckets; the ratio view divides each group's statistics by
// its baseline's in the same other columns (issue #26).
func TestSizeCSVAndRatios(t *testing.T) {
	res := &Results{}
	for _, load := range []float64{0.5, 0.8} {
		for k, sched := range []string{"fair", "storm"} {
			res.Runs = append(res.Runs, synthetic("w", load, sched, float64(2-k)*load))
		}
	}
	res.Runs = append(res.Runs, synthetic("w", 0.9, "storm", 1)) // no fair at 0.9
	groups, err := res.Group([]string{"load", "scheduler"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSizeCSV(&buf, groups); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"load", "scheduler", "size_percentile", "min_size_bytes", "max_size_bytes", "finished", "unfinished", "below_one", "mean_slowdown", "p50_slowdown", "p95_slowdown", "p99_slowdown"}
	if !slices.Equal(recs[0], want) || len(recs) != 1+5*20 {
		t.Fatalf("got header %v and %d rows, want %v and 100", recs[0], len(recs)-1, want)
	}
	b := groups[0].Analysis.Buckets[3]
	if got := recs[4]; got[0] != "0.5" || got[1] != "fair" || got[2] != strconv.Itoa(b.Percent) || got[4] != strconv.FormatInt(b.MaxSize, 10) ||
		got[11] != strconv.FormatFloat(b.P99, 'g', -1, 64) {
		t.Errorf("row 4: got %v, want bucket %+v", got, b)
	}

	base, err := ParseBaseline("scheduler=fair")
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := FormatRatios(&buf, groups, base); err != nil {
		t.Fatal(err)
	}
	ratio := groups[1].Analysis.Overall.Mean / groups[0].Analysis.Overall.Mean
	for _, want := range []string{"ratio to scheduler=fair in the same group", "0.5   storm      " + strconv.FormatFloat(ratio, 'f', 2, 64),
		"0.9   storm      (no scheduler=fair group with the same other values)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("ratios lack %q:\n%s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), "fair  ") {
		t.Errorf("ratios list the baseline itself:\n%s", buf.String())
	}
	for s, want := range map[string]string{
		"scheduler":      `baseline "scheduler": want column=value, e.g. scheduler=fair`,
		"cc=dcqcn":       "baseline cc=dcqcn: cc is not a grouping column (grouped by load, scheduler)",
		"scheduler=pias": "baseline scheduler=pias: no group has it (scheduler: fair, storm)",
	} {
		b, err := ParseBaseline(s)
		if err == nil {
			err = b.Check(groups)
		}
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", s, err, want)
		}
	}
}
