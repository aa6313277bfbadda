package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/sweep"
)

func newReportCmd() *cobra.Command {
	o := &reportOpts{}
	cmd := &cobra.Command{
		Use:   "report DIR...",
		Short: "summarise run directories: slowdown by group and flow size, iteration time, plots",
		Long: `Read every run under the DIRs (a directory with run.parquet, found
recursively: one run's --out, a sweep's --out, or several), group the runs
by run.parquet columns, and print per group the mean/p50/p95/p99 slowdown
(fct / ideal fct, clamped at 1) of the pooled in-window flows, overall and
per 5% flow-size bucket, and the iteration time of training runs.

--group-by takes any run.parquet column: the pinned ones (scheduler, cc,
workload, load, seed, ...), a swept parameter by its dotted path, or
config (a hash of the resolved scenario without seed and name). The
default groups by everything that differs between the runs but the seed:
scheduler, cc, then scenario, workload and load where they differ, every
swept column, and config when runs still differ otherwise; so only runs
that differ in seed alone are pooled. Iteration times of different
training workloads are never averaged together. A run found in two
directories (the same config_hash: scenario and seed) is counted once,
from the first, with one warning.

--format csv prints a line per group; with --per-size, a line per group
and 5% flow-size bucket (the rows behind the slowdown-by-size curves).
--baseline COLUMN=VALUE (scheduler=fair) adds a table of every other
group's mean/p50/p95/p99 as ratios to the group that differs from it in
COLUMN alone.

--plot FILE.png, FILE.svg or FILE.pdf draws a figure sized for a paper
(3.5 x 2.6 in per panel): the --series column (default scheduler, else the
last --group-by column) as lines in one colour-blind-safe colour, marker
and dash per value across the figure, at most 8; one panel per combination
of the other grouping columns that vary (the last one across, the others
down); what all runs share in the title. --plot-kind picks the panels:
slowdown-by-size (--stat p50, p95, p99 or mean by 5% flow-size bucket;
the default), cdf, ccdf (the tail: fraction of flows above each slowdown,
log-log), summary (mean and p99 per series) or iterations (training runs;
the default when no flow finished in the window).`,
		Example: `  dcsim report out/storm-cloud
  dcsim report out/a out/b --group-by scheduler,workload.load --plot storm.png
  dcsim report out/storm-cloud-small --group-by workload,load,scheduler --plot tail.pdf --plot-kind ccdf
  dcsim report out/storm-cloud --format csv > summary.csv
  dcsim report out/storm-cloud --format csv --per-size > by-size.csv
  dcsim report out/storm-cloud-small --group-by workload,load,scheduler --baseline scheduler=fair`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &flagError{fmt.Errorf("requires at least 1 arg(s), only received 0")}
			}
			return nil
		},
		RunE: o.run,
	}
	cmd.Flags().StringVar(&o.groupBy, "group-by", "", "comma-separated run.parquet columns to group by (default: everything that differs between runs but the seed; empty: one group)")
	cmd.Flags().BoolVar(&o.perSize, "per-size", false, "with --format csv: one line per group and 5% flow-size bucket, the rows behind the slowdown-by-size curves")
	cmd.Flags().StringVar(&o.baseline, "baseline", "", "COLUMN=VALUE, e.g. scheduler=fair: also print every other group's slowdown as ratios to the group that differs from it in COLUMN alone")
	cmd.Flags().StringVar(&o.plotTo, "plot", "", "also draw a figure into FILE.png, FILE.svg or FILE.pdf")
	cmd.Flags().StringVar(&o.plotOpt.Kind, "plot-kind", "", "the figure's panels: "+strings.Join(sweep.PlotKinds, ", ")+" (default slowdown-by-size, iterations for training runs)")
	cmd.Flags().StringVar(&o.plotOpt.Series, "series", "", "the grouping column drawn as lines inside each panel (default scheduler, else the last --group-by column)")
	cmd.Flags().StringVar(&o.plotOpt.Stat, "stat", "p99", "the slowdown statistic of --plot-kind slowdown-by-size: p50, p95, p99 or mean")
	cmd.Flags().StringVar(&o.format, "format", "text", "text (tables) or csv (one line per group, full precision)")
	return cmd
}

// reportOpts are dcsim report's flags.
type reportOpts struct {
	groupBy  string
	plotTo   string
	format   string
	plotOpt  sweep.PlotOptions
	perSize  bool
	baseline string
}

// checkFlags checks the flags before any work and returns the baseline
// and the plot's format.
func (o *reportOpts) checkFlags(cmd *cobra.Command) (base sweep.Baseline, plotFormat string, err error) {
	if o.format != "text" && o.format != "csv" {
		return base, "", badInput(fmt.Errorf("--format %q: want text or csv", o.format))
	}
	if o.perSize && o.format != "csv" {
		return base, "", badInput(errors.New("--per-size goes with --format csv (the text report has the per-size tables)"))
	}
	if cmd.Flags().Changed("baseline") {
		if o.format != "text" {
			return base, "", badInput(errors.New("--baseline is a text view; with --format csv, divide the columns"))
		}
		if base, err = sweep.ParseBaseline(o.baseline); err != nil {
			return base, "", badInput(fmt.Errorf("--%w", err))
		}
	}
	if o.plotTo == "" {
		for _, f := range []string{"plot-kind", "series", "stat"} {
			if cmd.Flags().Changed(f) {
				return base, "", badInput(fmt.Errorf("--%s shapes the figure: it goes with --plot FILE", f))
			}
		}
		return base, "", nil
	}
	if plotFormat, err = checkPlotPath(o.plotTo); err != nil {
		return base, "", badInput(fmt.Errorf("--plot %w", err))
	}
	return base, plotFormat, nil
}

// run is dcsim report.
func (o *reportOpts) run(cmd *cobra.Command, args []string) error {
	base, plotFormat, err := o.checkFlags(cmd)
	if err != nil {
		return err
	}
	res, err := sweep.Collect(args...)
	if err != nil {
		return badInput(err)
	}
	if len(res.Runs) == 0 {
		return badInput(fmt.Errorf("%s: %w", strings.Join(args, ", "), sweep.ErrNoRuns))
	}
	if n := len(res.Repeats); n > 0 {
		// Once, not per directory: a copied sweep repeats hundreds.
		r, dirs := res.Repeats[0], "1 run directory holds"
		if n > 1 {
			dirs = fmt.Sprintf("%d run directories hold", n)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "dcsim: warning: %s a run read from another directory (same config_hash: same scenario and seed); each run is counted once, from its first directory (%s repeats %s)\n",
			dirs, r.Dir, r.Of)
	}
	var keys []string
	if cmd.Flags().Changed("group-by") {
		keys = []string{}
		for k := range strings.SplitSeq(o.groupBy, ",") {
			if k = strings.TrimSpace(k); k != "" {
				keys = append(keys, k)
			}
		}
	}
	groups, err := res.Group(keys)
	if err != nil {
		return badInput(fmt.Errorf("--group-by: %w", err))
	}
	if base.Key != "" {
		if err := base.Check(groups); err != nil {
			return badInput(fmt.Errorf("--%w", err))
		}
	}
	var fig *sweep.Figure
	if o.plotTo != "" {
		// Planned before the report prints: a figure that cannot
		// be legible is bad input, not a half-done report.
		if fig, err = sweep.NewFigure(groups, o.plotOpt); err != nil {
			return badInput(fmt.Errorf("--plot: %w", err))
		}
	}
	stdout := cmd.OutOrStdout()
	if o.format == "csv" {
		if o.perSize {
			err = sweep.WriteSizeCSV(stdout, groups)
		} else {
			err = sweep.WriteCSV(stdout, groups)
		}
		for _, d := range res.Failed {
			fmt.Fprintf(cmd.ErrOrStderr(), "note: failed point, not reported: %s\n", filepath.Join(d, sweep.ErrorFile))
		}
	} else {
		err = sweep.FormatGroups(stdout, groups)
		if err == nil && base.Key != "" {
			err = sweep.FormatRatios(stdout, groups, base)
		}
		for _, d := range res.Failed {
			fmt.Fprintf(stdout, "\nnote: failed point, not reported: %s\n", filepath.Join(d, sweep.ErrorFile))
		}
	}
	if err != nil {
		return err
	}
	if o.plotTo != "" {
		err := analysis.WriteFileAtomic(o.plotTo, func(w io.Writer) error { return fig.Write(w, plotFormat) })
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		if o.format == "text" {
			fmt.Fprintf(stdout, "\nplot in %s\n", o.plotTo)
		}
	}
	return nil
}

// checkPlotPath checks a --plot path before any work: an image format by
// its extension, a directory that exists, not a directory itself.
func checkPlotPath(path string) (format string, err error) {
	if format, err = sweep.PlotFormat(path); err != nil {
		return "", err
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return "", fmt.Errorf("%s: is a directory", path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s: directory %s does not exist", path, dir)
	}
	return format, nil
}
