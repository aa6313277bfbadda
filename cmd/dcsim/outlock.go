package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

// lockOut takes the lock on --out (scenario.LockDir) for this command, or
// part of it (a sweep shard, one --point), and then removes the temporary
// files an interrupted run left there, which only the lock's holder may
// do. The pid recorded is the dcsim the user started (a child's parent),
// the one to stop. A sweep's point children take no lock: the sweep holds
// it for them (outLockedEnv), and taking it again would fail, as flock
// locks of two processes exclude each other. Another holder is bad input
// (exit 2, naming its pid); a file system without locks is a warning.
func lockOut(stderr io.Writer, dir, part string) (*scenario.DirLock, error) {
	if os.Getenv(outLockedEnv) != "" {
		return &scenario.DirLock{}, nil
	}
	pid := os.Getpid()
	if p, err := strconv.Atoi(os.Getenv(parentPIDEnv)); err == nil && isChild() {
		pid = p
	}
	l, err := scenario.LockDir(dir, part, pid)
	var held *scenario.LockedError
	var notFile *scenario.NotLockFileError
	switch {
	case errors.As(err, &held), errors.As(err, &notFile):
		return nil, badInput(fmt.Errorf("--out: %w", err))
	case errors.Is(err, scenario.ErrNoLocking):
		fmt.Fprintf(stderr, "dcsim: warning: %v: running without a lock on --out, so nothing stops a second dcsim writing there at once\n", err)
	case err != nil:
		return nil, fmt.Errorf("--out: %w", err)
	}
	if part == "" {
		if err := wiring.RemoveTempFiles(dir); err != nil {
			l.Unlock()
			return nil, fmt.Errorf("--out: %w", err)
		}
	}
	return l, nil
}
