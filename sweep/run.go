package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

// ErrorFile is written into a point's directory when the point fails (an
// error or a panic); it never coexists with a fresh run.parquet.
const ErrorFile = "error.txt"

// Options control Run. None of them changes a point's results.
type Options struct {
	// Out is the directory that holds one subdirectory per point, named by
	// the point's Hash.
	Out string
	// Workers is the number of points simulated at once; <= 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
	// Force recomputes points whose run.parquet already exists.
	Force bool
	// Version is the dcsim version recorded in run.parquet.
	Version string
	// Progress, when set, is called after every change of Status, never
	// concurrently.
	Progress func(Status)
	// RunPoint, when set, runs one point into dir in place of RunPoint
	// (dcsim gives each point a child process of its own, so that a point
	// that exhausts memory or crashes the Go runtime is recorded and the
	// others go on). It must leave dir as RunPoint does: run.parquet on
	// success, ErrorFile on failure (RecordFailure writes it).
	RunPoint func(p *Point, dir string) error
}

// Status counts the points of a Run.
type Status struct {
	Total   int // points given to Run
	Skipped int // already complete, not run again
	Running int
	Done    int // finished successfully in this Run
	Failed  int
	// Finished is the point whose end (done or failed) this change of
	// Status reports, nil for other changes: a log line per point.
	Finished *Outcome
}

// Pending is the number of points neither finished, failed nor skipped.
func (s Status) Pending() int { return s.Total - s.Skipped - s.Done - s.Failed }

// Outcome is what became of one point.
type Outcome struct {
	Point   *Point
	Dir     string
	Skipped bool  // run.parquet existed and Force was off
	Err     error // nil when the point finished (or was skipped)
	Wall    time.Duration
}

// Summary is the result of Run: one Outcome per point, in the order of the
// points given, and the final counts.
type Summary struct {
	Outcomes []Outcome
	Status
	Wall time.Duration
}

// Dir is the directory of a point under out.
func Dir(out string, p *Point) string { return filepath.Join(out, p.Hash) }

// Run simulates points with a pool of workers, each point a whole
// simulation in one goroutine (simulations share nothing). A point whose
// run.parquet exists is skipped unless opt.Force. A point that fails, by
// an error or a panic, leaves ErrorFile in its directory and no
// run.parquet; the other points go on. Cancelling ctx starts no new point
// and returns once the running ones end; points never started have a nil
// Err and are neither Skipped nor counted as Done. Run's own error is
// only for what stops the whole sweep (the output directory cannot be
// made). A point that ctx interrupts (RunPoint, or an Options.RunPoint
// that returns context.Cause(ctx)) has that cause as its Err but is not
// counted as Failed: it left no error file, and a re-run does it.
func Run(ctx context.Context, points []Point, opt Options) (*Summary, error) {
	start := time.Now()
	if opt.Out == "" {
		return nil, errors.New("sweep: no output directory")
	}
	if err := wiring.PrepareDir(opt.Out); err != nil {
		return nil, err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	sum := &Summary{Outcomes: make([]Outcome, len(points))}
	sum.Total = len(points)
	var todo []int
	for i := range points {
		p := &points[i]
		o := &sum.Outcomes[i]
		o.Point, o.Dir = p, Dir(opt.Out, p)
		if !opt.Force && fileExists(filepath.Join(o.Dir, analysis.RunFile)) {
			o.Skipped = true
			sum.Skipped++
			continue
		}
		todo = append(todo, i)
	}

	var mu sync.Mutex
	report := func(change func(*Status)) {
		mu.Lock()
		defer mu.Unlock()
		change(&sum.Status)
		if opt.Progress != nil {
			opt.Progress(sum.Status)
		}
		sum.Finished = nil
	}
	report(func(*Status) {})

	// A point another dcsim is running (a shard of another count, a
	// --point) is left for after the others, then waited for: when its
	// lock comes free it is complete (skipped) or run here.
	busy := runPoints(ctx, todo, sum, opt, workers, report, false)
	runPoints(ctx, busy, sum, opt, workers, report, true)
	sum.Wall = time.Since(start)
	return sum, nil
}

// runPoints runs the points todo of sum on workers, each under its point
// lock, skipping (unless Force) one that another process completed since
// Run looked. Without wait, a point whose lock another process holds is
// not run but returned; with wait, it is waited for (polling). ctx stops
// both.
func runPoints(ctx context.Context, todo []int, sum *Summary, opt Options, workers int, report func(func(*Status)), wait bool) (busy []int) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range min(workers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				o := &sum.Outcomes[i]
				lock, held := lockPoint(ctx, o.Dir, wait)
				if held {
					mu.Lock()
					busy = append(busy, i)
					mu.Unlock()
					continue
				}
				if ctx.Err() != nil {
					lock.Unlock()
					continue
				}
				if !opt.Force && fileExists(filepath.Join(o.Dir, analysis.RunFile)) {
					lock.Unlock()
					o.Skipped = true // completed by another process since Run began
					report(func(s *Status) { s.Skipped++ })
					continue
				}
				report(func(s *Status) { s.Running++ })
				t0 := time.Now()
				var err error
				if opt.RunPoint != nil {
					err = opt.RunPoint(o.Point, o.Dir)
				} else {
					err = RunPoint(ctx, o.Point, o.Dir, opt.Version, "")
				}
				lock.Unlock()
				o.Err, o.Wall = err, time.Since(t0)
				report(func(s *Status) {
					s.Running--
					if interrupted(ctx, err) {
						return // pending: a re-run does it
					}
					s.Finished = o
					if err != nil {
						s.Failed++
					} else {
						s.Done++
					}
				})
			}
		}()
	}
feed:
	for _, i := range todo {
		if ctx.Err() != nil {
			break // select picks at random among ready cases: check first
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	slices.Sort(busy)
	return busy
}

// lockPoint takes the lock of the point directory dir (scenario.LockDir,
// exclusive), which every way of running a point takes: a sweep of any
// shard count, a --point, a dcsim run --out into it. held reports that
// another process holds it (only without wait; with wait it polls until
// the lock is free or ctx ends). A file system without locks, or a lock
// that cannot be taken for another reason, runs the point unlocked, as
// the sweep itself then runs; RunPoint reports a directory it cannot make.
func lockPoint(ctx context.Context, dir string, wait bool) (lock *scenario.DirLock, held bool) {
	for {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return &scenario.DirLock{}, false
		}
		l, err := scenario.LockDir(dir, "", os.Getpid())
		var locked *scenario.LockedError
		if !errors.As(err, &locked) {
			return l, false
		}
		if !wait {
			return l, true
		}
		select {
		case <-ctx.Done():
			return l, false
		case <-time.After(pointLockPoll):
		}
	}
}

// pointLockPoll is how often a sweep looks whether a point another
// process runs is done.
var pointLockPoll = 500 * time.Millisecond

// RunPoint simulates one point into dir, in this process, recording
// version in run.parquet. A panic inside the simulation is recovered into
// the error, with its stack; the error, whatever it is, is also written to
// dir/ErrorFile, unless ctx ended the point: then it is context.Cause(ctx),
// the point's files are removed as an interrupted run removes them, and
// nothing is recorded, as the point did not fail. The run's id is runID,
// which the caller checked with wiring.CheckRunID, or a fresh one when it
// is "" (wiring.Options.RunID).
func RunPoint(ctx context.Context, p *Point, dir, version, runID string) (err error) {
	if err := prepareDir(dir); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
		if err != nil && !interrupted(ctx, err) {
			err = RecordFailure(dir, p, err)
		}
	}()
	// scenario.yaml first, so that a failed point can be reproduced with
	// "dcsim run DIR/scenario.yaml".
	yml := p.Scenario.YAML()
	if err := analysis.WriteFileAtomic(filepath.Join(dir, "scenario.yaml"), func(w io.Writer) error {
		_, err := w.Write(yml)
		return err
	}); err != nil {
		return err
	}
	res, err := simulate(p, wiring.Options{Params: p.Params, Version: version, Dir: dir, RunID: runID, Context: ctx})
	if err != nil {
		return err
	}
	return res.WriteDir(dir)
}

// simulate builds and runs one point; tests replace it to make points
// fail or panic.
var simulate = func(p *Point, opt wiring.Options) (*wiring.Result, error) {
	sim, err := wiring.Build(p.Scenario)
	if err != nil {
		return nil, err
	}
	return sim.Run(opt), nil
}

// interrupted reports whether err is ctx's end rather than a failure.
func interrupted(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && errors.Is(err, context.Cause(ctx))
}

// prepareDir makes dir and clears what an earlier, interrupted or failed
// attempt left: the completion marker (so that the point is complete only
// once this attempt finishes), the error file, and temporary files of
// interrupted atomic writes.
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{analysis.RunFile, ErrorFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	for _, t := range tmps {
		os.Remove(t)
	}
	return nil
}

// RecordFailure writes err into dir/ErrorFile, with the command that
// reproduces the point, and returns err (noting it if recording failed).
// The directory is made if needed and its run.parquet removed.
func RecordFailure(dir string, p *Point, err error) error {
	werr := prepareDir(dir)
	if werr == nil {
		werr = writeErrorFile(dir, p, err)
	}
	if werr != nil {
		return fmt.Errorf("%w (and recording it failed: %v)", err, werr)
	}
	return err
}

func writeErrorFile(dir string, p *Point, err error) error {
	return analysis.WriteFileAtomic(filepath.Join(dir, ErrorFile), func(w io.Writer) error {
		fmt.Fprintf(w, "point %d failed: %s\n", p.Index, p.Label())
		fmt.Fprintf(w, "reproduce: dcsim run %s\n\n", filepath.Join(dir, "scenario.yaml"))
		fmt.Fprintf(w, "error: %v\n", err)
		var pe *PanicError
		if errors.As(err, &pe) {
			fmt.Fprintf(w, "\n%s", pe.Stack)
		}
		return nil
	})
}

// PanicError is a panic inside a point's simulation, recovered.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return "panic: " + strings.ReplaceAll(fmt.Sprint(e.Value), "\n", " ")
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// PointStatus is the state of a point's directory: "done" (run.parquet),
// "failed" (ErrorFile), or "todo".
func PointStatus(out string, p *Point) string {
	dir := Dir(out, p)
	switch {
	case fileExists(filepath.Join(dir, analysis.RunFile)):
		return "done"
	case fileExists(filepath.Join(dir, ErrorFile)):
		return "failed"
	}
	return "todo"
}
