package rnic

// The requester's reorder-window timer (Config.ReorderWindow).

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// verdictTimer wakes a QP's requester when the reorder window of its
// lowest hole ends (rocev2.SelectiveSender.VerdictAt), so that a loss
// after which no ACK comes is resent then, not at the timeout. One per QP
// in the reorder-window mode (qpExt), made on first use; at is the pending
// wake-up, an earlier one superseding it.
type verdictTimer struct {
	qp *QP
	at engine.Time
}

// armVerdict schedules qp's verdict timer at its requester's VerdictAt,
// unless a wake-up at or before it is pending.
func (h *Host) armVerdict(now engine.Time, qp *QP) {
	at := qp.tx.VerdictAt()
	if at == engine.Never {
		return
	}
	x := qp.extension()
	if x.verdict == nil {
		x.verdict = &verdictTimer{qp: qp, at: engine.Never}
	}
	t := x.verdict
	if t.at <= at {
		return
	}
	t.at = max(at, now)
	h.sim.At(t.at, t, 0)
}

// Fire re-judges the QP's holes with nothing new acknowledged: the window
// may have ended. A hole found lost moves the send point back, as a
// timeout does (Rewinder hears of it).
func (t *verdictTimer) Fire(now engine.Time, _ uint8) {
	if now != t.at {
		return // superseded by an earlier wake-up
	}
	t.at = engine.Never
	qp := t.qp
	if qp.closed {
		return
	}
	h := qp.host
	qp.tx.Acknowledge(now, qp.st.Una, rocev2.Span{})
	qp.rewound()
	if rw, ok := h.sched.(Rewinder); ok {
		rw.Rewound(qp)
	}
	h.updateReady(qp)
	h.port.Kick(now)
	h.armVerdict(now, qp)
}
