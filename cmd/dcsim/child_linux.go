package main

import (
	"os/exec"
	"syscall"
)

// setParentDeath has the kernel kill the child when its parent dies
// (Pdeathsig; runChild keeps the forking thread alive meanwhile). SIGKILL,
// not SIGTERM: the child must stop at once, before a resume started by
// hand takes the directory, and the temporary files it leaves are removed
// by the next run that locks the directory.
func setParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// watchParent has nothing to do: Pdeathsig covers it.
func watchParent(pid int) {}
