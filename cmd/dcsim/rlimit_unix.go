//go:build linux || darwin

package main

import "syscall"

// limitAddressSpace caps the process's address space at lim bytes
// (RLIMIT_AS), so that one giant allocation fails inside a sweep point's
// child instead of exhausting the machine. Best effort: an error leaves the
// Go heap's soft limit and the watchdog as the only guards.
func limitAddressSpace(lim uint64) {
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
}
