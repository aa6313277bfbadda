package baselines

import (
	"fmt"
	"slices"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// SRPTName is the scheduler's name in scenarios (nic.scheduler: srpt).
const SRPTName = "srpt"

// SRPT tagging modes.
const (
	TagRemaining = "remaining" // class from the HOL message's remaining bytes (pFabric-style)
	TagSingle    = "single"    // every data packet in one class
)

// webSearchSevenths cut WebSearch (docs/model.md §7.1, linear sampling rule)
// at its flow-count quantiles j/7, j = 1..6.
var webSearchSevenths = [...]int64{9523, 28571, 56593, 151020, 1142857, 3714285}

// SRPTParams are NIC SRPT's settings (docs/model.md §6.3).
type SRPTParams struct {
	// Tagging is "remaining" (class from the HOL message's remaining
	// bytes, mapped through Thresholds onto classes 1..len+1) or "single"
	// (every packet in Class).
	Tagging string `yaml:"tagging"`
	// Class is the data class of "single" tagging.
	Class int `yaml:"class"`
	// Thresholds (bytes, strictly increasing, 1 to 6 values) map the
	// remaining size rem onto classes: class 1 if rem <= t[0], class j if
	// t[j-2] < rem <= t[j-1], class len+1 above the last.
	Thresholds []int64 `yaml:"thresholds"`
	// Guard is the in-order guard: "inherit" (default), "stall" or "off"
	// (pFabric-style tagging as published, an ablation on in-order RoCE:
	// it reorders; see GuardOff).
	Guard string `yaml:"guard"`
}

// DefaultSRPTParams are remaining-size tagging over seven classes of equal
// flow count for WebSearch (its quantiles j/7: 9523, 28571, 56593, 151020,
// 1142857, 3714285 B), the inherit guard (dcsim's RoCE is in-order; see
// the package doc) and class 3 (the fair-sharing class) for single
// tagging. A scenario with another distribution should set
// Thresholds to EqualSplit(cdf.Quantile, 7).
func DefaultSRPTParams() SRPTParams {
	return SRPTParams{Tagging: TagRemaining, Class: 3, Thresholds: slices.Clone(webSearchSevenths[:]), Guard: GuardInherit}
}

// Validate returns a *cc.ParamError naming the first bad field.
func (p SRPTParams) Validate() error {
	switch p.Tagging {
	case TagRemaining:
		if err := checkThresholds(SRPTName, "thresholds", p.Thresholds); err != nil {
			return err
		}
	case TagSingle:
		if p.Class < 1 || p.Class >= fabric.NumClasses {
			return cc.ParamErrorf(SRPTName, "class", "must be 1..%d, got %d", fabric.NumClasses-1, p.Class)
		}
	default:
		return cc.ParamErrorf(SRPTName, "tagging", "must be %q or %q, got %q", TagRemaining, TagSingle, p.Tagging)
	}
	return checkGuard(SRPTName, p.Guard)
}

// SRPT serves the ready QP whose head-of-line message has the fewest unsent
// bytes (ties by QP id), as a size-aware NIC would (docs/model.md §6.3). The
// ready QPs sit in one heap per class keyed by (rem, id); a decision takes
// the smallest head over the classes that are not paused, so the class is
// only the packet's wire tag. Each decision costs O(log n).
//
// Remaining-size tagging raises a QP's class as its message drains; a
// later packet in a higher-priority class can overtake earlier ones in a
// congested strict-priority (or round-robin) switch queue, which in-order
// RoCEv2 answers with a NACK and go-back-N. That is what pFabric-style
// tagging does on RoCE (Guard "off", kept as an ablation); "inherit" (the
// default) and "stall" prevent it, and "single" tagging never changes
// class.
type SRPT struct {
	p SRPTParams
	rankedBase
}

// NewSRPT returns a factory of SRPT schedulers, one per NIC. p must be
// valid (Validate); the scenario layer validates before building.
func NewSRPT(p SRPTParams) func(h *rnic.Host) rnic.Scheduler {
	if err := p.Validate(); err != nil {
		panic(fmt.Sprintf("baselines: NewSRPT with invalid params: %v", err))
	}
	p.Thresholds = slices.Clone(p.Thresholds)
	return func(*rnic.Host) rnic.Scheduler { return &SRPT{p: p} }
}

// HOLChanged implements rnic.Scheduler.
func (s *SRPT) HOLChanged(qp *rnic.QP) { s.update(qp) }

// ReadyChanged implements rnic.Scheduler.
func (s *SRPT) ReadyChanged(qp *rnic.QP) { s.update(qp) }

// Sent implements rnic.Scheduler.
func (s *SRPT) Sent(qp *rnic.QP, p *fabric.Packet) {
	qp.SchedState.(*ranked).sent(p)
	s.update(qp)
}

// Rewound implements rnic.Rewinder: after a timeout the QP retransmits,
// which the guard lets pass.
func (s *SRPT) Rewound(qp *rnic.QP) { s.update(qp) }

// Acked implements rnic.Scheduler: the guard may release the QP, and
// go-back-N may have moved the send point.
func (s *SRPT) Acked(qp *rnic.QP) { s.update(qp) }

func (s *SRPT) tag(rem int64) uint8 {
	if s.p.Tagging == TagSingle {
		return uint8(s.p.Class)
	}
	return levelOf(rem, s.p.Thresholds)
}

// next is the class of qp's next packet, or ok = false if the QP may not
// send (not ready, or held by the guard).
func (s *SRPT) next(qp *rnic.QP, r *ranked) (class uint8, rem int64, ok bool) {
	// Ready is updated after HOLChanged: a QP whose last byte just went
	// still reads ready, with no HOL message.
	if !qp.Ready() || qp.HOL() == nil {
		return 0, 0, false
	}
	rem = qp.HOLRemaining()
	class, ok = guardClass(s.p.Guard, qp, r, s.tag(rem))
	return class, rem, ok
}

func (s *SRPT) update(qp *rnic.QP) {
	r := qp.SchedState.(*ranked)
	class, rem, ok := s.next(qp, r)
	s.place(r, class, rem, ok)
}

// Pick implements rnic.Scheduler.
func (s *SRPT) Pick(_ engine.Time, paused uint8) (*rnic.QP, uint8) {
	return s.heaps.best(paused).picked()
}

// Eligible reports whether Pick could choose qp with these classes paused
// (the schedtest conformance suite's view of gating).
func (s *SRPT) Eligible(qp *rnic.QP, paused uint8) bool {
	class, _, ok := s.next(qp, qp.SchedState.(*ranked))
	return ok && paused&(1<<class) == 0
}

// Counters are the scheduler's event counts, for run.parquet's counters
// map: "srpt.guard_stalls" counts the times the guard held a QP back.
func (s *SRPT) Counters() map[string]int64 {
	return map[string]int64{SRPTName + ".guard_stalls": s.stalls}
}
