package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
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
const (
	childEnv          = "DCSIM_CHILD"
	exitChildBadInput = 3
	// pointMemoryEnv is a point child's memory budget in bytes.
	pointMemoryEnv = "DCSIM_POINT_MEMORY"
)

// isChild reports whether this process is a child of another dcsim.
func isChild() bool { return os.Getenv(childEnv) != "" }

// supervise runs args in a child process with the same standard streams
// and returns dcsim's exit status for it: the child's own status, with
// bad input mapped back to 2 and a runtime crash or a kill to 1. SIGINT
// and SIGTERM go to the child, which ends the run as it would alone.
func supervise(args []string, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		return run(args, os.Stdin, os.Stdout, os.Stderr) // cannot re-execute: run here
	}
	cmd := exec.Command(self, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), childEnv+"=1")
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return run(args, os.Stdin, os.Stdout, os.Stderr)
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
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
func pointRunner(sweepFile, out, version string, memory int64) func(p *sweep.Point, dir string) error {
	return func(p *sweep.Point, dir string) error {
		self, err := os.Executable()
		if err != nil {
			return sweep.RecordFailure(dir, p, err)
		}
		cmd := exec.Command(self, "sweep", sweepFile, "--point", strconv.Itoa(p.Index), "--out", out, "--quiet")
		cmd.Env = append(os.Environ(), childEnv+"=1", pointMemoryEnv+"="+strconv.FormatInt(memory, 10))
		var tail tailBuffer
		cmd.Stderr = &tail
		err = cmd.Run()
		if err == nil {
			return nil
		}
		code, msg := childStatus(err)
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
