package sweep

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/plot/vg"

	"github.com/dcsim/dcsim/analysis"
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
	// 12 in wide at 110 dpi; three rows of 4.5 in with the iteration panel.
	if w, h := plotSize(t, groups); w != 1320 || h != 1485 {
		t.Errorf("got a %dx%d PNG, want 1320x1485", w, h)
	}
}

// plotSize draws groups as PNG and returns its size in pixels.
func plotSize(t *testing.T, groups []*Group) (w, h int) {
	t.Helper()
	b := plotImage(t, groups).Bounds()
	return b.Dx(), b.Dy()
}

// plotImage draws groups as PNG and decodes it.
func plotImage(t *testing.T, groups []*Group) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := Plot(&buf, "png", groups); err != nil {
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
	checkPanelsInsideTiles(t, groups)
	var svg bytes.Buffer
	if err := Plot(&svg, "svg", groups); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(bytes.TrimSpace(svg.Bytes()), []byte("<?xml")) || !bytes.Contains(svg.Bytes(), []byte("CDF of slowdown")) {
		t.Errorf("SVG output does not look like the figure (%d bytes)", svg.Len())
	}
	if err := Plot(&svg, "gif", groups); err == nil {
		t.Error("gif accepted as a plot format")
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

// A report of training runs only draws the iteration panel, not four
// empty slowdown panels; a cloud report draws its four slowdown panels and
// a legend panel, so that no legend sits on the data (issue #15, first
// use). Each row of panels is 4.5 in at 110 dpi, each column 6 in; a
// lone panel takes one column, not half of an empty two-column figure.
func TestPlotPanels(t *testing.T) {
	train := &Results{Runs: []*RunResult{{Run: analysis.RunRecord{Scheduler: "fair", CC: "dcqcn", Workload: "collective:allreduce"},
		Iterations: []analysis.IterationRecord{{DurationNs: 4e6}}}}}
	_, cloud := collected(t)
	for _, tc := range []struct {
		name          string
		res           *Results
		width, height int
	}{{"training only", train, 660, 495}, {"cloud", cloud, 1320, 1485}} {
		groups, err := tc.res.Group(nil)
		if err != nil {
			t.Fatal(err)
		}
		if w, h := plotSize(t, groups); w != tc.width || h != tc.height {
			t.Errorf("%s: got a %dx%d PNG, want %dx%d", tc.name, w, h, tc.width, tc.height)
		}
	}
}

// checkPanelsInsideTiles checks that every panel of the groups' figure
// stays inside its tile: the margin above each row of panels is blank
// and a title starts just below it. plot.Align, used before,
// pushed the first row's titles to the image's top edge (cut off) and
// others away from their panels.
func checkPanelsInsideTiles(t *testing.T, groups []*Group) {
	t.Helper()
	img := plotImage(t, groups)
	b := img.Bounds()
	ink := func(y0, y1 float64) bool { // any non-white pixel in rows [y0, y1)
		for y := int(math.Ceil(y0)); y < int(y1); y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
					return true
				}
			}
		}
		return false
	}
	px := func(l vg.Length) float64 { return l.Points() / 72 * plotDPI }
	const rows = 3 // 2 slowdown-by-size panels, the CDF, the dots, the legend
	pad, bottom := px(plotPad), px(vg.Inch/8)
	tile := (float64(b.Dy()) - pad - bottom - (rows-1)*pad) / rows
	for r := range rows {
		top := pad + float64(r)*(tile+pad)
		if ink(top-pad+1, top-1) {
			t.Errorf("row %d: ink in the margin above it, rows %.0f-%.0f: a panel is drawn outside its tile", r, top-pad, top)
		}
		if !ink(top, top+pad) {
			t.Errorf("row %d: no title in the %.0f pixel rows below its top, %.0f", r, pad, top)
		}
	}
}
