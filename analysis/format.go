package analysis

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// FormatSummary prints a as aligned text tables: the overall line, the
// split at SplitBytes when set, then one line per size bucket with its size
// range in human units (SI: 1KB = 1000 B). Statistics are slowdowns clamped
// at 1; "below1" counts flows that beat their ideal FCT before clamping; a
// statistic over no finished flow prints as "-".
func FormatSummary(w io.Writer, a Analysis) error {
	head := []string{"finished", "unfinished", "below1", "mean", "p50", "p95", "p99"}
	stats := func(s Summary) []string {
		return []string{strconv.Itoa(s.Count), strconv.Itoa(s.Unfinished), strconv.Itoa(s.BelowOne),
			fmtStat(s.Mean), fmtStat(s.P50), fmtStat(s.P95), fmtStat(s.P99)}
	}
	if _, err := fmt.Fprintln(w, "slowdown of in-window flows (fct / ideal fct, clamped at 1; below1: faster than ideal)"); err != nil {
		return err
	}
	rows := [][]string{append([]string{"flows"}, head...), append([]string{"all"}, stats(a.Overall)...)}
	if a.SplitBytes > 0 {
		rows = append(rows,
			append([]string{"<= " + HumanSize(a.SplitBytes)}, stats(a.Small)...),
			append([]string{"> " + HumanSize(a.SplitBytes)}, stats(a.Large)...))
	}
	if err := writeTable(w, rows); err != nil {
		return err
	}
	if len(a.Buckets) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\nby flow size (%d%% buckets)\n", a.StepPercent); err != nil {
		return err
	}
	rows = [][]string{append([]string{"size", "pct"}, head...)}
	for _, b := range a.Buckets {
		size := HumanSize(b.MinSize) + " - " + HumanSize(b.MaxSize)
		if b.MinSize == b.MaxSize {
			size = HumanSize(b.MaxSize)
		}
		rows = append(rows, append([]string{size, strconv.Itoa(b.Percent) + "%"}, stats(b.Summary)...))
	}
	return writeTable(w, rows)
}

// writeTable prints rows with the first column left-aligned and the others
// right-aligned, two spaces apart.
func writeTable(w io.Writer, rows [][]string) error {
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range rows {
		label := r[0] + strings.Repeat(" ", width-len(r[0]))
		fmt.Fprintln(tw, label+"\t"+strings.Join(r[1:], "\t")+"\t")
	}
	return tw.Flush()
}

// fmtStat prints a slowdown with two decimals, or "-" for no data.
func fmtStat(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// HumanSize prints a byte count for people: below 1000 in B, else in the
// largest SI unit (KB = 1000 B, MB, GB, ...) that keeps the value >= 1,
// with two decimals below 10 and one above, trailing zeros trimmed:
// 999 -> "999B", 1000 -> "1KB", 102500 -> "102.5KB", 1234567 -> "1.23MB".
// It is for display; engine.FormatSize prints sizes exactly.
func HumanSize(n int64) string {
	if n < 0 {
		return "-" + HumanSize(-n)
	}
	if n < 1000 {
		return strconv.FormatInt(n, 10) + "B"
	}
	units := []string{"KB", "MB", "GB", "TB", "PB", "EB"}
	v := float64(n) / 1000
	u := 0
	for v >= 999.95 && u < len(units)-1 {
		v /= 1000
		u++
	}
	// One decimal above 10 keeps a BDP of 102,500 B readable as 102.5KB.
	digits := 2
	if v >= 10 {
		digits = 1
	}
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + units[u]
}
