package wiring

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// fullDisk fails every write, as a file on a full disk does.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A run whose spill file cannot be written stops at the end of that
// chunk, with one line naming the file, and leaves no file behind; it
// went on keeping the refused rows in memory until the machine ran out
// (issue 27, item 2).
func TestFullDiskStopsRun(t *testing.T) {
	sim := mustBuild(t, "default", "duration=300us", "workload.distribution=googlerpc", "trace.interval=10us")
	dir := t.TempDir()
	res := sim.Run(Options{RunID: "r", Dir: dir, holdRows: 256, spillWriter: func(io.Writer) io.Writer { return fullDisk{} }})
	if now, dur := sim.Engine.Now(), engine.Time(sim.Scenario.Duration); now >= dur/2 {
		t.Errorf("the run went on to %v after its spill failed, want a stop in its first half (%v)", now, dur/2)
	}
	err := res.WriteDir(dir)
	if err == nil || !strings.Contains(err.Error(), "spilling flow rows to "+dir+"/.flows-spill-") ||
		!errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %v, want one line naming the spill file and ENOSPC", err)
	}
	assertEmpty(t, dir)
}

// A run whose Options.Context is cancelled stops at the end of the chunk
// under way, removes the files it was streaming and returns the cause.
func TestContextStopsRun(t *testing.T) {
	sim := mustBuild(t, "default", "duration=300us", "trace.interval=10us")
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	interrupted := errors.New("interrupted")
	chunks := 0
	res := sim.Run(Options{RunID: "r", Dir: dir, Context: ctx, Progress: func(Progress) {
		if chunks++; chunks == 2 {
			cancel(interrupted)
		}
	}})
	if chunks != 2 {
		t.Errorf("got %d chunks, want 2: the run goes on after its context is done", chunks)
	}
	if err := res.WriteDir(dir); !errors.Is(err, interrupted) {
		t.Errorf("got %v, want the cancel cause", err)
	}
	assertEmpty(t, dir)
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		t.Errorf("%s left in %s", e.Name(), dir)
	}
}
