package rnic

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// Scheduler is a NIC's egress arbiter between QPs. The Host notifies it of
// every event that changes what it may pick, and asks Pick for the next
// data packet whenever the port may send one and no control packet waits.
//
// Contract: Pick must return a QP for which Ready() is true, with a class
// 1..7 that is not in paused; or nil. A scheduler keeps whatever ordered
// structures it needs from the notifications (no scanning of all QPs on
// every Pick is required or expected).
type Scheduler interface {
	// Attach is called once, before any other method.
	Attach(h *Host)
	// QPOpened and QPClosed bracket a QP's life on this NIC: a
	// requester's QP or a responder context that sends READ response data
	// (QP.Responder), ranked like any other.
	QPOpened(qp *QP)
	QPClosed(qp *QP)
	// Posted: message m was queued on qp (it may or may not be the HOL).
	Posted(qp *QP, m *Message)
	// HOLChanged: qp's head-of-line message changed (the previous one was
	// fully sent, or go-back-N moved the send point back into an earlier
	// message).
	HOLChanged(qp *QP)
	// ReadyChanged: qp.Ready() flipped.
	ReadyChanged(qp *QP)
	// Sent: a data packet of qp was handed to the port. The packet is
	// final: a scheduler that writes into it does so in Stamp (Stamper).
	Sent(qp *QP, p *fabric.Packet)
	// Acked: an ACK or NACK for qp was processed (Una may have moved),
	// or a READ response completed one of its READs.
	Acked(qp *QP)
	// Control: a Grant or Control packet arrived for this NIC's scheduler.
	// The packet is returned to the pool after the call.
	Control(now engine.Time, p *fabric.Packet)
	// Received: a data packet arrived at this NIC as a receiver, before
	// it is acknowledged. The packet is valid only during the call.
	Received(now engine.Time, p *fabric.Packet)
	// Pick chooses the QP and class of the next data packet.
	Pick(now engine.Time, paused uint8) (qp *QP, class uint8)
}

// SchedulerBase implements every Scheduler notification as a no-op. A
// scheduler embeds it and writes only the notifications it uses, and Pick.
type SchedulerBase struct{}

func (SchedulerBase) Attach(*Host)                         {}
func (SchedulerBase) QPOpened(*QP)                         {}
func (SchedulerBase) QPClosed(*QP)                         {}
func (SchedulerBase) Posted(*QP, *Message)                 {}
func (SchedulerBase) HOLChanged(*QP)                       {}
func (SchedulerBase) ReadyChanged(*QP)                     {}
func (SchedulerBase) Sent(*QP, *fabric.Packet)             {}
func (SchedulerBase) Acked(*QP)                            {}
func (SchedulerBase) Control(engine.Time, *fabric.Packet)  {}
func (SchedulerBase) Received(engine.Time, *fabric.Packet) {}

// Observer receives a QP's trace points: data sent, ACK or NACK processed
// (the packet is valid only during the call) and congestion-control rate
// changes.
type Observer interface {
	Sent(now engine.Time, qp *QP, p *fabric.Packet)
	Acked(now engine.Time, qp *QP, p *fabric.Packet)
	RateChange(now engine.Time, qp *QP, old, new engine.Rate)
}

// Stamper is an optional Scheduler extension. Stamp is called for every
// data packet of qp before the QP's pacing gap and the port's
// serialisation are computed from its size: the scheduler may write p.Arg
// (unused on data packets) and add its own header bytes to p.Size, and
// both are then charged as wire bytes like any header.
type Stamper interface {
	Stamp(qp *QP, p *fabric.Packet)
}

// Rewinder is an optional Scheduler extension. Rewound is called after a
// retransmission timeout moved qp's send point back to its first
// unacknowledged byte, before readiness is updated. (A NACK's rewind is
// reported through Acked; a rewind that changes the head-of-line message
// also through HOLChanged.) A scheduler whose choice depends on the send
// point, such as an in-order guard that lets retransmissions pass, needs it.
type Rewinder interface {
	Rewound(qp *QP)
}

// Releaser is an optional Scheduler extension: ReleasesQPs says that the
// scheduler keeps no reference to a QP after QPClosed (and leaves its
// SchedState nil), so that the NIC may reuse the closed QP's memory for
// a QP it opens later (see "Memory" in the package doc). A scheduler that
// drops closed QPs lazily, as NS3Fair's list does, must not implement it.
type Releaser interface {
	ReleasesQPs()
}
