// Package mpitrace runs reconstructions of the two MPI traces of the
// ARN+AFI paper (docs/model.md §10.2, "Traces": PTRANS and Inception-v3,
// each with an injected incast) as dependent messages on the simulated
// fabric. The paper's trace files are not public and not available here,
// so the traces are generated from the applications' published
// communication structure; what that cannot reproduce is listed at the
// end.
//
// # Programs and their execution
//
// A Program gives every rank the same number of Phases per iteration. A
// phase is posted Gap after the rank's previous phase completed (or its
// iteration began) and not before At from the iteration's start; it
// posts its Sends at once (one RDMA SEND each, rnic.Cluster.Post) and
// completes when every one is acknowledged and Recvs messages of the
// same phase index have reached the rank. "Reached" is the message's
// completion (the ACK of its last byte at its sender), as in package
// simai's executor: it is later than the last byte's arrival by the ACK's
// way back, a few hundred ns here. An iteration ends Tail after its last
// phase, and not before Span from its start (compute that overlaps the
// phases); the next begins then. Exec is the executor: a state machine
// per rank woken by its timer and its messages' completions; Exec.Log
// records every message (ranks, iteration, phase, posted, finished) and
// mpitrace.exec_ns in run.parquet is from the start to the last rank's
// end. Messages carry Generator "mpitrace" and Tag "<app>/i<it>/p<phase>".
// They are not rows of flows.parquet: like halo's, they are posted by a
// closed-loop workload (scenario.ClosedLoop), not a flow generator. So
// dcsim run's summary (wiring.Result.Headline) prints no flows count for
// a run of mpitrace alone but one line per trace, e.g. "mpitrace ptrans:
// 16 ranks, 5 iterations, 60 of 60 messages done (637MB posted);
// execution time 6.357 ms (to the last rank's end, its final compute
// included)": the execution time is mpitrace.exec_ns, and exceeds the
// simulated time by the last iteration's Tail, which is computed, not
// simulated.
//
// Invariants (Exec.Check): no rank receives more messages of a phase
// than the program sends it (Program.Validate proves the counts match
// before the run); once every rank has finished, every message posted is
// done and the bytes posted are Iterations x Program.Bytes.
//
// # PTRANS (HPC Challenge)
//
// PTRANS computes C = C + A^T for an N x N matrix of doubles distributed
// block-cyclically in NB x NB blocks over a P x Q process grid: block
// (I, J) lives on process (I mod P, J mod Q), rank p*Q + q. Its transpose
// block (J, I) lives on (J mod P, I mod Q), so every block travels to
// that process (on a square grid each process exchanges everything with
// its transpose partner (q, p), and the diagonal keeps its blocks). Per
// iteration a process sends one message per destination process holding
// all the blocks for it, then updates its local elements: Tail =
// UpdateTime, 24 B per element (read A and C, write C) at memory_rate,
// for the busiest process. HPCC's own code (pdtrans) moves the blocks in
// lcm(P, Q)-related rounds; posting them at once keeps who-sends-what-
// to-whom and loses the rounds' order, which the paper's trace would
// have. Parameters (scenario workload.mpitrace), with the reasons:
//
//   - p, q (4 x 4 by default, to fit a k = 4 fat-tree; the experiment
//     uses 12 x 18 on the 216 even hosts of the k = 12 tree): the paper
//     does not give its process count; a non-square grid makes the
//     pattern many-to-many, not just pairs.
//   - n 4608, nb 128: HPCC sizes N to fill most of memory (GBs per
//     process), far beyond what a packet-level run can move; n is a
//     scale knob. 4608 = 36 blocks of 128, a multiple of lcm(12, 18) = 36,
//     so every process of the 12 x 18 grid holds the same 3 x 2 blocks
//     (768 KiB, 63 us at 100 Gbps); nb 128 is inside the 32-256 range
//     HPL/HPCC runs use.
//   - memory_rate 800 Gbps (100 GB/s): one rank per host, so its update
//     streams at a node's memory bandwidth, of the order of a two-socket
//     server's STREAM figure. 12 x 18: 24 us per iteration.
//   - iterations 5: HPCC repeats the transpose; the count only scales
//     the run.
//
// # Inception-v3 (data-parallel training)
//
// Ranks GPUs (one per host) train Inception-v3 data-parallel: per
// iteration a forward pass, a backward pass that produces the fp32
// gradients of Params parameters at a uniform rate, and an allreduce of
// the gradients in buckets of Bucket bytes as they become ready (the
// last bucket short), each a ring allreduce: reduce-scatter then
// allgather, 2(n-1) steps, in each of which every rank sends one chunk,
// ceil(bucket/n) B, to its successor and waits for its predecessor's
// (NCCL's ring for large messages). A bucket's allreduce starts when its
// gradients are ready and the previous bucket's has completed at the
// rank, as on one communication stream. The iteration lasts at least
// step_time (the compute); the next forward pass waits for the last
// bucket. Parameters:
//
//   - params 23,851,784: Inception-v3's weights (the Keras model with its
//     classifier; the ~23.8M of docs/model.md §10.2's source), 95.4 MB of fp32
//     gradients.
//   - bucket 25 MiB: PyTorch DistributedDataParallel's default
//     bucket_cap_mb; 95.4 MB make 4 buckets (3 x 25 MiB and 16.8 MB).
//   - step_time 451 ms: TensorFlow's published benchmark (tf_cnn_benchmarks,
//     May 2017) trains Inception-v3 at 142 images/s on one P100 with a
//     batch of 64: 64 / 142 s. A faster GPU shortens it and exposes more
//     of the allreduce (docs/studies/mpi-traces.md shows 45 ms as the sensitivity).
//   - forward_fraction 1/3: the backward pass computes gradients with
//     respect to both activations and weights, about twice the forward's
//     work, the usual estimate.
//   - ranks 16 by default (k = 4); the experiment uses 72, one per leaf
//     of the k = 12 tree: a ring's chunk crosses the fabric at every step.
//
// # What is not reproduced
//
// The traces' real timings (compute phases, the MPI library's protocol
// and message splitting, PTRANS's rounds), the paper's process count and
// process-to-node mapping, and its incast's size and timing, none of
// which the paper gives. The gradient-ready times are a uniform
// production over the backward pass, not Inception-v3's per-layer
// profile. These are reconstructions of the applications' communication
// structure, not replays of the paper's traces.
package mpitrace
