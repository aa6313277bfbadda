// Package prefetch asks the CPU for cache lines ahead of their use. The
// simulator's time goes into cache misses on state last touched thousands
// of events earlier (a queued packet, the port of the next event), and a
// load issued early only helps until its result is needed: an
// out-of-order core retires nothing past a missing load, so a few of them
// in flight fill its window and stall it. A prefetch instruction retires at
// once and the line arrives while other work goes on.
//
// Go has no prefetch intrinsic for user code (the runtime's
// internal/runtime/sys.Prefetch is not importable), so Line is a
// two-instruction assembly function: PREFETCHT0 on amd64, PRFM PLDL1KEEP
// on arm64; elsewhere a plain load (prefetch_other.go). It changes no
// result, only when memory is read.
package prefetch
