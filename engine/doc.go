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
// with everything else equal, the wheel saves most of the heap's sifts,
// about half of a network run's instructions.
//
// The bucket width (issue #19). A 128-host network at 50% load has about
// 9 events per ns, so wide buckets hold several events, and an event that
// lands before its bucket's last one walks the list from its head; events
// are often out of order (a transmission ends 80 ns ahead, a chained
// delivery the gap to the next packet, an ACK 4.8 ns). With 32 ps buckets
// a bucket nearly always holds the events of one time, which arrive in
// sequence order: out-of-order inserts are a few percent, and no bucket
// is served as a heap. Most buckets are empty, so the wheel finds the next
// non-empty one from a summary word per 64 bitmap words. A bucket keeps
// only its ring's last node (4 bytes, 16 to a line), so a line covers
// 512 ps: 8-byte buckets with first and last pointers cost the
// memory-bound deep-queue case. The window is 1.05 us (32768 buckets,
// 128 KiB of tails) so that events up to about a microsecond ahead stay
// in the wheel; a delivery onto an idle 1 us link (1.08 us ahead) still
// goes to the heap, 0.5-1.5% of the events. The total order is unchanged
// (time, then sequence), so no output depends on the width. Measurements:
// docs/performance-notes.md, section 3.2 (and "Events per packet and the
// event queue", section 2.6).
//
// # Randomness
//
// NewStream(seed, name) and Sim.Rand(name) derive an independent PCG
// stream from the scenario's one seed and a stream name ("ecmp", "ecn",
// "workload", ...), so adding a component never changes another's draws.
// There is no global random state.
//
// # Parallel runs
//
// A World cuts one simulation into units fixed by the model (a leaf with
// its hosts, a spine), run by threads in windows one lookahead long (the
// smallest delay between units); events sent across units (Sim.Send,
// Sim.Hand) enter their queue at the window's end in an order that depends
// on the simulation only, so every unit sees the same events in the same
// order for every thread count. docs/parallel.md has the design, the
// determinism argument and what of the network still has to move onto it.
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
