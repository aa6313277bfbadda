package sweep

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dcsim/dcsim/analysis"
)

// FormatGroups prints the groups as text tables: one line per group with
// its slowdown statistics, then iteration times when any group has them,
// then each group's table by flow size (analysis.FormatSummary).
func FormatGroups(w io.Writer, groups []*Group) error {
	if len(groups) == 0 {
		return ErrNoRuns
	}
	keys := groups[0].Keys
	runs := 0
	for _, g := range groups {
		runs += len(g.Runs)
	}
	by := strings.Join(keys, ", ")
	if by == "" {
		by = "nothing"
	}
	fmt.Fprintf(w, "%s in %s, grouped by %s\n\n", Count(runs, "run"), Count(len(groups), "group"), by)
	fmt.Fprintln(w, "slowdown of in-window flows (fct / ideal fct, clamped at 1; below1: faster than ideal)")
	widths := make([]int, len(keys))
	for i, k := range keys {
		widths[i] = len(k)
		for _, g := range groups {
			widths[i] = max(widths[i], len(g.Values[i]))
		}
	}
	leftCols := func(vals []string) []string {
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = v + strings.Repeat(" ", widths[i]-len(v))
		}
		return out
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t") }
	row(append(leftCols(keys), "runs", "finished", "unfinished", "below1", "mean", "p50", "p95", "p99", "nacks", "rtos")...)
	for _, g := range groups {
		o := g.Analysis.Overall
		nacks, rtos, _ := g.transportTotals()
		row(append(leftCols(g.Values), strconv.Itoa(len(g.Runs)), strconv.Itoa(o.Count), strconv.Itoa(o.Unfinished),
			strconv.Itoa(o.BelowOne), fmtStat(o.Mean), fmtStat(o.P50), fmtStat(o.P95), fmtStat(o.P99),
			strconv.FormatInt(nacks, 10), strconv.FormatInt(rtos, 10))...)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	training := false
	for _, g := range groups {
		training = training || g.Iterations.Count > 0 || g.Iterations.Workloads > 0
	}
	if training {
		fmt.Fprintln(w, "\niteration time of training runs (mean, p50, p99 of duration; mean compute and exposed communication)")
		row(append(leftCols(keys), "runs", "iterations", "mean", "p50", "p99", "compute", "exposed_comm")...)
		for _, g := range groups {
			it := g.Iterations
			if it.Workloads > 0 {
				fmt.Fprintf(tw, "%s\t(not averaged: %d training workloads in one group; group by workload)\n",
					strings.Join(leftCols(g.Values), "\t"), it.Workloads)
				continue
			}
			if it.Count == 0 {
				continue
			}
			row(append(leftCols(g.Values), strconv.Itoa(len(g.Runs)), strconv.Itoa(it.Count),
				fmtNs(it.Mean), fmtNs(it.P50), fmtNs(it.P99), fmtNs(it.MeanCompute), fmtNs(it.MeanComm))...)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	for _, g := range groups {
		fmt.Fprintf(w, "\n== %s (%s)\n", g.Label(), Count(len(g.Runs), "run"))
		if err := analysis.FormatSummary(w, g.Analysis); err != nil {
			return err
		}
	}
	return nil
}

// WriteCSV prints one CSV line per group with the grouping columns and
// the statistics at full precision (Go's shortest round-trip float
// format): runs, finished, unfinished, below_one, mean/p50/p95/p99
// clamped slowdown, iterations and mean/p50/p99 iteration time in ns,
// then the group's runs' summed nacks, rto_timeouts and
// pfc_pause_frames. A statistic over nothing is "NaN".
func WriteCSV(w io.Writer, groups []*Group) error {
	if len(groups) == 0 {
		return ErrNoRuns
	}
	cw := csv.NewWriter(w)
	head := append(append([]string(nil), groups[0].Keys...), "runs", "finished", "unfinished", "below_one",
		"mean_slowdown", "p50_slowdown", "p95_slowdown", "p99_slowdown",
		"iterations", "mean_iteration_ns", "p50_iteration_ns", "p99_iteration_ns",
		"nacks", "rto_timeouts", "pfc_pause_frames")
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, g := range groups {
		o, it := g.Analysis.Overall, g.Iterations
		rec := append(append([]string(nil), g.Values...), strconv.Itoa(len(g.Runs)), strconv.Itoa(o.Count),
			strconv.Itoa(o.Unfinished), strconv.Itoa(o.BelowOne), f(o.Mean), f(o.P50), f(o.P95), f(o.P99),
			strconv.Itoa(it.Count), f(it.Mean), f(it.P50), f(it.P99))
		nacks, rtos, pauses := g.transportTotals()
		rec = append(rec, strconv.FormatInt(nacks, 10), strconv.FormatInt(rtos, 10), strconv.FormatInt(pauses, 10))
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// transportTotals sums the group's runs' go-back-N NACKs, retransmission
// timeouts and PFC pause frames (run.parquet's nacks, rto_timeouts and
// pfc_pause_frames): what reordering and congestion cost.
func (g *Group) transportTotals() (nacks, rtos, pauses int64) {
	for _, r := range g.Runs {
		nacks += r.Run.NACKs
		rtos += r.Run.RTOTimeouts
		pauses += r.Run.PFCPauseFrames
	}
	return nacks, rtos, pauses
}

func fmtStat(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// fmtNs prints a time in ns for people, three significant digits in the
// largest unit that keeps it at least 1: "812ns", "12.3us", "1.05ms".
func fmtNs(ns float64) string {
	if math.IsNaN(ns) {
		return "-"
	}
	units := []struct {
		name  string
		scale float64
	}{{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}}
	for _, u := range units {
		if math.Abs(ns) >= u.scale {
			return threeDigits(ns/u.scale) + u.name
		}
	}
	return threeDigits(ns) + "ns"
}

func threeDigits(v float64) string {
	digits := 0
	switch a := math.Abs(v); {
	case a < 10:
		digits = 2
	case a < 100:
		digits = 1
	}
	return strconv.FormatFloat(v, 'f', digits, 64)
}

// Count is n and the noun, plural unless n is 1: "1 run", "2 runs".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// WriteSizeCSV prints the rows behind the slowdown-by-size curves: per
// group and 5% flow-size bucket the grouping columns, size_percentile
// (the bucket's upper edge in percent of the group's in-window flows by
// size), the bucket's smallest and largest flow in bytes, finished,
// unfinished and below_one flows, and the mean/p50/p95/p99 clamped
// slowdown at full precision ("NaN" over no finished flow).
func WriteSizeCSV(w io.Writer, groups []*Group) error {
	if len(groups) == 0 {
		return ErrNoRuns
	}
	cw := csv.NewWriter(w)
	head := append(append([]string(nil), groups[0].Keys...), "size_percentile", "min_size_bytes", "max_size_bytes",
		"finished", "unfinished", "below_one", "mean_slowdown", "p50_slowdown", "p95_slowdown", "p99_slowdown")
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, g := range groups {
		for _, b := range g.Analysis.Buckets {
			rec := append(append([]string(nil), g.Values...), strconv.Itoa(b.Percent),
				strconv.FormatInt(b.MinSize, 10), strconv.FormatInt(b.MaxSize, 10),
				strconv.Itoa(b.Count), strconv.Itoa(b.Unfinished), strconv.Itoa(b.BelowOne),
				f(b.Mean), f(b.P50), f(b.P95), f(b.P99))
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Baseline names the groups the others are compared with: those whose
// grouping column Key has Value ("scheduler=fair").
type Baseline struct{ Key, Value string }

// ParseBaseline reads "column=value".
func ParseBaseline(s string) (Baseline, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return Baseline{}, fmt.Errorf("baseline %q: want column=value, e.g. scheduler=fair", s)
	}
	return Baseline{k, v}, nil
}

// Check reports a baseline that no group can be compared with: a column
// the groups are not grouped by, or a value no group has.
func (b Baseline) Check(groups []*Group) error {
	if len(groups) == 0 {
		return ErrNoRuns
	}
	k := slices.Index(groups[0].Keys, b.Key)
	if k < 0 {
		return fmt.Errorf("baseline %s=%s: %s is not a grouping column (grouped by %s)", b.Key, b.Value, b.Key, orNothing(groups[0].Keys))
	}
	var vals []string
	for _, g := range groups {
		if g.Values[k] == b.Value {
			return nil
		}
		if !slices.Contains(vals, g.Values[k]) {
			vals = append(vals, g.Values[k])
		}
	}
	return fmt.Errorf("baseline %s=%s: no group has it (%s: %s)", b.Key, b.Value, b.Key, strings.Join(vals, ", "))
}

// FormatRatios prints each group that is not a baseline group beside
// its baseline, the group with the same values of every other grouping
// column and b.Value in b.Key: its mean, p50, p95 and p99 slowdown, and
// mean and p99 iteration time where both have iterations, divided by the
// baseline's ("0.41": 41% of the baseline's; below 1 is better). A group
// without a baseline is listed as such.
func FormatRatios(w io.Writer, groups []*Group, b Baseline) error {
	if err := b.Check(groups); err != nil {
		return err
	}
	keys := groups[0].Keys
	k := slices.Index(keys, b.Key)
	others := func(g *Group) string {
		v := slices.Clone(g.Values)
		v[k] = ""
		return strings.Join(v, "\x00")
	}
	base := map[string]*Group{}
	for _, g := range groups {
		if g.Values[k] == b.Value {
			base[others(g)] = g
		}
	}
	training := false
	for _, g := range groups {
		training = training || g.Iterations.Count > 0
	}
	fmt.Fprintf(w, "\nratio to %s=%s in the same group (statistic / the baseline's; below 1: lower than %s)\n", b.Key, b.Value, b.Value)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")) }
	head := append(slices.Clone(keys), "mean", "p50", "p95", "p99")
	if training {
		head = append(head, "iter_mean", "iter_p99")
	}
	row(head...)
	ratio := func(a, b float64) string {
		if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
			return "-"
		}
		return strconv.FormatFloat(a/b, 'f', 2, 64)
	}
	for _, g := range groups {
		if g.Values[k] == b.Value {
			continue
		}
		ref := base[others(g)]
		if ref == nil {
			row(append(slices.Clone(g.Values), fmt.Sprintf("(no %s=%s group with the same other values)", b.Key, b.Value))...)
			continue
		}
		o, r := g.Analysis.Overall, ref.Analysis.Overall
		cells := append(slices.Clone(g.Values), ratio(o.Mean, r.Mean), ratio(o.P50, r.P50), ratio(o.P95, r.P95), ratio(o.P99, r.P99))
		if training {
			cells = append(cells, ratio(g.Iterations.Mean, ref.Iterations.Mean), ratio(g.Iterations.P99, ref.Iterations.P99))
		}
		row(cells...)
	}
	return tw.Flush()
}
