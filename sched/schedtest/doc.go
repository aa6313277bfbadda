// Package schedtest is the conformance suite for rnic.Scheduler
// implementations, in the manner of testing/fstest: every scheduler's
// tests call
//
//	schedtest.Run(t, "srpt", baselines.NewSRPT(baselines.DefaultSRPTParams()))
//
// Run builds small star networks (100 Gbps, 1 us links, MTU 1000, the
// reference headers) with random workloads and checks that the scheduler
// never picks an ineligible QP, is work-conserving except where it
// declares a gate, lets every message complete with the network drained,
// and is deterministic. A scheduler that withholds ready QPs (grants,
// guards, delays, paused classes) declares it by implementing
// Eligibility; one that does not is held to "a ready QP is served
// whenever no class is paused".
//
// Work conservation is checked at instants, not events: the suite runs
// all events of one simulated instant, then inspects every host port. A
// free port with an eligible QP at the end of an instant is a violation
// (something opened a gate without kicking the port).
//
// Rig is the small harness the suite uses, exported for schedulers' own
// scenario tests (micro-benchmarks against the analytic oracles, grant
// timing, ordering).
package schedtest
