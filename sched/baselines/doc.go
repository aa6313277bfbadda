// Package baselines holds the reference RNIC schedulers that STORM is
// compared with.
//
// Fair is fair sharing as the reference model and ConnectX NICs do it
// (REFERENCE.md 6.2): round robin over ready QPs in QP-number order,
// resuming after the QP served last, one packet per turn, all data in one
// class (class 3 by default). Keeping the ready QPs in a B-tree by id makes
// Pick O(log n) in the number of ready QPs and makes a newly ready QP wait
// at most one round, as in the reference's index scan. NewFairMessage is
// the rr_granularity = message variant: a QP keeps the port until its
// head-of-line message is fully sent (with QPs numbered in arrival order
// this is FCFS, which the oracle tests confirm).
//
// SRPT (REFERENCE.md 6.3) serves the QP whose head-of-line message has the
// fewest unsent bytes, ties by QP id, and tags each packet with a class
// from that remaining size (thresholds over classes 1..7; default
// WebSearch's equal-count quantiles) or with one class. PIAS (REFERENCE.md
// 6.4) tags each packet with its message's level from the bytes it has
// already sent, serves classes strictly and QPs within a class round robin.
// Both keep their eligible QPs in one typed heap per class (O(log n) per
// decision, nothing allocated in steady state) and expose Eligible for the
// schedtest conformance suite and Counters for run.parquet.
//
// Both change a QP's class while it sends, which lets its later packets
// overtake earlier ones in the network; in-order RoCEv2 answers with NACKs
// and go-back-N. That is the published behaviour (guard = off, default).
// The option guard = stall or inherit applies STORM's promotion guard
// (REFERENCE.md 6.7) to them instead. Thresholds are bytes (PIASTable
// converts the PIAS source's KB = 1024 B); EqualSplit builds equal-count
// thresholds from any size distribution's quantile function.
package baselines
