package rnic

// Egress: readiness, pacing, the fabric.Source protocol, data and control packets out.

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// updateReady recomputes qp's readiness: data to send, window open, and a
// pacing time no later than the moment the port can next transmit.
func (h *Host) updateReady(qp *QP) {
	h.updateReadyAt(qp, max(h.port.FreeAt(), h.sim.Now()))
}

func (h *Host) updateReadyAt(qp *QP, freeAt engine.Time) {
	want := !qp.closed && qp.st.Nxt < qp.st.End && (qp.window == 0 || qp.tx.InFlight() < qp.window) &&
		(!qp.waiting() || !qp.held())
	if want && qp.nextAvail > freeAt {
		if qp.pacedIdx < 0 {
			h.paced.push(qp)
		} else {
			h.paced.fix(qp)
		}
		want = false
	} else if qp.pacedIdx >= 0 {
		h.paced.remove(qp)
	}
	if want != qp.ready {
		qp.ready = want
		if want {
			h.ready++
		} else {
			h.ready--
		}
		h.sched.ReadyChanged(qp)
	}
}

// releasePaced makes QPs whose pacing time has come ready again.
func (h *Host) releasePaced(now engine.Time) {
	for h.paced.len() > 0 && h.paced.min().nextAvail <= now {
		qp := h.paced.pop()
		h.updateReady(qp)
	}
}

// Next implements fabric.Source: control packets first, then the
// scheduler's choice. The control queue is one FIFO (as the reference's
// ACK queue): while its head's class is paused it waits, unless the head
// is an ACK or NACK and the NIC gives ACKs high priority.
func (h *Host) Next(now engine.Time) *fabric.Packet {
	paused := h.port.PausedMask()
	if p := h.ctrl.Head(); p != nil && (paused&(1<<p.Class) == 0 || h.pauseExempt(p)) {
		return h.ctrl.Pop()
	}
	h.releasePaced(now)
	if h.ready == 0 && h.egress.skipsIdle() {
		h.egress.armWake(now)
		return nil
	}
	qp, class := h.sched.Pick(now, paused)
	if qp == nil {
		h.egress.armWake(now)
		return nil
	}
	if !qp.ready || class == 0 || class >= fabric.NumClasses || paused&(1<<class) != 0 {
		panic(fmt.Sprintf("rnic: host %d: scheduler picked qp %d (ready %v) in class %d (paused %08b)",
			h.ID, qp.ID, qp.ready, class, paused))
	}
	return h.sendData(now, qp, class)
}

// pauseExempt reports whether control packet p may leave although its
// class is paused: an ACK or NACK of a NIC with AckHighPrio.
func (h *Host) pauseExempt(p *fabric.Packet) bool {
	return h.c.Cfg.AckHighPrio && (p.Kind == fabric.Ack || p.Kind == fabric.Nack)
}

// HasMore implements fabric.Source.
func (h *Host) HasMore() bool {
	if h.ctrl.Len() > 0 || h.ready > 0 || h.egress.hasMore() {
		return true
	}
	if h.paced.len() > 0 {
		if t := h.paced.min().nextAvail; t <= h.port.FreeAt() {
			return true
		}
		h.egress.armWake(h.sim.Now())
	}
	return false
}

const (
	evWake uint8 = iota
	evRTOCheck
)

// Fire implements engine.Handler: pacing wake-ups (the egress loop's)
// and RTO checks.
func (h *Host) Fire(now engine.Time, kind uint8) {
	if kind == evRTOCheck {
		h.checkRTO(now)
		return
	}
	h.egress.wake(now)
}

// woken is a pacing wake-up that runs: the QPs whose time has come are
// ready, and the port may ask for a packet.
func (h *Host) woken(now engine.Time) {
	if now == h.wakeAt {
		h.wakeAt = engine.Never
	}
	h.releasePaced(now)
	h.port.Kick(now)
}

func (h *Host) sendData(now engine.Time, qp *QP, class uint8) *fabric.Packet {
	c := h.c
	cfg := &c.Cfg
	m := qp.msgs[qp.hol]
	seq, n, _ := qp.tx.Next(cfg.MTU) // a hole may end before its message does
	n = min(n, m.end-seq)
	p := h.pool.Get()
	p.Kind = fabric.Data
	p.Class = class
	p.ECT = true
	p.Src, p.Dst = qp.Src, qp.Dst
	p.SPort, p.DPort = qp.SPort, 100
	op := m.Verb.Packet(seq == m.start, seq+n == m.end)
	p.Op = uint8(op)
	payload := n
	if op.Request() { // one unit of sequence space, no payload
		payload = 0
		p.Size = uint16(cfg.Headers.RequestWire(op, cfg.CC.HeaderBytes))
	} else {
		w := cfg.Headers.DataWire(n, cfg.CC.HeaderBytes)
		if op == rocev2.WriteFirst || op == rocev2.WriteOnly {
			w += cfg.Headers.WriteRETH
		}
		p.Size = uint16(w)
	}
	p.Payload = uint16(payload)
	p.QP = int32(qp.ID)
	p.Seq = seq
	p.Last = seq+n == m.end
	p.SentAt = now
	if seq == m.start && m.FirstClass < 0 && m.wait() != nil {
		qp.ext.waits--
	}
	retx := qp.tx.Sent(seq, n)
	if retx > 0 && payload > 0 {
		m.Retransmitted += retx
		h.k.Retransmitted += retx
	}
	if m.FirstClass < 0 {
		m.FirstClass = int8(class)
	}
	h.k.DataPackets++
	h.k.PayloadSent += payload
	if h.stamper != nil {
		h.stamper.Stamp(qp, p)
	}
	qp.lastClass = class
	qp.lastSize = int64(p.Size)
	qp.nextAvail = now + c.pacing.gap(qp.rate, cfg.CCEnv.LineRate, int64(p.Size))
	if p.Last {
		if c.OnSent != nil && !m.lastSent {
			m.lastSent = true
			c.OnSent(m, now+h.port.Rate.TxTime(int64(p.Size)))
		}
	}
	if !qp.inHOL() {
		qp.rewound() // the next unit: the next message, or under selective repeat a hole in an earlier one
	}
	h.sched.Sent(qp, p)
	if c.Observer != nil {
		c.Observer.Sent(now, qp, p)
	}
	if qp.rtoAt == engine.Never && cfg.RTO > 0 {
		qp.armRTO(now + cfg.RTO)
	}
	// The port sets its busy time after Next returns; readiness compares
	// pacing against it, so account for this packet's serialization here.
	h.updateReadyAt(qp, now+h.port.TxTime(int64(p.Size)))
	return p
}

// sendControl queues a control packet ahead of all data.
func (h *Host) sendControl(now engine.Time, p *fabric.Packet) {
	h.ctrl.Push(p)
	h.port.Kick(now)
}

// NewControl returns a pooled control packet of the given kind from this
// host to dst, class and size set, for a scheduler to fill (Arg, QP, Seq)
// and hand to SendControl.
func (h *Host) NewControl(dst int, kind fabric.Kind, class uint8, size uint16) *fabric.Packet {
	p := h.pool.Get()
	p.Kind = kind
	p.Src, p.Dst = int32(h.ID), int32(dst)
	p.SPort, p.DPort = 4791, 4791
	p.Class = class
	p.Size = size
	return p
}

// SendControl queues a scheduler's control packet (grant) ahead of data.
// Grants cross the fabric like any packet, so they take an RTT and feel
// congestion.
func (h *Host) SendControl(p *fabric.Packet) {
	h.k.ControlPackets++
	h.k.ControlBytes += int64(p.Size)
	h.sendControl(h.sim.Now(), p)
}
