// Package analysis turns a simulation's results into records, summaries and
// parquet files: the per-flow FCT and slowdown, the reference model's ideal
// FCT, the reference analysis's percentiles and size buckets, and the
// files of a run directory (docs/design.md "Outputs"), which pandas, polars and
// DuckDB read as they are.
//
// # Slowdown
//
// The slowdown of a flow is
//
//	slowdown = fct_ns / ideal_fct_ns
//
// where fct_ns runs from the flow's post (start_ns) to the sender receiving
// the ACK of its last byte (finish_ns), and ideal_fct_ns is the standalone
// FCT of the same flow alone in the empty network, exactly as the reference
// model computes it (docs/model.md §8.1; see IdealFCT and BaseRTT). The
// per-flow slowdown column is NOT clamped: a flow faster than its ideal
// shows up with a slowdown below 1. Summaries (Summarize, SplitAt, Buckets,
// run.parquet) clamp each slowdown at 1 before averaging and taking
// percentiles, as the reference analysis does, and report how many flows
// were below 1 (BelowOne, flows_below_one).
//
// Percentiles follow the reference rule pctl(a, p) = sorted(a)[int(len(a)*p)]
// (Pctl), not an interpolating one. Summaries cover the flows whose start
// lies in the measurement window (in_window); of those, unfinished flows
// (no finish before the run ended) are counted in Unfinished and take no
// part in the statistics: they are never silently dropped. A statistic over
// no finished flow is NaN.
//
// Size buckets (Buckets, docs/model.md §8.3) sort the in-window flows by size
// and cut equal-count buckets of step percent: bucket i holds sorted flows
// [i*n/100, (i+step)*n/100) in integer arithmetic. Unfinished flows keep
// their place in the size order, so bucket edges do not depend on which
// flows finished. Where the reference script drops the largest flow, dcsim
// keeps it; empty buckets (fewer flows than buckets) are left out.
//
// # Files
//
// Every file is written atomically (WriteFileAtomic: a temporary file in
// the same directory, fsync, rename; on error nothing is left behind),
// compressed with zstd at its default level, with created_by "dcsim" and no
// timestamp, so the same records always give byte-identical files. Every
// row carries its run's run_id, unique per run (a UUIDv7 unless pinned,
// wiring.Options.RunID): two runs of one scenario and seed give files that
// differ in run_id alone, and SameRows compares them so. A
// Stream (FlowStream, SampleStream) writes a file while a run goes on, in
// batches, and gives the bytes that writing every row at once gives: it
// hands the writer whole multiples of 64 rows, where parquet-go may end a
// page (TestStreamMatchesWrite). Times
// are ns since the start of the simulation; sizes are bytes. All columns
// are required (never null) unless marked nullable.
//
// flows.parquet, one row per message (FlowRecord):
//
//	column               type     unit   meaning
//	run_id               string          the run: unique per run (run.parquet's config_hash names its scenario)
//	flow_id              int64           message id, unique within the run
//	generator            string          workload generator that made it (e.g. cloud, incast, simai)
//	tag                  string          workload-defined label (e.g. collective and step); may be empty
//	src, dst             int32           host indices
//	qp                   int64           the QP the RNIC mapped it to
//	priority_class       int32           wire priority class of its first packet (1-7; 0 is control)
//	size_bytes           int64    B      message size (payload, no headers)
//	start_ns             int64    ns     post time
//	finish_ns            int64    ns     ACK of the last byte at the sender; null if the run ended first
//	fct_ns               int64    ns     finish_ns - start_ns; null if unfinished
//	ideal_fct_ns         int64    ns     standalone FCT (docs/model.md §8.1)
//	slowdown             double   -      fct_ns / ideal_fct_ns, not clamped; null if unfinished
//	in_window            bool            start_ns in [warmup, duration): counted by the summaries
//	retransmitted_bytes  int64    B      payload bytes sent again (go-back-N, RTO)
//
// iterations.parquet, one row per training iteration (IterationRecord):
//
//	run_id               string
//	iteration            int64           0-based pass number
//	start_ns             int64    ns     start of the pass
//	end_ns               int64    ns     everything finished, the last non-blocking collective included
//	duration_ns          int64    ns     end_ns - start_ns: the iteration time
//	compute_ns           int64    ns     sum of fwd + ig + wg compute (docs/model.md §7.5)
//	exposed_comm_ns      int64    ns     duration_ns - compute_ns
//
// collectives.parquet, one row per collective of an iteration
// (CollectiveRecord):
//
//	run_id               string
//	iteration            int64
//	name                 string          the collective's name in the workload
//	op                   string          allreduce, allgather, reducescatter, alltoall, ...
//	group                string          the communication group (e.g. dp0, tp3)
//	bytes                int64    B      bytes the collective moves, as the workload states it
//	start_ns, end_ns     int64    ns     first flow posted, last flow finished
//
// samples.parquet, one row per sampled metric (SampleRecord), when the
// scenario's trace.interval is positive:
//
//	run_id               string
//	time_ns              int64    ns     sampling instant
//	component            string          "<switch>/p<port>" (e.g. "leaf0/p3"), "host<h>" (the NIC port) or "qp<id>";
//	                                     with trace metric efficiency also "network", "hotspot" and "other"
//	metric               string          queue_depth (B queued at the egress, all classes), pause_time and
//	                                     utilisation (fractions of the interval), qp_rate (b/s); efficiency
//	                                     (network: delivered / injected payload in the interval),
//	                                     injected_gbps and delivered_gbps (hotspot, other)
//	value                double
//
// batches.parquet, one row per batch of a halo workload (BatchRecord;
// workloads/halo), in the order batches start; times are ns since the
// start, -1 where the event did not happen (a two-sided batch has no READ):
//
//	run_id               string
//	batch                int64           0-based, in start order
//	pair                 int64           the ordered neighbour pair (its ring)
//	src_rank, dst_rank   int64           ranks of the grid
//	src, dst             int64           their hosts
//	particles, bytes     int64    -, B   the batch
//	writes               int64           WRITEs (1, 2 when the ring wraps), or 1 SEND when two-sided
//	head_reads           int64           READs of head (more than 1 while the ring was full)
//	hops                 int64           links between src and dst
//	packets              int64           data packets placed
//	reordered            int64           of them, placed after a packet of the batch at a higher offset
//	read_posted_ns       int64    ns     the first READ posted
//	posted_ns            int64    ns     the first WRITE (SEND) posted
//	data_visible_ns      int64    ns     the last payload byte visible to the receiver's CPU
//	tail_executed_ns     int64    ns     the FETCH_ADD executed at the receiver's NIC
//	tail_visible_ns      int64    ns     the new tail visible to the receiver's CPU
//	completed_ns         int64    ns     the FETCH_ADD (SEND) completed at the sender
//	publish_latency_ns   int64    ns     tail_visible_ns - posted_ns
//	violation            bool            tail_visible_ns < data_visible_ns
//	stale                int64           particles the receiver consumed before their bytes were visible
//
// run.parquet, one row per run (RunRecord), written last: its presence
// marks the run complete. The pinned columns come first, in this order:
//
//	run_id               string          unique per run: join the other files on it
//	config_hash          string          the resolved scenario, seed included (Scenario.Hash;
//	                                     a sweep point's directory): equal for repeats of a run
//	scenario             string          scenario name
//	scheduler            string          nic.scheduler (fair, srpt, pias, storm, ...)
//	cc                   string          cc.algorithm (none, dcqcn, hpcc, timely, dctcp)
//	workload             string          workload description (kind and distribution)
//	load                 double   -      workload.load as configured, fraction of host link rate;
//	                                     null when the main workload is not cloud (no other kind reads it)
//	seed                 int64
//	version              string          dcsim version
//	sim_time_ns          int64    ns     simulated time at the end of the run
//	wall_seconds         double   s      wall-clock time of the run (differs between runs)
//	events               int64           events processed
//	flows_total          int64           flows posted (in the window or not)
//	flows_done           int64           of those, flows finished
//	achieved_load        double   -      offered load of the flows that started in the window: their bytes
//	                                     over (hosts x host link rate x window)
//	mean_slowdown        double   -      over finished in-window flows, each clamped at 1; NaN if none
//	p50_slowdown         double   -      sorted[int(n*0.50)] of the same; NaN if none
//	p95_slowdown         double   -      sorted[int(n*0.95)]
//	p99_slowdown         double   -      sorted[int(n*0.99)]
//	flows_below_one      int64           finished in-window flows with unclamped slowdown < 1
//	bytes_dropped        int64    B      bytes dropped anywhere (lossy mode, overflow)
//	pfc_pause_frames     int64           PFC pause frames sent
//	nacks                int64           NACKs received by senders
//	rto_timeouts         int64           retransmission timeouts fired
//	cnps                 int64           congestion notifications received by senders (CNP flags on ACKs,
//	                                     or CNP packets), whether or not the CC reacts to them
//	counters             map<string,int64>  component counters (e.g. STORM guard stalls), keys ascending
//
// Each swept parameter of a sweep point then adds one column, named by its
// dotted scenario path (e.g. "workload.load"), of type string, boolean,
// int64 or double (see Param and WriteRun); a value that prints itself
// (engine.Time, engine.Rate) is stored as its string ("1us", "100Gbps").
// ReadRun returns them in file order.
//
// The readers check every pinned column's name, repetition, physical and
// logical type and reject a file that lacks one; columns they do not know
// are ignored. They never panic on a corrupt file. TestSchema pins all
// schemas in testdata/schema.golden.
//
// # Example
//
//	rtt := analysis.BaseRTT(delays, rates, 1000)
//	f := analysis.FlowRecord{FlowID: 1, SizeBytes: 1_000_000, StartNs: 0,
//		IdealFctNs: analysis.IdealFCT(1_000_000, 1000, 48, rtt, 100*engine.Gbps).Nanoseconds(),
//		InWindow: true}
//	f.SetFinish(95_000)
//	flows := []analysis.FlowRecord{f}
//	_ = analysis.WriteFlows(filepath.Join(dir, analysis.FlowsFile), flows)
//	a := analysis.Analyze(flows, analysis.DefaultStepPercent, analysis.BDP(rtt, 100*engine.Gbps))
//	_ = analysis.FormatSummary(os.Stdout, a)
package analysis
