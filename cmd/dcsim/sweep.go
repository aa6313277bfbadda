package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/sweep"
	"github.com/dcsim/dcsim/wiring"
)

func newSweepCmd() *cobra.Command {
	var (
		workers  int
		shardArg string
		out      string
		force    bool
		dryRun   bool
		quiet    bool
		point    int
		runID    string
		// pointMemory is --point-memory; 0 is the default.
		pointMemory sizeFlag
	)
	cmd := &cobra.Command{
		Use:   "sweep SWEEP.yaml",
		Short: "run a grid of scenarios on all cores, resumable and shardable",
		Long: `Run every point of a sweep file: a base scenario, fixed overrides, and a
grid (cartesian product) and/or a zip (lists varied together) of values:

  name: storm-cloud
  base: default            # built-in name, or a scenario file relative to
                           # this file's directory
  set: {duration: 5ms}     # applied to every point
  grid:                    # cartesian product; the last key varies fastest
    nic.scheduler: [fair, fair-message]
    workload.load: [0.3, 0.5]
  zip:                     # equal-length lists varied together, fastest
    seed: [1, 2]

Each point is the base with set and its values applied as --set arguments,
and runs into --out/HASH, where HASH is the resolved scenario's hash.
A point whose run.parquet exists is skipped (a re-run resumes), unless
--force. Each point runs in a process of its own with a memory budget
(--point-memory, default the machine's memory / workers). A failing point,
one that passes its budget, crashes or is killed, leaves error.txt in its
directory and the others go on; the exit status is then 1. One sweep
writes --out at a time (a second exits 2 naming the first's pid; shards
lock only their own points). Ctrl-C stops the running points, removes
their partial files and exits 130: the same command resumes. --point I runs
point I alone in the foreground and prints its summary line. Swept values
become run.parquet columns named by their dotted path.

--shard I/N runs only the points whose index modulo N is I: N tasks with
I = 0..N-1 (a SLURM array, a Kubernetes indexed Job) cover the sweep
exactly once, each writing its own point directories under one --out.
Then "dcsim report OUT".`,
		Example: `  dcsim sweep storm.yaml --dry-run
  dcsim sweep storm.yaml --workers 8 --out results/storm
  dcsim sweep storm.yaml --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT --out results/storm`,
		Args: argsRange(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := withInterrupt(cmd.Context())
			defer stop()
			shard := sweep.All
			if shardArg != "" {
				var err error
				if shard, err = sweep.ParseShard(shardArg); err != nil {
					return badInput(fmt.Errorf("--shard: %w", err))
				}
			}
			if workers < 0 {
				return badInput(fmt.Errorf("--workers: %d is negative", workers))
			}
			if pointMemory != 0 && pointMemory < minPointMemory {
				return badInput(fmt.Errorf("--point-memory: %s is below the %s a point needs at the least (%s)",
					engine.FormatSize(int64(pointMemory)), engine.FormatSize(minPointMemory), minPointMemoryWhy))
			}
			spec, all, err := readSweep(args[0])
			if err != nil {
				return badInput(err)
			}
			points := shard.Select(all)
			if out == "" {
				out = filepath.Join("out", spec.Name)
			}
			if cmd.Flags().Changed("run-id") {
				if !cmd.Flags().Changed("point") {
					return badInput(errors.New("--run-id needs --point: every point of a sweep is a run with an id of its own"))
				}
				if err := wiring.CheckRunID(runID); err != nil {
					return badInput(fmt.Errorf("--run-id: %w", err))
				}
			}
			if cmd.Flags().Changed("point") {
				return runOnePoint(ctx, cmd, spec.Name, all, point, out, quiet, runID)
			}
			stdout := cmd.OutOrStdout()
			if dryRun {
				return printPoints(stdout, spec, all, points, shard, out)
			}
			if err := spec.Check(points); err != nil {
				return badInput(err)
			}
			if err := wiring.PrepareDir(out); err != nil {
				return badInput(fmt.Errorf("--out: %w", err))
			}
			part := "" // the whole sweep: no other sweep or run into out
			if shard.Count > 1 {
				part = fmt.Sprintf("shard-%d-of-%d", shard.Index, shard.Count)
			}
			lock, err := lockOut(cmd.ErrOrStderr(), out, part)
			if err != nil {
				return err
			}
			defer lock.Unlock()
			opt := sweep.Options{Out: out, Workers: workers, Force: force, Version: version()}
			if opt.Workers == 0 {
				opt.Workers = runtime.GOMAXPROCS(0)
			}
			if isChild() {
				// The dcsim binary (not an in-process caller such as a
				// test): one child process per point (child.go).
				mem := int64(pointMemory)
				if mem == 0 {
					mem = defaultPointMemory(opt.Workers)
				}
				opt.RunPoint = pointRunner(ctx, args[0], out, mem)
			}
			var finish func()
			if !quiet {
				opt.Progress, finish = sweepProgress(cmd.ErrOrStderr(), spec.Name)
			}
			sum, err := sweep.Run(ctx, points, opt)
			if finish != nil {
				finish()
			}
			if err != nil {
				return err
			}
			if cause := context.Cause(ctx); cause != nil {
				failed := ""
				if sum.Failed > 0 {
					failed = fmt.Sprintf(", %d failed (error.txt)", sum.Failed)
				}
				return interruptedBy(cause, fmt.Sprintf("interrupted; %d of %d points done (%d by this run)%s, %d left; resume with the same command",
					sum.Done+sum.Skipped, sum.Total, sum.Done, failed, sum.Pending()), cause)
			}
			if !quiet {
				printSweepSummary(stdout, spec, len(all), shard, opt, sum)
			}
			if sum.Failed > 0 {
				return fmt.Errorf("%d of %d points failed (see error.txt in their directories)", sum.Failed, sum.Total)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVarP(&workers, "workers", "j", 0, "points simulated at once (default GOMAXPROCS, here "+fmt.Sprint(runtime.GOMAXPROCS(0))+")")
	f.StringVar(&shardArg, "shard", "", "run only points with index % N == I, given as I/N (e.g. 0/4)")
	f.StringVar(&out, "out", "", "directory for the point directories (default out/NAME)")
	f.BoolVar(&force, "force", false, "recompute points whose run.parquet exists")
	f.BoolVarP(&dryRun, "dry-run", "n", false, "list the points (index, hash, status, swept values) and run nothing")
	f.BoolVarP(&quiet, "quiet", "q", false, "print nothing but errors")
	f.StringVar(&runID, "run-id", "", "with --point: the point's run_id, e.g. a SLURM job id (default: a fresh UUIDv7)")
	f.IntVar(&point, "point", 0, "run only the point with this index (of the whole sweep, as --dry-run lists), in this process, recomputing it")
	f.Var(&pointMemory, "point-memory", "memory budget of each point's process, e.g. 8GiB, at least 32MiB (default: the machine's memory / workers)")
	return cmd
}

// minPointMemory is the least --point-memory accepted, and
// minPointMemoryWhy the reason. A budget below what a point's heap holds
// runs every point into failure (the watchdog ends a point whose heap
// passes it), and one of a few KiB is a typo for MiB or GiB. Live heaps
// measured (GODEBUG=gctrace=1, dcsim 2026-12): incast-star and default at
// 200us 8 MiB, halo 20 MiB, storage-fanout at 1ms 32 MiB.
const (
	minPointMemory    = 32 << 20
	minPointMemoryWhy = "the smallest built-in scenarios' live heap is 8 to 32 MiB"
)

// sizeFlag is a byte count flag with scenario units ("8GiB").
type sizeFlag int64

func (s *sizeFlag) String() string {
	if *s == 0 {
		return ""
	}
	return engine.FormatSize(int64(*s))
}
func (s *sizeFlag) Type() string { return "size" }
func (s *sizeFlag) Set(v string) error {
	n, err := engine.ParseSize(v)
	if err == nil && n <= 0 {
		err = fmt.Errorf("must be positive, got %q", v)
	}
	*s = sizeFlag(n)
	return err
}

// readSweep reads and expands the sweep file at path. Every point's
// process reads the file again (--point I), so a sweep must be a file,
// not standard input.
func readSweep(path string) (*sweep.Spec, []sweep.Point, error) {
	if path == stdinArg {
		return nil, nil, fmt.Errorf("sweep: FILE %q (standard input) is not supported: each point's process re-reads the sweep file; save it to a file first (\"dcsim validate -\" checks a piped sweep)", stdinArg)
	}
	data, err := scenario.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read sweep: %w", err)
	}
	spec, err := sweep.Parse(path, data)
	if err != nil {
		if _, yerr := scenario.ParseMapping(path, data, "sweep", "a mapping"); yerr == nil && !sweep.IsSweepFile(data) {
			// Valid YAML, but a scenario or something else.
			err = fmt.Errorf("%s: not a sweep file (it has no top-level grid, zip or base); run one scenario with \"dcsim run\"", path)
		}
		return nil, nil, err
	}
	all, err := spec.Points()
	if err != nil {
		return nil, nil, err
	}
	return spec, all, nil
}

// sweepProgress reports a sweep's progress on w: a bar redrawn in place
// on a terminal, a line per finished point on a log or a pipe. finish
// ends the bar.
func sweepProgress(w io.Writer, name string) (progress func(sweep.Status), finish func()) {
	f, isFile := w.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return pointLines(w, name), func() {}
	}
	var bar *progressbar.ProgressBar
	progress = func(s sweep.Status) {
		if bar == nil {
			if s.Total == s.Skipped {
				return
			}
			bar = newSweepProgress(f, s.Total-s.Skipped)
		}
		_ = bar.Set(s.Done + s.Failed)
		desc := fmt.Sprintf("points: %d running, %d failed", s.Running, s.Failed)
		if s.Skipped > 0 {
			desc += fmt.Sprintf(", %d already done", s.Skipped)
		}
		bar.Describe(desc)
	}
	finish = func() {
		if bar != nil {
			_ = bar.Finish()
			fmt.Fprintln(w)
		}
	}
	return progress, finish
}

// runOnePoint is --point: point index of the whole sweep, run here into
// its directory under out, then its summary line on stdout (on a pipe as
// on a terminal) unless quiet. A point child of a sweep runs this way,
// with its memory budget and --quiet.
func runOnePoint(ctx context.Context, cmd *cobra.Command, sweepName string, all []sweep.Point, index int, out string, quiet bool, runID string) error {
	if index < 0 || index >= len(all) {
		return badInput(fmt.Errorf("--point: %d is not a point index (the sweep has %d: 0..%d)", index, len(all), len(all)-1))
	}
	p := &all[index]
	dir := sweep.Dir(out, p)
	if err := wiring.PrepareDir(out); err != nil {
		return badInput(fmt.Errorf("--out: %w", err))
	}
	// The point alone: a whole sweep into out excludes it, other points
	// run beside it.
	lock, err := lockOut(cmd.ErrOrStderr(), out, fmt.Sprintf("point-%d", index))
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := wiring.PrepareDir(dir); err != nil {
		return badInput(fmt.Errorf("--out: %w", err))
	}
	// And the point's own directory, which a sweep of any shard count
	// takes for each point it runs (sweep.Run), as a dcsim run --out
	// into it does: no two of them write one point at once.
	pointLock, err := lockOut(cmd.ErrOrStderr(), dir, "")
	if err != nil {
		return err
	}
	defer pointLock.Unlock()
	applyPointMemory(p, dir)
	if err := sweep.RunPoint(ctx, p, dir, version(), runID); err != nil {
		return interruptedBy(err, fmt.Sprintf("interrupted; point %d left no results (the same command runs it again)", index), err)
	}
	if quiet {
		return nil
	}
	run, _, err := analysis.ReadRun(filepath.Join(dir, analysis.RunFile))
	if err != nil {
		return fmt.Errorf("reading the point's results: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "sweep %s point %d (%s): %s; results in %s\n", sweepName, index, p.Label(), pointSummary(&run), dir)
	return nil
}

// pointSummary is a run's one-line summary: simulated time, flows, the
// clamped slowdowns when flows finished in the window (none do in a
// training run), wall time.
func pointSummary(r *analysis.RunRecord) string {
	s := fmt.Sprintf("simulated %v", engine.Time(r.SimTimeNs)*engine.Nanosecond)
	if r.FlowsTotal > 0 { // halo and mpitrace messages are not flows
		s += fmt.Sprintf(", %d of %d flows finished", r.FlowsDone, r.FlowsTotal)
	}
	if !math.IsNaN(r.MeanSlowdown) {
		s += fmt.Sprintf(", slowdown mean %.3f p99 %.3f", r.MeanSlowdown, r.P99Slowdown)
	}
	return s + fmt.Sprintf(", in %.1f s", r.WallSeconds)
}

// pointLines reports each point as it ends, on a line of its own: a
// sweep on a pipe or in a log, where no bar is drawn, shows its progress.
func pointLines(w io.Writer, name string) func(sweep.Status) {
	return func(s sweep.Status) {
		o := s.Finished
		if o == nil {
			return
		}
		n := fmt.Sprintf("%d of %d", s.Done+s.Failed, s.Total-s.Skipped)
		if o.Err != nil {
			fmt.Fprintf(w, "sweep %s: point %d (%s) failed, %s: %v (see %s)\n", name, o.Point.Index, o.Point.Label(), n, o.Err, filepath.Join(o.Dir, sweep.ErrorFile))
			return
		}
		summary := fmt.Sprintf("in %.1f s", o.Wall.Seconds())
		if run, _, err := analysis.ReadRun(filepath.Join(o.Dir, analysis.RunFile)); err == nil {
			summary = pointSummary(&run)
		}
		fmt.Fprintf(w, "sweep %s: point %d (%s) done, %s: %s\n", name, o.Point.Index, o.Point.Label(), n, summary)
	}
}

func newSweepProgress(w io.Writer, total int) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionSetDescription("points"),
	)
}

// printPoints is --dry-run: one line per point of the shard, with its
// directory's status.
func printPoints(w io.Writer, spec *sweep.Spec, all, points []sweep.Point, shard sweep.Shard, out string) error {
	fmt.Fprintf(w, "sweep %s: %s", spec.Name, sweep.Count(len(all), "point"))
	if shard.Count > 1 {
		fmt.Fprintf(w, ", shard %s has %d", shard, len(points))
	}
	fmt.Fprintf(w, "; directories under %s\n", out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tHASH\tSTATUS\tSWEPT")
	for i := range points {
		p := &points[i]
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", p.Index, p.Hash, sweep.PointStatus(out, p), p.Label())
	}
	return tw.Flush()
}

func printSweepSummary(w io.Writer, spec *sweep.Spec, total int, shard sweep.Shard, opt sweep.Options, sum *sweep.Summary) {
	fmt.Fprintf(w, "sweep %s: %s", spec.Name, sweep.Count(total, "point"))
	if shard.Count > 1 {
		fmt.Fprintf(w, ", %d in shard %s", sum.Total, shard)
	}
	fmt.Fprintf(w, ": %d ran, %d skipped (already done), %d failed, in %.1f s with %s\n",
		sum.Done, sum.Skipped, sum.Failed, sum.Wall.Seconds(), sweep.Count(opt.Workers, "worker"))
	for _, o := range sum.Outcomes {
		if o.Err != nil {
			fmt.Fprintf(w, "  point %d (%s) failed: %v\n    see %s\n", o.Point.Index, o.Point.Label(), o.Err,
				filepath.Join(o.Dir, sweep.ErrorFile))
		}
	}
	fmt.Fprintf(w, "results in %s; summarise with: dcsim report %s\n", opt.Out, opt.Out)
}

// validateSweep is "dcsim validate" of a sweep file (data, read from
// name): every point expanded, parsed, validated and built, with errors
// at the sweep file's lines.
func validateSweep(c *cobra.Command, name string, data []byte) error {
	spec, err := sweep.Parse(name, data)
	if err != nil {
		return badInput(err)
	}
	points, err := spec.Points()
	if err != nil {
		return badInput(err)
	}
	if err := spec.Check(points); err != nil {
		return badInput(err)
	}
	fmt.Fprintf(c.OutOrStdout(), "%s: ok (sweep %s, %s)\n", name, spec.Name, sweep.Count(len(points), "point"))
	return nil
}
