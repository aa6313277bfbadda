package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/internal/textline"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

func newRunCmd() *cobra.Command {
	var sets []string
	var seed int64
	var out string
	var quiet bool
	var runID string
	var threads, units string
	cmd := &cobra.Command{
		Use:   "run [SCENARIO]",
		Short: "run one scenario and print its summary",
		Long: `Run one scenario: a built-in name (see "dcsim scenarios") or a YAML file.
With no argument it runs the built-in "default": 128 hosts on a 100 Gbps
spine-leaf, WebSearch at 50% load; "-" reads the scenario from standard
input.

The run writes flows.parquet, scenario.yaml and run.parquet into --out
(and samples.parquet when trace.interval > 0, iterations.parquet and
collectives.parquet for a training workload, batches.parquet for halo),
each file atomically, run.parquet last. A bad scenario exits with status 2
and writes nothing. One run or sweep writes a directory at a time: a
second exits 2 naming the first's pid (--out holds the lock file
.dcsim.lock). Ctrl-C stops the run within a chunk of simulated time,
removes its partial files and exits 130 (SIGTERM: 143); so does the first
error writing --out (a full disk), with exit 1.

--threads N runs the scenario on the parallel engine (docs/parallel.md)
with N threads ("auto": one per CPU): its rows are the same for every N,
and differ from the sequential engine's as another seed's do (the order of
same-time events between parts of the fabric, per-switch random streams,
QP ids). --units pod|switch chooses the parts (pod by default); the rows
depend on it, not on N, so both go into the run's scenario.yaml (a
"parallel" section) and its config hash. It runs open-loop workloads and
training runs whose send latency is at least the lookahead, and
congestion isolation with switch.isolation.credit_view: delayed (the same
model on both engines); closed loops, the ns-3 profile and isolation's
live credit view are refused (exit 2).`,
		Example: `  dcsim run
  dcsim run default --set workload.load=0.8 --set nic.qp_mapping=per-pair
  dcsim run my.yaml --seed 7 --out results/my-7`,
		Args: argsRange(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := withInterrupt(cmd.Context())
			defer stop()
			name := "default"
			if len(args) == 1 {
				name = args[0]
			}
			if cmd.Flags().Changed("run-id") {
				if err := wiring.CheckRunID(runID); err != nil {
					return badInput(fmt.Errorf("--run-id: %w", err))
				}
			}
			if cmd.Flags().Changed("seed") {
				if seed < 0 {
					return badInput(fmt.Errorf("--seed: %d is negative", seed))
				}
				sets = append(sets, "seed="+strconv.FormatInt(seed, 10))
			}
			s, err := loadScenario(cmd, name, sets)
			if err != nil {
				return badInput(err)
			}
			n, err := parseThreads(threads)
			if err != nil {
				return badInput(err)
			}
			// The engine and its cut decide the rows, so they go into the
			// scenario (its scenario.yaml, hash and default --out); the
			// thread count does not (docs/scenarios.md, "parallel").
			if n > 0 && s.Parallel == nil {
				s.Parallel = &scenario.Parallel{Units: "pod"}
			}
			if cmd.Flags().Changed("units") {
				switch {
				case !slices.Contains(scenario.ParallelUnits, units):
					return badInput(fmt.Errorf("--units: %q, want pod or switch", textline.Clip(units)))
				case s.Parallel == nil:
					return badInput(fmt.Errorf("--units: %s applies to the parallel engine; give --threads too", units))
				}
				s.Parallel.Units = units
			}
			sim, err := wiring.BuildWith(s, wiring.BuildOptions{Threads: n})
			if err != nil {
				return badInput(err)
			}
			printWarnings(cmd.ErrOrStderr(), s)
			if note := s.StudyNote(); note != "" && !quiet {
				fmt.Fprintln(cmd.ErrOrStderr(), "dcsim: note: "+note)
			}
			if cause := context.Cause(ctx); cause != nil {
				return interruptedBy(cause, "interrupted before the run started; nothing was written", cause)
			}
			if out == "" {
				out = s.DefaultDir()
			}
			if err := wiring.PrepareDir(out); err != nil {
				return badInput(fmt.Errorf("--out: %w", err))
			}
			lock, err := lockOut(cmd.ErrOrStderr(), out, "")
			if err != nil {
				return err
			}
			defer lock.Unlock()
			stdout := cmd.OutOrStdout()
			opt := wiring.Options{Version: version(), Dir: out, RunID: runID, Context: ctx}
			var bar *progressbar.ProgressBar
			if f, ok := cmd.ErrOrStderr().(*os.File); ok && !quiet && term.IsTerminal(int(f.Fd())) {
				if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
					progressCols = cols
				}
				if sim.Training() {
					bar = newTrainingProgress(f)
					opt.Progress = func(p wiring.Progress) { updateTrainingProgress(bar, p) }
				} else {
					bar = newProgress(f, engine.Time(s.Duration))
					opt.Progress = func(p wiring.Progress) { updateProgress(bar, p) }
				}
			}
			res := sim.Run(opt)
			if bar != nil {
				_ = bar.Finish()
				fmt.Fprintln(cmd.ErrOrStderr())
			}
			if err := res.WriteDir(out); err != nil {
				return interruptedBy(err, fmt.Sprintf("interrupted at simulated %v; %s holds no results (the same command runs it again)", sim.Engine.Now(), out),
					fmt.Errorf("writing results: %w", err))
			}
			if quiet { // the headline carries them otherwise
				for _, w := range res.Warnings() {
					fmt.Fprintln(cmd.ErrOrStderr(), "dcsim: warning: "+w)
				}
			}
			if !quiet {
				fmt.Fprint(stdout, res.Headline())
				// Training runs post their flows after the measurement
				// window; their summary is the iteration line above.
				if res.Analysis.Overall.Total() > 0 {
					fmt.Fprintln(stdout)
					if err := analysis.FormatSummary(stdout, res.Analysis); err != nil {
						return err
					}
				}
				fmt.Fprintf(stdout, "\nresults in %s\n", out)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a scenario field: dotted.path=value (repeatable), e.g. workload.load=0.8")
	cmd.Flags().Int64Var(&seed, "seed", 1, "the scenario's random seed (same seed and scenario give the same rows in every file but run_id)")
	cmd.Flags().StringVar(&out, "out", "", "directory for the results (default out/NAME-HASH)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print nothing but errors")
	cmd.Flags().StringVar(&threads, "threads", "", `run on the parallel engine with N threads, or "auto" for one per CPU (default: the sequential engine)`)
	cmd.Flags().StringVar(&units, "units", "", `with --threads: cut the fabric into units by "pod" (the default; a leaf on two tiers) or by "switch" (more parallelism, more packets crossing units)`)
	cmd.Flags().StringVar(&runID, "run-id", "", "the run's run_id in every file, e.g. a SLURM job id (default: a fresh UUIDv7; same seed and id give byte-identical files but run.parquet's wall_seconds)")
	return cmd
}

// newProgress is a bar over simulated time; it is drawn only on a terminal.
func newProgress(w io.Writer, dur engine.Time) *progressbar.ProgressBar {
	return progressbar.NewOptions64(dur.Nanoseconds(),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(barWidth),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetDescription("simulating"),
		progressbar.OptionShowElapsedTimeOnFinish(),
	)
}

// barWidth is the progress bar's own width in columns, and barRest what
// the bar adds to its description: the percentage, the bar and the times.
const (
	barWidth = 20
	barRest  = barWidth + 24
)

// progressCols is the terminal's width when the bar was made (0: not
// known). A line longer than the terminal wraps, and the bar's carriage
// return cannot clear a wrapped line, so fitLine cuts the description.
var progressCols int

// fitLine cuts a bar's description so that the whole line fits the
// terminal (the text is ASCII: a byte a column).
func fitLine(s string) string {
	room := progressCols - barRest - 1
	if progressCols <= 0 || len(s) <= room {
		return s
	}
	return s[:max(room-1, 8)] + "…"
}

var progressStart = time.Now()

// drainFrom is the number of flows unfinished when the drain began: the
// bar's length from then on; -1 before.
var drainFrom int64 = -1

// updateProgress moves the bar over simulated time while flows arrive,
// then, draining, over the flows unfinished when the drain began, so that
// a long drain (a third of a storm-80 run) shows the flows and bytes left
// going down rather than a bar stuck at 100%.
func updateProgress(bar *progressbar.ProgressBar, p wiring.Progress) {
	rate := float64(p.Events) / time.Since(progressStart).Seconds()
	if !p.Draining {
		bar.Describe(fitLine(progressText(p, rate)))
		_ = bar.Set64(min(p.SimTime, p.Duration).Nanoseconds())
		return
	}
	left := p.FlowsPosted - p.FlowsDone
	if drainFrom < 0 {
		// A bar at its end ignores Set64 (progressbar stops counting at
		// max): reset it, so the drain counts from 0 (and its clock from
		// the drain's start).
		bar.Reset()
		drainFrom = max(left, 1)
		bar.ChangeMax64(drainFrom)
	}
	bar.Describe(fitLine(progressText(p, rate)))
	_ = bar.Set64(max(0, drainFrom-left))
}

// progressText is the bar's description, in one style: times in ms (us
// for runs under 1 ms) with two decimals, sizes as HumanSize, rates in
// millions per second.
func progressText(p wiring.Progress, eventsPerSecond float64) string {
	unit, scale := "ms", float64(engine.Millisecond)
	if p.Duration < engine.Millisecond {
		unit, scale = "us", float64(engine.Microsecond)
	}
	at := func(t engine.Time) string { return strconv.FormatFloat(float64(t)/scale, 'f', 2, 64) }
	rate := strconv.FormatFloat(eventsPerSecond/1e6, 'f', 1, 64) + " M events/s"
	if p.Draining {
		return fmt.Sprintf("draining: %d flows (%s) unfinished of %d, at %s %s, %s", p.FlowsPosted-p.FlowsDone,
			analysis.HumanSize(p.BytesPosted-p.BytesDone), p.FlowsPosted, at(p.SimTime), unit, rate)
	}
	return fmt.Sprintf("arrivals: %s of %s %s, %d flows (%s) unfinished of %d, %s", at(p.SimTime), at(p.Duration), unit,
		p.FlowsPosted-p.FlowsDone, analysis.HumanSize(p.BytesPosted-p.BytesDone), p.FlowsPosted, rate)
}

// newTrainingProgress is a bar over training iterations: a training run's
// duration is only its start window, so simulated time says nothing of
// how far it is.
func newTrainingProgress(w io.Writer) *progressbar.ProgressBar {
	return progressbar.NewOptions(1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(barWidth),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetDescription("training"),
		progressbar.OptionShowElapsedTimeOnFinish(),
	)
}

func updateTrainingProgress(bar *progressbar.ProgressBar, p wiring.Progress) {
	t := p.Training
	bar.ChangeMax(max(t.Iterations, 1))
	rate := float64(p.Events) / time.Since(progressStart).Seconds()
	bar.Describe(fitLine(fmt.Sprintf("iterations %d/%d, collectives done %d, at %s ms, %s M events/s, flows %d/%d",
		t.IterationsDone, t.Iterations, t.CollectivesDone, strconv.FormatFloat(float64(p.SimTime)/float64(engine.Millisecond), 'f', 2, 64),
		strconv.FormatFloat(rate/1e6, 'f', 1, 64), p.FlowsDone, p.FlowsPosted)))
	_ = bar.Set(t.IterationsDone)
}

// maxThreads bounds --threads: more threads than units only idle.
const maxThreads = 1024

// parseThreads reads --threads: "" is the sequential engine (0), "auto"
// one thread per CPU.
func parseThreads(v string) (int, error) {
	switch v {
	case "":
		return 0, nil
	case "auto":
		return runtime.NumCPU(), nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxThreads {
		return 0, fmt.Errorf("--threads: %q, want a whole number from 1 to %d, or auto", textline.Clip(v), maxThreads)
	}
	return n, nil
}
