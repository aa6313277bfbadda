// Package halo is the one-sided ring-buffer halo exchange of docs/model.md
// §9.2 (arXiv 2607.20639, Monte Carlo particle transport): the workload
// that asks whether a passive receiver can see a new tail before the data
// it publishes.
//
// # The protocol
//
// Ranks sit on a 3-D grid (Grid; neighbours share a face, Periodic wraps
// the axes), one rank per host. Every ordered pair of neighbours (Pair) is
// a lock-free single-producer single-consumer ring of RingCapacity
// particles of ParticleBytes each at the receiver, with two 8-byte
// counters there: tail (written by the sender only) and head (by the
// receiver only). The sender sends Particles particles in batches of Batch
// (the last one may be short); per batch (their Algorithm 1), on one QP:
//
//  1. RDMA READ of the remote head (8 B; its value is the head when the
//     request reaches the receiver, rnic.Cluster.OnRead); if the ring has
//     no room for the batch, the READ is repeated a PollInterval later;
//  2. RDMA WRITE of the batch at tail % RingCapacity, two WRITEs when it
//     wraps (WriteSpans);
//  3. ATOMIC FETCH_ADD of the batch size on the remote tail, posted right
//     behind the WRITEs, without a fence (the paper's assumption);
//  4. when the FETCH_ADD completes, the next batch begins.
//
// The receiver is passive: every PollInterval it loads the tail with
// ordinary loads and no fence, consumes every particle below it and
// stores its head. TwoSided replaces 1-3 by one SEND of the batch into the
// ring (two-sided SEND/RECV with enough receives posted: no READ, no
// ATOMIC); its receive completion is written after its data, so it is
// visible with its last byte.
//
// # Memory visibility and the ordering check
//
// The NIC places payload at rnic.Cluster.OnPlace (in order under
// go-back-N, on arrival under selective repeat) and executes the
// FETCH_ADD at OnAtomic, when the responder mode says (rnic.Config.Atomics:
// inorder, ooo-eager, ooo-ordered; rnic.Config.ImplicitFence). Each DMA
// write becomes visible to the host CPU Memory.DMADelay later (default 0),
// plus, with Memory.Relaxed (PCIe relaxed ordering), an independent delay
// drawn uniformly from [0, RelaxedMax) out of the run's seeded stream. A
// batch is a violation when its new tail is visible before all of its
// payload bytes are (docs/model.md §9.3); Stale counts the particles the
// receiver actually consumed before their bytes were visible. Publish
// latency is from the first WRITE posted to the tail visible.
//
// RelaxedMax's default (1 us, in the scenario) is ours: docs/model.md §9.3
// gives no distribution; 1 us is of the order of a PCIe round trip under
// load, and a uniform draw is the least-assuming shape. Any positive bound
// shows the effect, which grows with it.
//
// # Invariants
//
// Checked as the exchange runs (a broken one panics under -tags
// invariants, else Check returns it): 0 <= tail - head <= RingCapacity at
// every publication; a ring slot is written only with the particle it
// expects and read only once (a slot is marked consumed when read); per
// batch 1 READ (more only while the ring was full), 1 or 2 WRITEs and 1
// FETCH_ADD (one SEND when two-sided). Check adds, once Done, that
// particles sent = particles received.
//
// Measured (TestPublishOrdering: 2x2x2 grid, 8 ranks on two leaves joined
// by 4 spines whose wires from leaf 0 are 1, 1.5, 2 and 2.5 us, per-packet
// spraying, 640 particles per pair, 240 batches): inorder, ooo-ordered
// and ooo-eager with the implicit fence 0 violations; ooo-eager 60 of
// 240, with 1,123 particles read before they were visible.
package halo
