package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

func newRunCmd() *cobra.Command {
	var sets []string
	var seed int64
	var out string
	var quiet bool
	var runID string
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
and writes nothing.`,
		Example: `  dcsim run
  dcsim run default --set workload.load=0.8 --set nic.qp_mapping=per-pair
  dcsim run my.yaml --seed 7 --out results/my-7`,
		Args: argsRange(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
			sim, err := wiring.Build(s)
			if err != nil {
				return badInput(err)
			}
			printWarnings(cmd.ErrOrStderr(), s)
			if out == "" {
				out = s.DefaultDir()
			}
			if err := scenario.PrepareDir(out); err != nil {
				return badInput(fmt.Errorf("--out: %w", err))
			}
			stdout := cmd.OutOrStdout()
			opt := wiring.Options{Version: version(), Dir: out, RunID: runID}
			var bar *progressbar.ProgressBar
			if f, ok := cmd.ErrOrStderr().(*os.File); ok && !quiet && term.IsTerminal(int(f.Fd())) {
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
				return fmt.Errorf("writing results: %w", err)
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
	cmd.Flags().Int64Var(&seed, "seed", 1, "the scenario's random seed (same seed and scenario give byte-identical flows.parquet)")
	cmd.Flags().StringVar(&out, "out", "", "directory for the results (default out/NAME-HASH)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print nothing but errors")
	cmd.Flags().StringVar(&runID, "run-id", "", "the run's run_id in every file, e.g. a SLURM job id (default: a fresh UUIDv7; same seed and id give byte-identical files)")
	return cmd
}

// newProgress is a bar over simulated time; it is drawn only on a terminal.
func newProgress(w io.Writer, dur engine.Time) *progressbar.ProgressBar {
	return progressbar.NewOptions64(dur.Nanoseconds(),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetDescription("simulating"),
		progressbar.OptionShowElapsedTimeOnFinish(),
	)
}

var progressStart = time.Now()

func updateProgress(bar *progressbar.ProgressBar, p wiring.Progress) {
	rate := float64(p.Events) / time.Since(progressStart).Seconds()
	phase := "arrivals"
	if p.Draining {
		phase = "draining"
	}
	bar.Describe(fmt.Sprintf("%s %v, %.2gM events/s, flows %d/%d", phase, p.SimTime, rate/1e6, p.FlowsDone, p.FlowsPosted))
	_ = bar.Set64(min(p.SimTime, p.Duration).Nanoseconds())
}

// newTrainingProgress is a bar over training iterations: a training run's
// duration is only its start window, so simulated time says nothing of
// how far it is.
func newTrainingProgress(w io.Writer) *progressbar.ProgressBar {
	return progressbar.NewOptions(1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetDescription("training"),
		progressbar.OptionShowElapsedTimeOnFinish(),
	)
}

func updateTrainingProgress(bar *progressbar.ProgressBar, p wiring.Progress) {
	t := p.Training
	bar.ChangeMax(max(t.Iterations, 1))
	rate := float64(p.Events) / time.Since(progressStart).Seconds()
	bar.Describe(fmt.Sprintf("iterations %d/%d, collectives done %d, simulated %v, %.2gM events/s, flows %d/%d",
		t.IterationsDone, t.Iterations, t.CollectivesDone, p.SimTime, rate/1e6, p.FlowsDone, p.FlowsPosted))
	_ = bar.Set(t.IterationsDone)
}
