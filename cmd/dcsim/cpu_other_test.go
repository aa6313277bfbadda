//go:build !unix

package main

// cpuSeconds is 0 where the process's CPU time is not read (Windows): the
// benchmarks' per-CPU-second metrics then read 0 and wall-time ones stand.
func cpuSeconds() float64 { return 0 }

// maxRSSMiB is not read there either.
func maxRSSMiB() (float64, bool) { return 0, false }
