// Package baselines holds the reference RNIC schedulers that STORM is
// compared with.
//
// Fair is fair sharing as the reference model and ConnectX NICs do it
// (docs/model.md §6.2): round robin over ready QPs in QP-number order,
// resuming after the QP served last, one packet per turn, all data in one
// class (class 3 by default). Keeping the ready QPs ordered by id (a sorted
// slice while there are at most 128, a B-tree past that) makes
// Pick O(log n) in the number of ready QPs and makes a newly ready QP wait
// at most one round, as in the reference's index scan. NewFairMessage is
// the rr_granularity = message variant: a QP keeps the port until its
// head-of-line message is fully sent (with QPs numbered in arrival order
// this is FCFS, which the oracle tests confirm).
//
// NS3Fair is the same round robin as the reference's code runs it
// (qbb-net-device.cc RdmaEgressQueue::GetNextQindex): an index into a QP
// list that drops finished QPs lazily and shifts the index when it does.
// Scenario compat: hpcc-ns3 uses it for "fair".
//
// SRPT (docs/model.md §6.3) serves the QP whose head-of-line message has the
// fewest unsent bytes, ties by QP id, and tags each packet with a class
// from that remaining size (thresholds over classes 1..7; default
// WebSearch's equal-count quantiles) or with one class. PIAS (docs/model.md
// §6.4) tags each packet with its message's level from the bytes it has
// already sent, serves classes strictly and QPs within a class round robin.
// Both keep their eligible QPs in one typed heap per class (O(log n) per
// decision, nothing allocated in steady state) and expose Eligible for the
// schedtest conformance suite and Counters for run.parquet.
//
// Both change a QP's class while it sends, which lets its later packets
// overtake earlier ones in the network; in-order RoCEv2 answers with NACKs
// and go-back-N. dcsim's transport is in-order RoCEv2 only, so both apply
// STORM's promotion guard (docs/model.md §6.7) by default, each in the mode
// that keeps its own policy intact, as a careful researcher running them
// on RoCE would:
//   - SRPT: guard = inherit. Its NIC order is remaining bytes over every
//     class (the class is only a wire tag), so inheriting the old class
//     until the QP's packets in flight are acknowledged changes nothing at
//     the NIC; stall would idle a draining QP for an RTT at each of its
//     six thresholds.
//   - PIAS: guard = stall. Its class is its order, so inherit would keep a
//     continuously sending message in level 1 for ever (it always has
//     packets in flight), which is fair sharing, not PIAS; stall costs at
//     most one RTT at each of its three demotions, while other QPs send.
//
// guard = off is the published tagging and stays as the ablation: on the
// storm-cloud grid it cost SRPT 8.4M NACKs and a mean slowdown 7.9x fair
// sharing's (DCQCN; docs/studies/storm.md). Thresholds are bytes (PIASTable
// converts the PIAS source's KB = 1024 B); EqualSplit builds equal-count
// thresholds from any size distribution's quantile function.
package baselines
