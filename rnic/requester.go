package rnic

// The requester: posting, ACK/NACK processing, completion and retransmission timeouts.

import (
	"fmt"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/invariants"
	"github.com/dcsim/dcsim/transport/rocev2"
)

func (h *Host) post(m *Message) {
	h.k.MessagesPosted++
	h.k.BytesPosted += m.Size
	h.enqueue(h.qpFor(m), m)
}

// enqueue appends m to qp's send queue (a workload's WQE on a requester
// QP, or a READ response on a responder context).
func (h *Host) enqueue(qp *QP, m *Message) {
	c := h.c
	now := h.sim.Now()
	m.Posted = now
	m.FirstClass = -1
	m.QP, m.QPID = qp, qp.ID
	m.PSN = qp.nextPSN
	qp.nextPSN += m.Verb.PSNs(m.Size, c.Cfg.MTU)
	m.start = qp.st.End
	qp.tx.Post(m.units())
	m.end = qp.st.End
	if m.wait() != nil {
		qp.extension().waits++
	}
	if m.Ext != nil || m.Verb == rocev2.Read || m.Verb.Atomic() {
		qp.pinned = true // its responder context, callbacks or fences may outlive it
	}
	qp.msgs = append(qp.msgs, m)
	holChanged := qp.hol == len(qp.msgs)-1
	h.sched.Posted(qp, m)
	if holChanged {
		h.sched.HOLChanged(qp)
	}
	h.updateReady(qp)
	h.port.Kick(now)
}

// checkRTO times out every QP whose deadline has passed, in QP id order,
// and schedules the next check at the earliest remaining deadline.
func (h *Host) checkRTO(now engine.Time) {
	if now != h.rtoCheckAt {
		return // superseded by an earlier check
	}
	h.rtoCheckAt = engine.Never
	next := engine.Never
	h.expired = h.expired[:0]
	for _, qp := range h.qps {
		if qp.rtoAt == engine.Never {
			continue
		}
		if qp.tx.InFlight() == 0 {
			qp.rtoAt = engine.Never
			continue
		}
		if qp.rtoAt <= now {
			h.expired = append(h.expired, qp)
		} else {
			next = min(next, qp.rtoAt)
		}
	}
	sortQPs(h.expired)
	for _, qp := range h.expired {
		qp.timeout(now)
		next = min(next, qp.rtoAt)
	}
	if next != engine.Never {
		h.rtoCheckAt = next
		h.sim.At(next, h, evRTOCheck)
	}
	if len(h.expired) > 0 {
		clear(h.expired)
		h.port.Kick(now)
	}
}

func (h *Host) receiveAck(now engine.Time, p *fabric.Packet) {
	c := h.c
	qp := h.qp(p.QP)
	if qp == nil {
		h.k.DroppedStaleAck++
		return
	}
	nack := p.Kind == fabric.Nack
	una := qp.st.Una
	var adv int64
	if nack {
		h.k.Nacks++
		adv = qp.tx.OnNack(p.Seq, rocev2.DecodeSack(p.Arg))
	} else {
		h.k.Acks++
		var sack rocev2.Span
		// Only the reorder-tolerant receiver puts a range on an ACK (an
		// ATOMIC ACK's argument is the original value).
		if rocev2.Opcode(p.Op) == rocev2.AckOp && p.Arg != 0 {
			sack = rocev2.DecodeSack(p.Arg)
			h.k.Sacks++
		}
		adv = qp.tx.Acknowledge(now, p.Seq, sack)
		h.armVerdict(now, qp)
	}
	if !qp.inHOL() {
		qp.rewound()
	}
	if invariants.Enabled && qp.st.Una < una {
		panic(fmt.Sprintf("rnic: host %d qp %d: acknowledged point moved back from %d to %d", h.ID, qp.ID, una, qp.st.Una))
	}
	if p.CNP {
		h.k.CNPs++
	}
	// The feedback lives in the Host so that passing it through the
	// interface does not allocate.
	fb := &h.fb
	*fb = cc.Feedback{Now: now, AckSeq: p.Seq, SndNxt: qp.st.Nxt, NACK: nack, ECE: p.CNP}
	if c.Cfg.CC.NeedsTimestamp {
		fb.RTT = now - p.SentAt
	}
	if c.Cfg.CC.NeedsINT {
		fb.INT = h.pool.Hops(p)
	}
	if c.Cfg.CCEnv.NS3Arith { // the peer's transmission began a link delay and a serialization ago
		fb.Scheduled = now - h.port.Delay - h.port.TxTime(int64(p.Size))
	}
	qp.cc.OnAck(fb)
	fb.INT = nil
	if rocev2.Opcode(p.Op) == rocev2.AtomicAck {
		for _, m := range qp.msgs {
			if m.Verb.Atomic() && !m.responded && m.end <= p.Seq {
				m.Ext.Result, m.responded = uint64(p.Arg), true
				break
			}
		}
	}
	h.acknowledged(now, qp, adv, p)
}

// readArrived is the last packet of a READ response, accepted in order at
// this host (the READ's requester): the READ has its data, and the
// response acknowledges the request as in InfiniBand (the responder sends
// no ACK for it).
func (h *Host) readArrived(now engine.Time, p *fabric.Packet) {
	rq := h.loc.qp(p.QP) // the responder context, open until this data is acknowledged
	if rq == nil {
		return // a resent response of a context that closed
	}
	q := rq.ext.peer
	for _, m := range q.msgs {
		if m.Verb == rocev2.Read && !m.responded {
			// Responses come in the order of their READs (one responder
			// context per requester QP, in order).
			m.responded = true
			adv := q.tx.OnResponse(m.end)
			q.rewound()
			h.acknowledged(now, q, adv, nil)
			return
		}
	}
	// A resent response whose READ already completed: it looked new
	// because a per-flow receive state ends with its last packet.
}

// acknowledged follows an acknowledgement of qp that advanced its
// cumulative point by adv (p is the ACK or NACK, nil for a READ response):
// the retransmission timer, completions in posting order, the scheduler
// and the observer, and the QP's teardown or its CC's new rate.
func (h *Host) acknowledged(now engine.Time, qp *QP, adv int64, p *fabric.Packet) {
	c := h.c
	if adv > 0 && c.Cfg.RTO > 0 {
		if qp.tx.InFlight() > 0 {
			qp.armRTO(now + c.Cfg.RTO)
		} else {
			qp.rtoAt = engine.Never
		}
	}
	// Complete the messages at the head whose completion condition holds
	// (the ACK of their last byte, their READ response or ATOMIC ACK).
	done := 0
	for done < len(qp.msgs) && qp.msgs[done].complete(qp.st.Una) {
		done++
	}
	if done > 0 {
		finished := qp.msgs[:done]
		qp.msgs = qp.msgs[done:]
		qp.hol -= done
		if qp.hol < 0 {
			qp.hol = 0
		}
		for _, m := range finished {
			m.Done = true
			m.Finished = now
			if m.Verb != rocev2.ReadResponse { // a responder's own work is not a workload's WQE
				h.k.MessagesDone++
				h.k.BytesDone += m.Size
				if m.Ext != nil && m.Ext.OnDone != nil {
					m.Ext.OnDone(m)
				}
				if c.OnComplete != nil {
					c.OnComplete(m)
				}
			}
			m.QP = nil
		}
		clear(finished)
		if len(qp.msgs) == 0 {
			// Back to the array's start (for a reused QP), unless a
			// completion callback posted on the QP meanwhile.
			qp.msgs = finished[:0]
		}
	}
	h.sched.Acked(qp)
	if c.Observer != nil && p != nil {
		c.Observer.Acked(now, qp, p)
	}
	if qp.perFlow && len(qp.msgs) == 0 {
		h.egress.finished(now, qp)
		return
	}
	qp.applyCC(now)
	h.port.Kick(now)
}

// Recheck re-evaluates qp's readiness now: a WQE's Wait predicate that
// depends on state outside the QP calls it when that state changes, on
// the thread of qp's host (on an engine.World).
func (c *Cluster) Recheck(qp *QP) {
	if qp.closed {
		return
	}
	now := qp.host.sim.Now()
	qp.host.updateReady(qp)
	qp.host.port.Kick(now)
}
