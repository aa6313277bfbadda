//go:build unix && !linux

package main

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// setParentDeath: no Pdeathsig here (macOS, the BSDs); watchParent does
// its work from the child's side.
func setParentDeath(cmd *exec.Cmd) {}

// watchParent checks every second that the parent is still pid; once it
// is not (it died and the child was re-parented), the child sends itself
// SIGTERM, which stops a run or a sweep as Ctrl-C does (its temporary
// files removed, its own children signalled).
func watchParent(pid int) {
	go func() {
		for range time.Tick(time.Second) {
			if os.Getppid() != pid {
				syscall.Kill(os.Getpid(), syscall.SIGTERM)
				return
			}
		}
	}()
}
