package sweep

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
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
