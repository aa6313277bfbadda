//go:build unix

package main

import (
	"runtime"
	"syscall"
)

// cpuSeconds is the process's user and system CPU time: on a shared
// machine it measures a run's own work where wall time also counts the
// other processes' (the GC's work on the second core counts too).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// maxRSSMiB is the process's peak resident set (ru_maxrss, which Linux
// gives in KiB and macOS in bytes).
func maxRSSMiB() (float64, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return float64(ru.Maxrss) / (1 << 20), true
	}
	return float64(ru.Maxrss) / 1024, true
}
