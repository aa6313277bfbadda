package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dcsim/dcsim/sweep"
)

// dcsim runs its work in a child process, the same binary re-executed
// with childEnv set, for two reasons:
//   - exit status 2 means bad input, but the Go runtime exits 2 on every
//     fatal error (out of memory, a crash): only a parent can tell them
//     apart (the child reports bad input as exitChildBadInput);
//   - a sweep point that exhausts memory or crashes must not take the
//     sweep with it: every point runs in a child of its own, and the
//     parent records a death the child could not record itself.
//
// A child never outlives its parent: a parent killed outright (kill -9,
// the OOM killer) must not leave a run writing its directory, or a sweep
// launching points, behind it (issue 27). On Linux the kernel kills the
// child when the thread that started it ends (Pdeathsig; the thread is
// locked to the goroutine that waits for the child: see runChild); on the
// other Unix systems the child checks its parent every second
// (watchParent); on Windows neither is possible and a child may outlive a
// killed parent. Every child also checks at its start that its parent is
// still the one that launched it (parentPIDEnv), so a child started while
// its parent was dying does not run.
const (
	childEnv          = "DCSIM_CHILD"
	exitChildBadInput = 3
	// pointMemoryEnv is a point child's memory budget in bytes.
	pointMemoryEnv = "DCSIM_POINT_MEMORY"
	// parentPIDEnv is the pid of the dcsim that launched the child.
	parentPIDEnv = "DCSIM_PARENT_PID"
	// outLockedEnv tells a sweep's point child that the sweep holds the
	// lock on --out for it: the point must not take it again.
	outLockedEnv = "DCSIM_OUT_LOCKED"
)

// isChild reports whether this process is a child of another dcsim.
func isChild() bool { return os.Getenv(childEnv) != "" }

// childCommand is this binary re-executed with args as a child, with env
// added to its environment.
func childCommand(ctx context.Context, self string, args []string, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", parentPIDEnv+"="+strconv.Itoa(os.Getpid()))
	cmd.Env = append(cmd.Env, env...)
	setParentDeath(cmd)
	return cmd
}

// runChild starts cmd, calls started, and waits for it, with the
// goroutine locked to its thread throughout: Linux sends Pdeathsig when
// the thread that forked the child ends, not the process (golang/go#27505),
// and the Go runtime ends a thread whose goroutine exits locked to it. A
// thread locked here runs nothing else, so it lives until the child ends.
func runChild(cmd *exec.Cmd, started func()) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return err
	}
	if started != nil {
		started()
	}
	return cmd.Wait()
}

// checkParent ends a child whose parent is no longer the dcsim that
// launched it, and on systems without Pdeathsig watches it while the
// child runs.
func checkParent() {
	pid, err := strconv.Atoi(os.Getenv(parentPIDEnv))
	if err != nil {
		return
	}
	if os.Getppid() != pid {
		os.Exit(1) // the parent died before this child could start: nobody waits for it
	}
	watchParent(pid)
}

// supervise runs args in a child process with the same standard streams
// and returns dcsim's exit status for it: the child's own status, with
// bad input mapped back to 2 and a runtime crash or a kill to 1. SIGINT
// and SIGTERM go to the child, which ends the run as it would alone.
func supervise(args []string, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		return run(args, os.Stdin, os.Stdout, os.Stderr) // cannot re-execute: run here
	}
	cmd := childCommand(context.Background(), self, args)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	err = runChild(cmd, func() {
		go func() {
			for s := range sigs {
				cmd.Process.Signal(s)
			}
		}()
	})
	if cmd.Process == nil {
		return run(args, os.Stdin, os.Stdout, os.Stderr) // could not start: run here
	}
	code, msg := childStatus(err)
	if msg != "" {
		fmt.Fprintln(stderr, "dcsim: "+msg)
	}
	return code
}

// childStatus maps a child's end to dcsim's exit status and, when the
// child could not say why itself, a message.
func childStatus(err error) (int, string) {
	if err == nil {
		return 0, ""
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 1, err.Error()
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	switch {
	case ok && ws.Signaled() && ws.Signal() == syscall.SIGPIPE:
		return 128 + int(syscall.SIGPIPE), "" // its reader went away (dcsim scenarios | head): no news
	case ok && ws.Signaled() && (ws.Signal() == syscall.SIGINT || ws.Signal() == syscall.SIGTERM):
		// A command that does not catch them (validate, report) stops
		// where it is: no crash, and it writes nothing.
		return 128 + int(ws.Signal()), "interrupted"
	case ok && ws.Signaled():
		msg := "killed by signal " + ws.Signal().String()
		if ws.Signal() == syscall.SIGKILL {
			msg += " (the system may have run out of memory)"
		}
		return 1, msg
	case ee.ExitCode() == exitChildBadInput:
		return 2, ""
	case ee.ExitCode() == 2:
		return 1, "crashed: a Go runtime error (above) ended the run; this is a bug or a lack of memory, not bad input"
	}
	return ee.ExitCode(), ""
}

// pointRunner runs each sweep point as "dcsim sweep FILE --point I" in a
// child process with a memory budget. A child that fails records the
// failure itself (error.txt); one that dies (a Go fatal error such as
// running out of memory, or a kill) cannot, so the runner records it,
// with the end of the child's stderr.
//
// Once ctx is done (the sweep was interrupted) no point starts, the
// running ones get the signal (interrupt.go: the cause) and end as an
// interrupted run does, and the runner returns context.Cause(ctx), which
// sweep.Run counts as pending, not failed. A child that ignores the
// signal is killed after pointStopDelay.
func pointRunner(ctx context.Context, sweepFile, out string, memory int64) func(p *sweep.Point, dir string) error {
	return func(p *sweep.Point, dir string) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		self, err := os.Executable()
		if err != nil {
			return sweep.RecordFailure(dir, p, err)
		}
		cmd := childCommand(ctx, self, []string{"sweep", sweepFile, "--point", strconv.Itoa(p.Index), "--out", out, "--quiet"},
			pointMemoryEnv+"="+strconv.FormatInt(memory, 10), outLockedEnv+"=1")
		cmd.Cancel = func() error { return cmd.Process.Signal(signalOf(ctx)) }
		cmd.WaitDelay = pointStopDelay
		var tail tailBuffer
		cmd.Stderr = &tail
		err = runChild(cmd, nil)
		if err == nil {
			return nil
		}
		code, msg := childStatus(err)
		if code == 128+int(syscall.SIGINT) || code == 128+int(syscall.SIGTERM) {
			// Ctrl-C reaches the points and the sweep at once: give the
			// sweep's own handler a moment to see it.
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
		switch {
		case ctx.Err() != nil:
			return context.Cause(ctx)
		case code == 128+int(syscall.SIGINT) || code == 128+int(syscall.SIGTERM):
			// The point alone was signalled: it left no error.txt.
			return sweep.RecordFailure(dir, p, fmt.Errorf("point process: interrupted by a signal sent to it alone (exit %d)", code))
		}
		if msg == "" {
			// The child recorded its own failure; its last line says what.
			return errors.New(strings.TrimPrefix(tail.lastLine(), "dcsim: "))
		}
		if code == 1 && strings.Contains(tail.String(), "out of memory") {
			msg = fmt.Sprintf("ran out of memory (budget %d MiB per point; see --point-memory)", memory>>20)
		}
		return sweep.RecordFailure(dir, p, fmt.Errorf("point process: %s\n\n%s", msg, tail.String()))
	}
}

// pointStopDelay is how long an interrupted sweep waits for a point's
// child to stop by itself (at the end of its chunk of simulated time)
// before killing it.
const pointStopDelay = 10 * time.Second

// tailBuffer keeps the last 16 KiB written to it.
type tailBuffer struct{ b []byte }

const tailBytes = 16 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if len(t.b) > tailBytes {
		return string(t.b[len(t.b)-tailBytes:])
	}
	return string(t.b)
}

func (t *tailBuffer) lastLine() string {
	lines := bytes.Split(bytes.TrimRight(t.b, "\n"), []byte("\n"))
	return string(lines[len(lines)-1])
}

// applyPointMemory enforces a point child's budget, in bytes, from
// pointMemoryEnv: the Go heap's soft limit is set to it, a watchdog ends
// the point once its live heap exceeds it, with the failure recorded in
// error.txt, and the address space is capped at the budget plus 2 GiB (the
// runtime's own reservations) so that one giant allocation fails inside
// the child instead of exhausting the machine.
func applyPointMemory(p *sweep.Point, dir string) {
	budget, err := strconv.ParseInt(os.Getenv(pointMemoryEnv), 10, 64)
	if err != nil || budget <= 0 {
		return
	}
	debug.SetMemoryLimit(budget)
	lim := uint64(budget) + 2<<30
	limitAddressSpace(lim)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for range time.Tick(50 * time.Millisecond) {
			metrics.Read(sample)
			if used := int64(sample[0].Value.Uint64()); used > budget {
				err := sweep.RecordFailure(dir, p, fmt.Errorf("ran out of memory: the live heap reached %d MiB, above the budget of %d MiB per point (--point-memory)", used>>20, budget>>20))
				fmt.Fprintln(os.Stderr, "dcsim: "+err.Error())
				os.Exit(1)
			}
		}
	}()
}

// defaultPointMemory is the machine's memory divided among the workers,
// or 0 (no budget) when /proc/meminfo cannot be read.
func defaultPointMemory(workers int) int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10 / int64(max(workers, 1))
		}
	}
	return 0
}
