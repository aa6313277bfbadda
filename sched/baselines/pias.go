package baselines

import (
	"fmt"
	"slices"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// PIASName is the scheduler's name in scenarios (nic.scheduler: pias).
const PIASName = "pias"

// KiB is PIAS's "KB" (docs/model.md §1: PIAS thresholds use 1024 B).
const kib = 1024

// PIASParams are PIAS's settings (docs/model.md §6.4).
type PIASParams struct {
	// Thresholds a_1 < ... < a_{K-1} (bytes already sent by the message,
	// 1 to 6 values): level 1 if sent <= a_1, level j if a_{j-1} < sent <=
	// a_j, level K above a_{K-1}. Level j is class j, so K <= 7 keeps
	// class 0 for control.
	Thresholds []int64 `yaml:"thresholds"`
	// Guard is the in-order guard: "stall" (default), "inherit" or "off"
	// (as published, an ablation on in-order RoCE: it reorders; see
	// GuardOff). Inherit keeps a continuously sending message in its
	// first level, which defeats PIAS; stall costs about one RTT per level
	// change.
	Guard string `yaml:"guard"`
}

// DefaultPIASParams are the 4-queue WebSearch equal-split thresholds of
// the PIAS source (24, 72, 1448 KB with KB = 1024 B; docs/model.md §6.4)
// and the stall guard (dcsim's RoCE is in-order; see the package doc). A
// scenario should fill Thresholds from PIASTable or, for other
// distributions, from EqualSplit(cdf.Quantile, K).
func DefaultPIASParams() PIASParams {
	t, _ := PIASTable("websearch-equal", 4)
	return PIASParams{Thresholds: t, Guard: GuardStall}
}

// Validate returns a *cc.ParamError naming the bad field.
func (p PIASParams) Validate() error {
	if err := checkThresholds(PIASName, "thresholds", p.Thresholds); err != nil {
		return err
	}
	return checkGuard(PIASName, p.Guard)
}

// PIASTable returns the threshold table of the PIAS source
// (baiwei0427/PIAS PIAS/pias2/prio.h, docs/model.md §6.4) in bytes, for
// table "websearch" (optimised), "websearch-equal" (equal split),
// "datamining" and queues = 2 or 4. The 8-queue tables need level 1 in
// class 0 beside the control frames, which dcsim keeps for control, so
// they are not offered.
func PIASTable(table string, queues int) ([]int64, bool) {
	var kb []int64
	switch {
	case table == "websearch" && queues == 2:
		return []int64{965816}, true // given in bytes in the source
	case table == "websearch-equal" && queues == 2:
		kb = []int64{72}
	case table == "websearch" && queues == 4:
		kb = []int64{70, 1785, 3180}
	case table == "websearch-equal" && queues == 4:
		kb = []int64{24, 72, 1448}
	case table == "datamining" && queues == 2:
		kb = []int64{6}
	case table == "datamining" && queues == 4:
		kb = []int64{1, 9, 167} // for load 0.8
	default:
		return nil, false
	}
	t := make([]int64, len(kb))
	for i, v := range kb {
		t[i] = v * kib
	}
	return t, true
}

// PIAS is the information-agnostic multi-level feedback queue at the NIC
// (docs/model.md §6.4): each packet's class is its message's level, from
// the bytes the message has already sent; classes are served strictly and
// QPs within a class round robin (the QP served longest ago goes next).
// "Bytes already sent" is measured from the QP's send point, so go-back-N
// moves a message back to the level of its retransmitted bytes. The host
// module's anti-starvation reset after two timeouts is not modelled (a
// lossless run has no timeouts).
//
// A message's class falls as it sends: with PFC per class, or with
// round-robin switch classes, its later low-priority packets can overtake
// earlier ones, which in-order RoCEv2 answers with a NACK.
type PIAS struct {
	p PIASParams
	rankedBase
	clock int64 // decisions made: the round-robin stamp
}

// NewPIAS returns a factory of PIAS schedulers, one per NIC. p must be
// valid (Validate); the scenario layer validates before building.
func NewPIAS(p PIASParams) func(h *rnic.Host) rnic.Scheduler {
	if err := p.Validate(); err != nil {
		panic(fmt.Sprintf("baselines: NewPIAS with invalid params: %v", err))
	}
	p.Thresholds = slices.Clone(p.Thresholds)
	return func(*rnic.Host) rnic.Scheduler { return &PIAS{p: p} }
}

// HOLChanged implements rnic.Scheduler.
func (s *PIAS) HOLChanged(qp *rnic.QP) { s.update(qp, false) }

// ReadyChanged implements rnic.Scheduler.
func (s *PIAS) ReadyChanged(qp *rnic.QP) { s.update(qp, false) }

// Sent implements rnic.Scheduler: the QP goes to the back of its class.
func (s *PIAS) Sent(qp *rnic.QP, p *fabric.Packet) {
	qp.SchedState.(*ranked).sent(p)
	s.update(qp, true)
}

// Rewound implements rnic.Rewinder: after a timeout the QP retransmits,
// which the guard lets pass.
func (s *PIAS) Rewound(qp *rnic.QP) { s.update(qp, false) }

// Acked implements rnic.Scheduler: the guard may release the QP, and
// go-back-N may have moved the send point.
func (s *PIAS) Acked(qp *rnic.QP) { s.update(qp, false) }

// next is the class of qp's next packet, or ok = false if the QP may not
// send (not ready, or held by the guard).
func (s *PIAS) next(qp *rnic.QP, r *ranked) (class uint8, ok bool) {
	// Ready is updated after HOLChanged: a QP whose last byte just went
	// still reads ready, with no HOL message.
	m := qp.HOL()
	if !qp.Ready() || m == nil {
		return 0, false
	}
	return guardClass(s.p.Guard, qp, r, levelOf(m.Size-m.Remaining(), s.p.Thresholds))
}

func (s *PIAS) update(qp *rnic.QP, served bool) {
	r := qp.SchedState.(*ranked)
	if served {
		s.clock++
		r.stamp = s.clock
	}
	class, ok := s.next(qp, r)
	s.place(r, class, r.stamp, ok)
}

// Pick implements rnic.Scheduler.
func (s *PIAS) Pick(_ engine.Time, paused uint8) (*rnic.QP, uint8) {
	return s.heaps.min(paused).picked()
}

// Eligible reports whether Pick could choose qp with these classes paused.
func (s *PIAS) Eligible(qp *rnic.QP, paused uint8) bool {
	class, ok := s.next(qp, qp.SchedState.(*ranked))
	return ok && paused&(1<<class) == 0
}

// Counters are the scheduler's event counts, for run.parquet's counters
// map: "pias.guard_stalls" counts the times the guard held a QP back.
func (s *PIAS) Counters() map[string]int64 {
	return map[string]int64{PIASName + ".guard_stalls": s.stalls}
}
