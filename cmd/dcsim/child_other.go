//go:build !unix

package main

import "os/exec"

// setParentDeath: Windows has no parent-death signal, and its parent pid
// does not change when the parent dies, so a child cannot tell. A child
// of a killed dcsim runs to its end (a job object would tie them; not
// done). The lock on --out still keeps a second run out of its directory
// meanwhile.
func setParentDeath(cmd *exec.Cmd) {}

// watchParent: see setParentDeath.
func watchParent(pid int) {}
