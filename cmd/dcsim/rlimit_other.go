//go:build !linux && !darwin

package main

// limitAddressSpace has no RLIMIT_AS to set on this system (Windows, the
// BSDs): a sweep point's child is bounded by the Go heap's soft limit and
// the live-heap watchdog of applyPointMemory alone.
func limitAddressSpace(lim uint64) {}
