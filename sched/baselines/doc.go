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
package baselines
