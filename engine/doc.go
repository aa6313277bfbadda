// Package engine is dcsim's discrete-event core: simulated time, the event
// queue, the run loop and the seeded random streams.
//
// # Time
//
// Time is an int64 count of picoseconds. At 100 Gbps one byte takes exactly
// 80 ps and at 400 Gbps 20 ps, so serialization times of whole bytes are
// exact at every common rate (Rate.TxTime rounds up for the others). There
// is no floating-point time anywhere in the core. Rate is bits per second
// (SI: 1 Gbps = 10^9 b/s). ParseTime, ParseRate and ParseSize read the
// scenario forms ("1us", "100Gbps", "32MiB"; KB = 1000 B, KiB = 1024 B)
// and String/FormatSize print them back exactly. NS3Seconds and
// Rate.TxTimeWholeNs reproduce ns-3's truncating Seconds(double) at its ns
// resolution, for the reference-compatibility profile only.
//
// # Events
//
// Events are ordered by (time, sequence number assigned when scheduled), so
// ties pop in FIFO order and a run is deterministic. An event is a value
// (32 bytes: time, sequence and kind, handler); scheduling and firing
// allocate nothing once the queue has grown to its peak. A handler is any
// type with Fire(now, kind): components multiplex their event types with
// the kind byte instead of allocating a closure per event. Timers that are
// re-armed often are cancelled lazily: the handler checks, when fired,
// whether the deadline still holds.
//
// The queue is kept small by the components: a link keeps its packets in
// flight in its own ring and has only its next delivery in the queue, and a
// NIC keeps one retransmission check per host rather than one per QP.
//
// Measured choice: a timing wheel (32768 buckets of 32 ps, a 1.05 us
// window, sorted rings threaded through one recycled node pool) in front
// of a 4-ary heap for events beyond the window. In a packet network nearly
// every event is a serialization time or a gap between packets ahead, so
// it lands in the wheel, where scheduling is an append and firing takes a
// list head; the heap holds the few far timers (retransmission checks, CC
// timers, flow arrivals, first deliveries onto idle links). A bucket whose
// events arrive badly out of order is served as a small heap, so no
// event-time distribution is pathological. Against the 4-ary heap alone,
// with everything else equal, the 1 ms BenchmarkNetwork run executed 27%
// fewer instructions with the first wheel (cachegrind: 5.7G against 7.9G;
// the heap's sifts alone were 3.8G) and ran about 30% faster.
//
// The bucket width (2026-12-02, issue #19). A 128-host network at 50% load
// has about 9 events per ns, so a 512 ps bucket (the first wheel: 8192 of
// them, 4.2 us) held several, and an event that landed before its
// bucket's last one walked the list from its head: 25% of the inserts in
// BenchmarkNetwork/dcqcn and 47% in BenchmarkFlowList/streamed, whose
// events are more often out of order (a transmission ends 80 ns ahead, a
// chained delivery the gap to the next packet, an ACK 4.8 ns). With 32 ps
// buckets a bucket nearly always holds the events of one time, which
// arrive in sequence order: out-of-order inserts are 2.0% and 2.6% (0 in
// /control), and no bucket is served as a heap. Most buckets are empty, so
// the wheel finds the next non-empty one from a summary word per 64
// bitmap words. A bucket keeps only its ring's last node (4 bytes, 16 to a
// line), so a line covers 512 ps (the first wheel's covered 4 ns): with
// first and last pointers (8-byte buckets) and a 2.1 us window,
// BenchmarkDeepQueues/none (a million packets queued, memory bound) lost
// 5-11% in 4 of 4 interleaved runs. The window is 1.05 us (32768
// buckets, 128 KiB of tails): with 524 ns (16384 buckets, until
// 2026-12-02) BenchmarkQueue's uniform 1 us spread went half to the far
// heap and pending=1e3 ran 4.6x slower than with the 512 ps wheel; over 6
// old-new-new-old runs each (load average 8-15) pending=1e3 went 201 -> 91
// ns (-55%, p = 0.015), pending=1e1 172 -> 78 ns and 1e5 1.21 -> 1.07 us
// (both ~); BenchmarkNetwork/dcqcn 394k -> 404k pkts/cpu-s (p = 0.82)
// and BenchmarkFlowList/streamed 214k -> 200k (p = 0.49) did not move
// (both a third of their usual speed on the loaded machine). A delivery
// onto an idle 1 us link (1.08 us ahead) still goes to the heap: 0.5-1.5%
// of the events. The total order is unchanged (time, then sequence), so
// no output changed; the measurements are in docs/performance-notes.md
// ("Events per packet and the event queue").
//
// # Randomness
//
// NewStream(seed, name) and Sim.Rand(name) derive an independent PCG
// stream from the scenario's one seed and a stream name ("ecmp", "ecn",
// "workload", ...), so adding a component never changes another's draws.
// There is no global random state.
//
// # Invariants
//
// Built with -tags invariants, Run calls the function given to SetCheck
// after every event; the rnic package uses it to assert byte conservation
// and the fabric's accounting at every step.
//
// Example:
//
//	sim := engine.NewSim(1)
//	sim.At(5*engine.Microsecond, handler, 0)
//	sim.Run(engine.Millisecond)
package engine
