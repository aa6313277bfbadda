// Package cloud generates datacenter ("cloud") workloads: flow sizes drawn
// from empirical CDFs, Poisson arrivals at a target load, incast events,
// storage fan-out requests and explicit flow lists. It implements
// docs/model.md §7.1-7.3.
//
// # Flow-size distributions
//
// A CDF is a table of (size_bytes, cumulative probability) points. The
// tables of docs/model.md §7.1 are embedded (Builtin, BuiltinNames, Describe;
// cdf/README.md names their sources); Load also reads a file in the same
// format. Sample uses the linear rule of docs/model.md §7.2: u uniform in
// [0, 1), linear interpolation inside the first segment i with u <= F[i]
// and F[i] > F[i-1], then floor, and 1 B for results <= 0. Mean is the
// matching mean_linear = sum (x[i-1]+x[i])/2 * (F[i]-F[i-1]); the floor and
// the 1 B minimum move the sampler's true mean by less than 1 B, which is
// ignored, as in the reference generator. Mean is computed from the points
// and agrees with each file's header mean (printed to 0.1 B) within 0.05 B. MeanStep (Homa's rule) is
// reported for comparison only: mixing the two misstates the load by up to
// 2x (datamining). Quantile(p) is the sample for u = p, so equal-probability
// thresholds (PIAS, STORM classes) agree with Sample.
//
// Parsing accepts repeated sizes (point masses) and repeated probabilities
// (zero-probability segments), snaps a first cdf within 1e-9 of 0 and a last
// within 1e-9 of 1 to the bound, and rejects everything else that is not a
// CDF (decreasing values, NaN, sizes < 0 or > 2^53, a wrong field count).
//
// # Generators
//
// Every workload is a Generator: a pull-based iterator of Flow values in
// non-decreasing Start order, deterministic for a given configuration and
// *rand.Rand (use engine.NewStream(seed, "arrivals") or similar). Merge
// combines generators, breaking ties by argument order. Next allocates
// nothing per flow; incast and fan-out allocate one tag string per event.
//
// Times are engine.Time (picoseconds). Exponential gaps are drawn as
// float64 picoseconds and rounded to the nearest picosecond; the rounding
// is at most 0.5 ps per gap and zero in the mean, so rates are unbiased.
//
// Load, as in docs/model.md §7.3, is relative to the host link: with Poisson
// background at load L each host offers L*HostRate bits/s, and its mean
// inter-arrival is 8*Mean/(HostRate*L) (websearch at 100 Gbps and 0.5:
// 273.8 us). Each host is an independent Poisson process; destinations are
// uniform over the other hosts. A min-heap of per-host next-arrival times,
// ties broken by host id, makes Next O(log hosts).
//
// Incast load is relative to the aggregate capacity of the incast's host
// set, len(Hosts)*HostRate, so "2% of load" is Load 0.02 over the same
// hosts as the background and the two loads add. Fan-out (StorageConfig)
// load is relative to the client's own host link, the one its responses
// converge on.
//
// # Choices where the reference is silent
//
//   - Flow.Generator defaults to "cloud", "incast", "storage" and
//     "flowlist"; Poisson flows have an empty Tag.
//   - Incast and fan-out events number from 0 ("incast-0", "fanout-0");
//     flows of one event start at the same time, in ascending sender id.
//   - Periodic incast events happen at Start, Start+Period, ... before Stop.
//   - A fan-out request's own (small) request message is not generated:
//     responses start at the request time.
//   - A CDF whose mean is below 1 B is rejected by the generators, since
//     every sample is at least 1 B and the load would be misstated.
//   - Load 0 (and no period or interval) gives a generator with no flows.
//
// Flow lists (ReadFlowList) are CSV with a header naming src, dst,
// size_bytes and start_ns in any order; an optional tag column fills
// Flow.Tag; other columns are ignored. ReadNS3Flows reads the HPCC ns-3
// model's flow file (traffic_gen.py output) with ns-3's own start times
// (engine.NS3Seconds truncates 2.000000577 s to 2000000576 ns) and tags
// each flow "sport=N" with the source port the reference gives it, 10000
// up per (src, dst) pair; WriteFlowList writes any flows back as a flow
// list. Every file read here has lines of at most 1 MiB
// (internal/textline), a flow list at most 2^26 flows and a CDF at most
// 2^20 points, so that an endless or binary input fails at once.
//
// A long flow list need not be held in memory. ScanFlowList reads a list
// once, one record at a time, with ReadFlowList's errors (a malformed
// record anywhere first, then the first flow a check rejects in sorted
// order) and says whether it is sorted by start_ns; NewFlowListCursor then
// yields a sorted list's flows one record per Next, the flows and order
// ReadFlowList and NewFlowList would give. An unsorted list has to be
// read whole and sorted (ReadFlowList, NewFlowList): a cursor cannot post
// a flow whose start it has not reached, and a bounded reorder window
// would reject or misplace a flow further out of place than its bound,
// which a file may be (an unsorted list is valid input, as it always was).
// scenario's flowlist kind does exactly this: the cursor for a sorted
// file, the whole list for another, so sorting a long list by start_ns
// (sort -t, -k4,4n after the header) is what keeps its memory flat.
//
// Every reader of a flow list reads its records through csvLines: a line
// without a quote is split on commas directly (one string per record),
// anything else goes to encoding/csv from that line on, so the records,
// line numbers and errors are encoding/csv's (TestCSVLinesMatchesCSV);
// start_ns in its common form (digits, at most three decimals) is parsed
// without building a duration string, so a record costs one allocation
// (BenchmarkFlowListCursor; measurements: docs/performance-notes.md,
// section 3.3).
package cloud
