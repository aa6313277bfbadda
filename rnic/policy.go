package rnic

// The policies where the reference model (Config.Compat) and dcsim's
// default differ, chosen once per cluster in NewCluster so that the
// packet path calls one of them instead of asking which profile runs:
// the egress loop (when the NIC asks its scheduler and when it wakes for
// pacing), the pacing clock (the gap after a packet and how a rate change
// moves it) and the source-port allocation.

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
)

// egressLoop is a host's transmit loop around its scheduler.
type egressLoop interface {
	// skipsIdle reports whether Next answers nil without asking the
	// scheduler when no QP is ready.
	skipsIdle() bool
	// hasMore reports, beyond control packets and ready QPs, whether the
	// port should ask for a packet now (fabric.Source.HasMore).
	hasMore() bool
	// armWake schedules a wake-up for pacing when nothing was sent.
	armWake(now engine.Time)
	// wake is the pacing wake-up at now.
	wake(now engine.Time)
	// ccTimer follows a congestion-control timer event of a QP.
	ccTimer(now engine.Time)
	// rateApplied follows every CC update of qp (its rate and pacing
	// time already applied).
	rateApplied(now engine.Time, qp *QP)
	// finished closes the per-flow qp whose last message its last ACK
	// completed.
	finished(now engine.Time, qp *QP)
}

func newEgressLoop(h *Host, cfg *Config) egressLoop {
	if cfg.Compat.NS3Egress {
		return &ns3Egress{h: h, changeRate: cfg.Compat.RepaceOnChangeRate && cfg.CC.ChangeRate}
	}
	return dcsimEgress{h}
}

// dcsimEgress is dcsim's loop: the NIC wakes exactly at the earliest
// pacing time of a QP that could send, and any event that may make a QP
// ready (a CC timer included) kicks the port.
type dcsimEgress struct{ h *Host }

func (e dcsimEgress) skipsIdle() bool                { return true }
func (e dcsimEgress) hasMore() bool                  { return false }
func (e dcsimEgress) ccTimer(now engine.Time)        { e.h.port.Kick(now) }
func (e dcsimEgress) rateApplied(engine.Time, *QP)   {}
func (e dcsimEgress) finished(_ engine.Time, qp *QP) { e.h.closeQP(qp) }

func (e dcsimEgress) armWake(now engine.Time) {
	h := e.h
	if h.paced.len() == 0 {
		return
	}
	t := max(h.paced.min().nextAvail, now)
	if t < h.wakeAt {
		h.wakeAt = t
		h.sim.At(t, h, evWake)
	}
}

func (e dcsimEgress) wake(now engine.Time) {
	e.h.woken(now)
	e.armWake(now)
}

// ns3Egress is QbbNetDevice::DequeueAndTransmit's loop (Compat.NS3Egress;
// the package doc has the rules and their sources): the scheduler is asked
// on every transmit opportunity, one wake-up (m_nextSend) is pending at a
// time, HPCC's ChangeRate (changeRate: Compat.RepaceOnChangeRate with a
// cc.Spec.ChangeRate algorithm) pulls it earlier, and CC timers start no
// transmission.
type ns3Egress struct {
	h          *Host
	changeRate bool
	// stale are the times of wake-ups wakeEarlier cancelled, still queued.
	stale []engine.Time
}

func (e *ns3Egress) skipsIdle() bool     { return false }
func (e *ns3Egress) hasMore() bool       { return len(e.h.qps) > 0 }
func (e *ns3Egress) ccTimer(engine.Time) {}

// armWake: the earliest pacing time of the QPs with unsent bytes, if it
// is in the future and no wake-up is pending.
func (e *ns3Egress) armWake(now engine.Time) {
	h := e.h
	if h.wakeAt != engine.Never {
		return
	}
	t := engine.Never
	for _, qp := range h.qps {
		if qp.st.Unsent() > 0 {
			t = min(t, qp.nextAvail)
		}
	}
	if t > now && t != engine.Never {
		h.wakeAt = t
		h.sim.At(t, h, evWake)
	}
}

// wake skips a wake-up ns-3 cancelled; ns-3's m_nextSend runs
// DequeueAndTransmit, which sets the next wake-up only when it finds
// nothing to send (Next does that); after a transmission the next
// TransmitComplete looks again.
func (e *ns3Egress) wake(now engine.Time) {
	h := e.h
	for i, t := range e.stale {
		if t == now {
			e.stale = append(e.stale[:i], e.stale[i+1:]...)
			return
		}
	}
	if now != h.wakeAt {
		panic(fmt.Sprintf("rnic: host %d: wake-up at %v, neither pending (%v) nor cancelled", h.ID, now, h.wakeAt))
	}
	h.woken(now)
}

// rateApplied: ChangeRate runs on every HPCC update that computed a rate,
// changed or not, and pulls a later pending wake-up to the QP's pacing
// time (rdma-hw.cc UpdateRateHp, ChangeRate; QbbNetDevice::UpdateNextAvail).
func (e *ns3Egress) rateApplied(now engine.Time, qp *QP) {
	if e.changeRate && qp.changedRate() {
		e.wakeEarlier(now, qp.nextAvail)
	}
}

// finished: ns-3's ReceiveAck runs HandleAckHp after QpComplete, so the
// last ACK's ChangeRate, when its update makes one (not on a QP's first
// ACK: a one-packet flow's), still pulls the NIC's pending wake-up to the
// finished QP's (past) pacing time (rdma-hw.cc ReceiveAck, UpdateRateHp,
// ChangeRate; QbbNetDevice::UpdateNextAvail); and ReceiveAck always ends
// with TriggerTransmit.
func (e *ns3Egress) finished(now engine.Time, qp *QP) {
	if e.changeRate && qp.changedRate() {
		r := qp.cc.Rate()
		e.wakeEarlier(now, qp.nextAvail+r.TxTimeWholeNs(qp.lastSize)-qp.rate.TxTimeWholeNs(qp.lastSize))
	}
	e.h.closeQP(qp)
	e.h.port.Kick(now)
}

// wakeEarlier is QbbNetDevice::UpdateNextAvail: a pending wake-up later
// than t moves to t (or now). ns-3 cancels the old event; here it stays
// queued and is remembered as stale, so that wake skips it even when a
// later wake-up falls on the same ns (that one was scheduled later, so it
// runs later among that ns's events, as in ns-3).
func (e *ns3Egress) wakeEarlier(now, t engine.Time) {
	h := e.h
	if h.wakeAt != engine.Never && t < h.wakeAt {
		e.stale = append(e.stale, h.wakeAt)
		h.wakeAt = max(t, now)
		h.sim.At(h.wakeAt, h, evWake)
	}
}

// pacingClock is how a QP's pacing time follows its packets and rates.
type pacingClock struct {
	// gap is the pacing gap after a packet of size bytes at rate.
	gap func(rate, line engine.Rate, size int64) engine.Time
	// repace moves qp's pending pacing time when its rate changes to r.
	repace func(qp *QP, now engine.Time, r engine.Rate)
}

func newPacingClock(cfg *Config) pacingClock {
	p := pacingClock{gap: gapExact, repace: repaceExact}
	if cfg.Compat.WholeNsPacing {
		p.gap = gapWholeNs
	}
	if cfg.Compat.RepaceOnChangeRate {
		p.repace = repaceNever
		if cfg.CC.ChangeRate {
			p.repace = repaceWholeNs
		}
	}
	return p
}

// gapExact: L*8/R in ps; none at line rate (a QP at line rate never waits
// longer than the port itself).
func gapExact(rate, line engine.Rate, size int64) engine.Time {
	if rate < line {
		return rate.TxTime(size)
	}
	return 0
}

// gapWholeNs truncates the gap to whole ns, at line rate too, as ns-3
// does (rdma-hw.cc RdmaHw::UpdateNextAvail: Seconds(DataRate::CalculateTxTime)).
func gapWholeNs(rate, _ engine.Rate, size int64) engine.Time { return rate.TxTimeWholeNs(size) }

// repaceExact moves a future pacing time by the difference of the two
// gaps of the last packet (docs/model.md §5.1).
func repaceExact(qp *QP, now engine.Time, r engine.Rate) {
	if qp.lastSize > 0 && qp.nextAvail > now {
		qp.nextAvail += r.TxTime(qp.lastSize) - qp.rate.TxTime(qp.lastSize)
	}
}

// repaceWholeNs is ns-3's RdmaHw::ChangeRate, which only HPCC's updates
// call (cc.Spec.ChangeRate): the whole-ns difference, even when the pacing
// time has passed.
func repaceWholeNs(qp *QP, _ engine.Time, r engine.Rate) {
	qp.nextAvail += r.TxTimeWholeNs(qp.lastSize) - qp.rate.TxTimeWholeNs(qp.lastSize)
}

// repaceNever: in ns-3, DCQCN, TIMELY and DCTCP assign m_rate directly, so
// their next packet keeps the old gap.
func repaceNever(*QP, engine.Time, engine.Rate) {}

func newPortAllocation(cfg *Config) func(h *Host, dst int32) uint16 {
	if cfg.Compat.PairPorts {
		return portPerPair
	}
	return portPerHost
}

// portPerHost numbers a host's QPs' source ports from 10001, one counter
// per host (dcsim's default).
func portPerHost(h *Host, _ int32) uint16 {
	h.sport++
	if h.sport < 10000 {
		h.sport = 10000
	}
	return h.sport
}

// portPerPair numbers source ports from 10000 per (src, dst) pair in the
// order QPs open (third.cc portNumder; Compat.PairPorts).
func portPerPair(h *Host, dst int32) uint16 {
	if h.pairPort == nil {
		h.pairPort = map[int32]uint16{}
	}
	p, ok := h.pairPort[dst]
	if !ok || p < 10000 {
		p = 10000
	}
	h.pairPort[dst] = p + 1
	return p
}
