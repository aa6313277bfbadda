// Package simai reads, writes and generates SimAI/AICB training workloads
// and executes them as dependent point-to-point transfers. It implements
// docs/model.md §7.4-7.6 and §8.4. It describes work only: it
// imports engine and nothing of the network; the scenario package turns
// its transfers into RDMA messages on the simulated fabric.
//
// # Workload files
//
// testdata/README.md describes the format field by field; the files there
// are the shipped examples (Shipped, ShippedNames). In short:
//
//	line 1: POLICY key: value ...     HYBRID_TRANSFORMER_FWD_IN_BCKWD for LLM training
//	line 2: N                         the number of layer lines
//	N lines: name dep fwd_ns fwd_coll fwd_bytes ig_ns ig_coll ig_bytes wg_ns wg_coll wg_bytes update_ns
//
// Parse accepts the current header (model_parallel_NPU_group, ep, pp, vpp,
// ga, all_gpus, checkpoints and checkpoint_initiates with their line ids,
// pp_comm with or without its colon, also as "1310720.0" as AICB writes it
// with sequence parallelism) and the old one that names only the TP group;
// absent keys default to ep = pp = vpp = ga = 1, all_gpus = 0 (unknown),
// pp_comm = 0. Unknown "key: value" pairs are kept (Workload.ExtraHeader)
// and ignored, as SimAI ignores them; any other stray token is an error.
// Policies HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER (identical
// without checkpoints) and MICRO are accepted. Blank lines after line 2
// are skipped; fewer or more than N layer lines is an error. Times are
// whole ns (engine.Time in the structs), sizes whole bytes. Collective
// tokens are NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL and
// ALLREDUCEALLTOALL, optionally with _EP or _DP_EP; matching is exact and
// case-sensitive. BROADCAST, which AICB writes (its "norm" line), is no
// collective, as in SimAI, and is kept in Comm.Unknown with its size so
// that Write reproduces it; any other token is an error at its line
// (SimAI would run it as no collective, which hides a typo). An unsuffixed token means the TP group in the fwd and ig
// columns and the DP group in the wg column (the whole world for MICRO).
// Sizes are stored as written; Line.CommBytes applies SimAI's rule that a
// forward size in (0, 4096) runs as 4096. Errors read "name:LINE: field:
// reason". Write writes the same format with tabs, the old header when
// the workload has only old-header information (the AICB files come back
// byte-identical) and the current header otherwise; Parse(Write(w)) == w.
//
// # Execution (docs/model.md §7.5)
//
// Every GPU rank runs the same program, compiled once from the lines:
//
//	forward, line 0 .. N-1:  wait for this line's wg collective of the previous pass;
//	                         compute fwd_ns; run the fwd collective, blocking
//	backward, line N-1 .. 0: compute ig_ns; run the ig collective, blocking;
//	                         compute wg_ns; start the wg collective, non-blocking
//	end of pass:             wait for every outstanding collective; next pass
//
// A collective "runs" when its op is not NONE, its executed size is > 0
// and its group has at least two ranks; otherwise it is skipped entirely,
// as SimAI skips a collective whose dimensions are inactive. update_ns is
// SimAI's delay after each collective of the line: a blocking collective
// releases its rank update_ns after the rank's part completes, a
// non-blocking one counts as finished update_ns after. A line whose
// collective does not run adds no update delay. MICRO workloads run line
// after line: fwd+ig+wg compute, then the wg collective over every GPU,
// blocking, then update_ns.
//
// Ranks are independent state machines joined only by their collectives:
// each (pass, line, phase, group) is one collective instance, created by
// the first member that issues it; a member may receive flows before it
// issues its part, but sends nothing until it has. A rank's part of
// a collective completes when it has received every flow addressed to it
// (the flow's last ACK reached its sender) and every flow it sent has been
// serialised (see "Rules taken from SimAI").
//
// IterationStat i runs from the earliest rank starting pass i to the last
// rank finishing it (after its outstanding collectives); Compute is the sum
// of fwd_ns + ig_ns + wg_ns (the same on every rank) and ExposedComm =
// Duration - Compute, which includes the update delays. CollectiveStat has
// one row per collective instance (per group): Issued when its first
// member issued it, Start when its first flow was posted, End when its
// last member finished, before the update delay; Name is "<line>.<phase>".
// Transfer.Tag is "i<iteration>/L<line>/<line name>.<phase>/<group>/s<step>"
// with "c<channel>" appended when the collective has more than one ring.
//
// # Rules taken from SimAI
//
// dcsim follows SimAI (aliyun/SimAI, astra-sim-alibabacloud, read at
// b5ff47c9 and at its 1.7 head cef83f9d) rule by rule; each is a default,
// and where a researcher may want the old behaviour a RunConfig field
// (and a scenario key) keeps it:
//
//   - Rings per group. SimAI gives every group one ring per rank it has on
//     a server: astra-sim/system/MockNcclGroup.cc gen_local_ring takes
//     nlocalranks = ranks/nNodes and makes nlocalranks rotations of the
//     first server's ranks; genringchannels chains each rotation server to
//     server (ring c = every server's local ranks rotated by c). The
//     buffer splits evenly over the rings (genReduceScatterFlowModels:
//     chunksize = data_size / nranks / ringchannels.size()). dcsim:
//     Layout.Channels and Layout.Ring; LLaMA-7B's DP groups (TP 2, 8 GPUs
//     per server) get 4 rings, GPT-13B's (TP 8) one, a TP group inside a
//     server 8 (on NVLink). All-to-all is one channel
//     (genAlltoAllFlowModels: S/n to every peer, channel 0, all at once).
//     RunConfig.Channels > 0 (scenario force_channels) forces that many
//     rings on every group instead.
//   - One collective per rank and dimension. Each rank (a Sys) has one
//     queue per dimension, and runs one stream per queue at a time
//     (system/Sys.cc: the SchedulerUnit is built with queue_threshold =
//     concurrent_streams = ceil(active_chunks_per_dimension /
//     queues_per_dim[0]) = 1; notify_stream_added inits streams only
//     while running_streams[vnet] < queue_threshold). The ns-3 front end
//     (network_frontend/ns3/AstraSimNetwork.cc) builds one dimension with
//     one queue; Workload::initialize_workload calls Sys::break_dimension
//     at the TP size, which splits it into a model and a data dimension,
//     one queue each, and decode_involved_dimensions puts the fwd and ig
//     columns on the model dimension and the wg column on the data
//     dimension, whatever group a line names (TP, EP, DP, DP_EP). A
//     collective is one stream (determine_chunk_size with
//     preferred_dataset_splits 1). A new stream is inserted behind the
//     running one and ahead of every older waiting one: insert_stream
//     (FIFO intra-dimension scheduling) skips initialised streams and
//     streams of priority >= its own, and get_priority under the default
//     LIFO policy hands out increasing priorities. So a rank runs at most
//     one fwd/ig and one wg collective at a time, and its waiting wg
//     collectives start newest first. The queue is per rank, as in SimAI,
//     with one difference: on the data dimension a rank follows its peers.
//     A waiting collective that a peer has already started goes first (the
//     newest such), and a rank whose peer has started one it has not
//     issued yet waits for it (the model dimension's collectives block, so
//     its queue never holds two).
//     SimAI decides per rank alone, which deadlocks when two ranks of a
//     group release their queues on either side of the newest issue and
//     pick different collectives; its lock-step analytical timing never
//     does, but a network's does: examples/train-dp-buckets.yaml with SRPT
//     stalled so before this rule (TestQueueFollowsPeers is the minimal
//     case). Where SimAI would not deadlock, within one group, both pick
//     the same. RunConfig.OverlapDP (scenario
//     overlap_dp_collectives) starts every wg collective when issued, as
//     dcsim did before.
//   - Step dependencies. A ring flow waits for its sender to have received
//     the previous step on the same ring (SingleFlow prev = the ring
//     predecessor), not for the sender's own earlier sends.
//   - Completion. SimAI's ns-3 front end (network_frontend/ns3/entry.h)
//     releases a flow's sender in send_finish, called by RdmaHw's
//     SendComplete when the QP's last packet has been transmitted, and its
//     receiver in qp_finish, called when the ACK of the last byte reaches
//     the sender (notify_receiver_receive_data). Run.Sent and Run.Done are
//     these two events; a driver that calls only Done releases both then.
//   - QPs. SendFlow opens a new QP per flow (source port
//     portNumber[src][dst]++, priority group 3): the scenario's training
//     built-ins use per-flow QPs (nic.qp_mapping, the default).
//   - Send latency. SendFlow starts each flow's application send_lat
//     later (RunConfig.SendLatency, default 6us). SimAI 1.7 (entry.h at
//     cef83f9d) reads send_lat_table_nvlink / send_lat_table_net by
//     algorithm and protocol instead, NVLink when src/gpus_per_node ==
//     dst/gpus_per_node: Ring 7200 / 15900 / 11800 over NVLink and
//     9300 / 18000 / 22400 over the network for LL / LL128 / Simple
//     (SendLatencyFor; RunConfig.SendLatencyTable, scenario
//     send_latency_table). The unit: the table's comments and SimAI's
//     docs (docs/configuration/send-lat-analysis.md) say ns, NCCL 2.30's
//     base plus hardware latencies in µs times 1000, and the code then
//     multiplies by 1000 "into ns-3's ps". But ns-3 counts ns here (the
//     HPCC model's FCTs are ns), so the build applies every value in µs,
//     1000 times larger. SimAI's own A/B table in that doc shows it
//     exactly: microAllReduce (two all-reduces, 14 steps each, on 8 GPUs
//     of one server) takes 1,604 + 28 x 6,000 = 169,604 us with
//     AS_SEND_LAT=6000 and 1,604 + 14 x 15,900 + 14 x 11,800 = 389,404 us
//     with the table (LL128 for the 16 MiB all-reduce, Simple for the 64
//     MiB one). So AS_SEND_LAT is µs in practice, as docs/model.md §7.6 says,
//     and the code's default of 6000 (used when AS_SEND_LAT is unset)
//     would be 6 ms. dcsim takes the table in ns, as its authors mean
//     (9.3 us for a network LL ring step), and the fixed default as 6us;
//     send_latency reproduces the build's values if needed. The protocol
//     is SimCCL's choice from the message size, which is not public (the
//     A/B table shows LL128 at 16 MiB and Simple at 64 MiB over NVLink);
//     dcsim takes it from RunConfig.Protocol, default Simple, the choice
//     for the large ring steps that dominate training: the send latency
//     is exposed once per ring step, and LLaMA-7B's iteration moves by
//     0.05 ms between LL and Simple (docs/validation.md, "Against SimAI"). dcsim reads the Ring row for
//     all-to-all too.
//
// # Collectives to flows (docs/model.md §7.6)
//
// Layout places ranks: rank r on host r/GPUsPerHost; TP group i = ranks
// [i*TP, (i+1)*TP); DP group j = {j, j+TP*PP, ...}; EP groups take the same
// TP index in EP consecutive TP groups; DP_EP groups take every EP-th TP
// group (with PP = 1; see Layout for the general rule). The world size is
// RunConfig.GPUs, or all_gpus when that is 0; it must be a multiple of
// TP*PP and of GPUsPerHost, and EP must divide DP.
//
// Every collective is a ring (ALLREDUCEALLTOALL too) except all-to-all,
// which is direct. With n ranks and C channels (Layout.Channels: the
// group's ranks per host, or RunConfig.Channels when set) a ring flow
// carries S/(n*C) bytes: channel c carries part c of
// S split into C near-equal parts, cut into n chunks, and the flow moves
// one chunk; remainders go to the low-numbered parts, and every flow
// carries at least 1 byte. All-reduce takes 2(n-1) steps, reduce-scatter
// and all-gather n-1; each rank sends step k to its ring successor once it
// has issued the collective and received step k-1 (step 0 at once).
// All-to-all sends S/(n*C) to each of the n-1 peers at once. Channel c's
// ring takes the group host by host with each host's ranks rotated by c;
// with one GPU per host all channels share one ring. Every send is posted
// SendLatency after it becomes ready (default 6us), or SendLatencyFor's
// table value. Expand returns the same flows as a static DAG.
//
// Transfers between GPUs of one host never reach the network: each GPU has
// one NVLink egress of NVLinkRate (default 2400 Gbps, A100 NVLink 3 per
// direction) on which its intra-host transfers are serialised in the order
// they become ready; the Run completes them itself with a Wake.
//
// # Driving a Run
//
// Run is a state machine with no clock. Start(now) returns the first
// Actions; a Post action asks the driver to send Transfer (host Src to host
// Dst, Bytes) at time At, to call Sent(t, ID) when its last byte has been
// serialised onto the sender's link and Done(t, ID) when that byte is
// acknowledged; a Wake action asks for Wake(At, Token). Tokens are opaque.
// Every returned slice is valid until the next call on the Run; actions are
// never in the past. The run is deterministic: the same calls in the same
// order produce the same actions and IDs. RunIdeal drives a Run on an
// ideal network (every transfer takes a given time, no contention): an
// oracle and a lower bound. Calling Done or Wake with an ID or token the
// Run did not hand out panics.
//
// RunConfig.CommScale and ComputeScale multiply every collective size (to
// the nearest byte, at least 1) and compute time (to the nearest ps), as
// SimAI's comm_scale and compute_scale do; update delays are not scaled.
// DefaultRunConfig: GPUs 0 (from all_gpus), GPUsPerHost 1, NVLinkRate
// 2400 Gbps, Iterations 1, SendLatency 6us (SendLatencyTable off,
// Protocol Simple), Channels 0 (per group), OverlapDP off, scales 1. NewRun
// uses the values as given and rejects invalid ones by field name.
//
// # Micro-benchmarks
//
// Microbench(op, S, n) is a one-line workload whose iteration is one
// collective of S bytes over n GPUs (TP 1, the wg column, so the 4096 B
// forward minimum does not apply), with no compute and no update delay.
// BusBandwidth follows NCCL: algbw = S/t, busbw = algbw*2(n-1)/n for
// all-reduce and algbw*(n-1)/n for reduce-scatter, all-gather and
// all-to-all, in Gbps; a ring all-reduce with no latencies on an ideal
// network reaches exactly the link rate.
//
// # Generated workloads
//
// Generate(m, p, gpu) writes one iteration of Megatron-LM training without
// sequence parallelism in the same format. Built-in models (Models):
//
//	name       layers hidden heads ffn    vocab  other
//	gpt3-13b   40     5120   40    20480  50257  LayerNorm+biases, learned positions, tied output, GeLU MLP
//	gpt3-175b  96     12288  96    49152  50257  as gpt3-13b
//	llama-7b   32     4096   32    11008  32000  RMSNorm, no biases, rotary, untied output, SwiGLU MLP
//	llama-65b  80     8192   64    22016  32000  as llama-7b
//	mixtral-8x7b 32   4096   32    14336  32000  as llama-7b, 8 experts, top-2 (attention counted as multi-head)
//
// all with sequence length 2048 and micro-batch 1. GPT-3 13B uses
// Megatron's (and AICB's) hidden 5120, 12.85B parameters; the paper's
// 5140 would give 13.0B. The vocabulary is padded to a multiple of 128*TP
// as Megatron does (50257 -> 51200 at TP 8).
//
// Lines, per TP rank of one pipeline stage (Layers/PP transformer layers;
// with PP > 1 the stage still holds the embedding and the output layer, as
// AICB's files do):
//
//	grad_gather        wg ALLGATHER 2P over DP (distributed optimizer, bf16 parameters)
//	grad_reduce        wg REDUCESCATTER 4P over DP (fp32 gradients), or
//	grad_allreduce     wg ALLREDUCE 4P with Parallelism.DPAllReduce
//	per micro-batch (GA times):
//	  embedding_layer  fwd ALLREDUCE 2bsh over TP
//	  attention_layer  fwd and ig ALLREDUCE 2bsh over TP   } per layer
//	  mlp_layer        fwd and ig ALLREDUCE 2bsh over TP   }
//	  output_layer     ig ALLREDUCE 2bsh over TP (the LM head's input gradient)
//	  cross_entropy1-3 fwd ALLREDUCE 4bs over TP (max, target logit, sum of exp)
//	optimizer1-4       fwd ALLREDUCE 4 B over TP (as AICB; runs as 4096 B)
//
// with b = micro-batch, s = sequence, h = hidden, P = parameters per TP
// rank (Model.Params). TP collectives vanish at TP 1, DP ones at DP 1.
// With Parallelism.OverlapGradReduce the gradient reduction is split by
// line instead (Megatron's --overlap-grad-reduce): each line of the first
// micro-batch block, whose backward runs last, carries the reduction of
// its own parameters, so it overlaps the rest of the backward pass; the
// sizes add up to 4P. The parameter all-gather stays one line. Header:
// ep, pp, vpp = layers/pp, ga, all_gpus = TP*PP*DP, pp_comm = 2bsh when
// PP > 1. update_ns is 100 on every line, AICB's value.
//
// A mixture-of-experts model (Model.Experts > 0, mixtral-8x7b) replaces
// each mlp_layer by three lines: moe_dispatch (fwd and ig ALLTOALL over
// EP of 2*TopK*b*s*h B: every token's hidden state, bf16, to each of its
// TopK experts; the ig one carries the gradients back), moe_experts (the
// MLP compute times TopK, balanced routing; its TP all-reduces) and
// moe_combine (the return all-to-all, fwd and ig). Each rank holds
// Experts/EP experts; their parameters (ParamCounts.Expert) are reduced
// and gathered over DP_EP (grad_reduce_experts, grad_gather_experts, or
// per moe_experts line with OverlapGradReduce), the rest over DP, and the
// router (h x Experts) counts with the dense parameters of moe_dispatch.
// EP must divide Experts; the all-to-all runs only with EP > 1.
//
// Parameters per TP rank t, as Megatron lays them out: attention 4h^2/t
// (+ 3h/t + h biases) + one norm; MLP 2hf/t or 3hf/t for SwiGLU (+ f/t + h
// biases) + one norm; word embedding Vp/t*h (+ s*h learned positions);
// output layer Vp/t*h unless tied (a tied layer is counted again when
// PP > 1, where the last stage keeps its own copy) + the final norm; a norm
// is 2h (LayerNorm) or h (RMSNorm). LLaMA-7B and -65B come to exactly
// 6,738,415,616 and 65,285,660,672 at TP 1, their published counts.
//
// Compute: FLOPs per micro-batch and rank, 2 per multiply-add, divided by
// TP: attention fwd 8bsh^2 + 4bs^2h (QKV and output projections; scores and
// values, causal mask not exploited), ig 8bsh^2 + 8bs^2h, wg 8bsh^2; MLP
// 4bshf (6bshf SwiGLU) in each of fwd, ig, wg; output layer 2bshVp in each.
// Embedding lookup, norms, softmax and the loss are not counted (0 ns).
// Time = FLOPs / (PeakFLOPS * Efficiency), rounded to the ns. Peaks are
// dense BF16: A100 312 TFLOPS, H100 SXM 989 TFLOPS; Efficiency defaults to
// 0.5, a typical Megatron model-FLOPs utilisation at these sizes.
//
// Compared with the shipped AICB files (TestGenerateVsShipped; GPT-13B at
// TP 8, LLaMA-7B at TP 2):
//
//   - Same: the 2bsh TP all-reduces (20,971,520 and 16,777,216 B), 81
//     forward and 81 input-gradient ones for GPT-13B, 65 and 65 for
//     LLaMA-7B; three 4bs = 8,192 B cross-entropy all-reduces; four 4 B
//     optimizer all-reduces.
//   - The input-gradient all-reduce of the output layer: AICB writes it on
//     embedding_layer, which runs last in the backward pass; we write it on
//     output_layer, which runs first, as in Megatron.
//   - AICB's "norm" line (BROADCAST 16,384 B) is not written: SimAI runs no
//     collective for it.
//   - AICB's grad_norm forward ALLGATHER of 2P over TP (3,248,619,520 and
//     6,754,926,592 B) is not written: the distributed optimizer gathers
//     parameters over DP. We write a wg ALLGATHER of 2P over DP instead
//     (3,235,072,000 and 6,738,681,856 B at our P).
//   - AICB's layernorm input-gradient ALLREDUCE of 2P over TP is not
//     written: without sequence parallelism the replicated norms need no
//     TP reduction (and theirs would be 2h per norm, not 2P).
//   - AICB's embedding_norm forward ALLREDUCE of 2Vh over TP (327,680,000
//     and 262,144,000 B, V = 32000) is not written: the tied-embedding
//     gradient all-reduce runs between the first and last pipeline stages,
//     only when PP > 1, over a group the format cannot name.
//   - DP reduce-scatter: 4P with a different P. AICB's P (1,624,309,760
//     and 3,377,463,296) is L(4h^2 + 2hf or 3hf)/t + 2Vh/t + sh with V =
//     32000 unpadded (also for GPT, whose vocabulary is 50257): weights of
//     the GEMMs only, the word embedding counted twice, a position table
//     also for LLaMA. Ours is 1,617,536,000 for GPT-13B (biases and
//     LayerNorms added, 51,200 padded words once, tied) and 3,369,340,928
//     for LLaMA-7B (no position table, RMSNorm weights added). So the
//     reduce-scatter is 6,470,144,000 vs 6,497,239,040 B and 13,477,363,712
//     vs 13,509,853,184 B.
//   - Cross-entropy lines are written per micro-batch; AICB writes them
//     once per iteration (the same with GA 1).
//   - Compute: the files carry A100 measurements; ours is the FLOPs model.
//     GPT-13B TP 8 attention fwd/ig/wg 752,000/752,000/752,000 ns in the
//     file vs 412,978/481,807/344,148 ns generated, MLP 750,000 each vs
//     688,296 each; 208.2 ms vs 134.7 ms per iteration (the file also
//     spends 28 ms on its grad_norm line). LLaMA-7B TP 2 attention
//     539,986/592,000/592,000 vs 1,101,274/1,321,528/881,019, MLP
//     486,330/529,500/529,500 vs 1,775,804 each; 104.6 ms vs 281.4 ms. The
//     file's MLP forward would need 570 TFLOPS for a SwiGLU MLP with f =
//     11008 at TP 2, above the A100's peak, so its times are not used to
//     calibrate the model.
//
// # Differences from SimAI
//
//   - One pass of SimAI's front end is one iteration; dcsim runs
//     RunConfig.Iterations passes and waits for every outstanding
//     collective at the end of each (SimAI only after the last, its next
//     forward waiting line by line); with one iteration they agree.
//   - SimAI inserts a 1-tick (1 ns) event between workload steps; dcsim
//     does not.
//   - Pipeline parallelism is not executed and SimAI's analytical bubble
//     and PP-communication terms are not computed (its ns-3 back end does
//     not add them either); pp, vpp, ga and pp_comm are read and kept.
//   - Activation checkpoints are read and ignored. SimAI ignores them too
//     in effect: its parser puts the checkpoint_initiates ids into the
//     checkpoint set, so no layer ever initiates a recompute.
//   - Only ring (and direct all-to-all) algorithms; no NVLS, tree, PXN or
//     halving-doubling; SimAI 1.7's SimCCL (Ring, PAT, NVLS and its
//     protocol choice) is not public and not modelled.
//   - SimAI's NVLink flows cross simulated NVSwitch nodes; dcsim's take a
//     per-GPU FIFO (below).
//   - NVLink is a per-GPU FIFO delay, not simulated links and NVSwitches.
//   - ALLREDUCEALLTOALL runs as a ring all-reduce on its column's group;
//     SimAI's prefix matching decodes it as an all-reduce on no group.
//   - Flows carry at least 1 byte and split remainders evenly; SimAI's
//     integer division can produce 0-byte flows.
//   - With PP > 1, EP and DP_EP groups are formed within a pipeline stage;
//     SimAI takes consecutive TP groups, which mixes stages.
//   - The world size is RunConfig.GPUs (SimAI: the topology's GPUs), with
//     all_gpus as the fallback.
//   - MICRO: SimAI issues only line 0's collective, once per pass, all
//     passes at once, non-blocking; dcsim runs every line in order,
//     blocking.
//
// # Example
//
//	w, _ := simai.Shipped("microAllReduce.txt")
//	r, _ := simai.NewRun(w, simai.DefaultRunConfig())
//	end, _ := simai.RunIdeal(r, simai.LinkTime(100*engine.Gbps, 2*engine.Microsecond))
//	fmt.Println(end, r.Iterations()[0].ExposedComm)
package simai
