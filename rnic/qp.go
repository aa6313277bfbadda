package rnic

import (
	"slices"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// QP is the sending side of one reliable-connection queue pair: an ordered
// queue of messages over one RoCEv2 byte stream, with its congestion
// control state, pacing and timers.
type QP struct {
	ID       int64
	Src, Dst int32
	SPort    uint16

	perFlow bool
	closed  bool
	// responder marks a responder-side context: the QP at a READ's target
	// that sends the response data, through its host's scheduler and CC
	// like any QP.
	responder bool
	ready     bool
	lastClass uint8
	// pinned: something may still refer to the QP after it closes (a CC
	// timer event, a READ's or ATOMIC's responder context, a WQE with
	// Ext), so it is not reused (Cluster.freeQPs).
	pinned bool

	host    *Host
	ext     *qpExt // nil unless the QP is a responder context or has fenced WQEs
	nextPSN int64  // PSN of the next message's first packet
	// tx is the QP's requester, go-back-N or selective repeat (chosen
	// by Cluster.newSender); st is its stream, read directly on the hot
	// path (readiness, the HOL, the scheduler's view, Check).
	tx   rocev2.Sender
	st   *rocev2.Stream
	msgs []*Message // unacknowledged messages in posting order
	hol  int        // index in msgs of the message holding the send point

	cc        cc.Algorithm
	rate      engine.Rate
	window    int64
	nextAvail engine.Time
	lastSize  int64 // wire size of the last packet sent (pacing recompute)
	pacedIdx  int32 // index in the host's pacing heap, -1 if not in it
	openIdx   int32 // index in the host's open QPs (Host.qps)

	rtoAt engine.Time // retransmission deadline, Never when nothing is in flight
	ccAt  engine.Time // earliest pending CC timer event

	// SchedState is the scheduler's own: it may keep its per-QP state
	// here; the NIC never reads it.
	SchedState any
}

// qpExt is a QP's rarely used part, out of line so that a QP stays in
// the 208 B size class: peer is a responder context's requester QP, waits
// the number of unsent messages with a Wait predicate, verdict the reorder
// window's timer.
type qpExt struct {
	peer    *QP
	waits   int
	verdict *verdictTimer // Config.ReorderWindow only
}

func (qp *QP) extension() *qpExt {
	if qp.ext == nil {
		qp.ext = &qpExt{}
	}
	return qp.ext
}

// waiting reports whether an unsent message of qp has a Wait predicate.
func (qp *QP) waiting() bool { return qp.ext != nil && qp.ext.waits > 0 }

// Host is the NIC the QP belongs to.
func (qp *QP) Host() *Host { return qp.host }

// Responder reports whether qp is a responder-side context: it sends the
// data of READs posted on Peer, at Peer's destination.
func (qp *QP) Responder() bool { return qp.responder }

// Peer is, for a responder context, the requester's QP it answers; nil
// for a requester's QP.
func (qp *QP) Peer() *QP {
	if qp.ext == nil {
		return nil
	}
	return qp.ext.peer
}

// held reports whether the message holding the send point waits for its
// Wait predicate before its first packet.
func (qp *QP) held() bool {
	if qp.hol >= len(qp.msgs) {
		return false
	}
	m := qp.msgs[qp.hol]
	w := m.wait()
	return w != nil && qp.st.Nxt == m.start && !w(qp)
}

// Ready reports whether the QP may send a data packet now: it has unsent
// bytes, its window is open and its pacing time has come.
func (qp *QP) Ready() bool { return qp.ready }

// Closed reports whether the QP has been torn down.
func (qp *QP) Closed() bool { return qp.closed }

// HOL is the head-of-line message (the one holding the send point), or
// nil when every posted byte has been sent.
func (qp *QP) HOL() *Message {
	if qp.hol < len(qp.msgs) {
		return qp.msgs[qp.hol]
	}
	return nil
}

// HOLRemaining is the HOL message's unsent bytes (0 if none).
func (qp *QP) HOLRemaining() int64 {
	if m := qp.HOL(); m != nil {
		return m.end - qp.st.Nxt
	}
	return 0
}

// Backlog is the number of messages queued behind the HOL one.
func (qp *QP) Backlog() int {
	if qp.hol >= len(qp.msgs) {
		return 0
	}
	return len(qp.msgs) - qp.hol - 1
}

// Messages returns the unacknowledged messages in posting order.
// The slice is the QP's own; do not modify it.
func (qp *QP) Messages() []*Message { return qp.msgs }

// InFlight is the number of sent, unacknowledged bytes (under selective
// repeat, everything below the highest byte sent that is not cumulatively
// acknowledged).
func (qp *QP) InFlight() int64 { return qp.tx.InFlight() }

// Unsent is the number of posted bytes not yet sent.
func (qp *QP) Unsent() int64 { return qp.st.Unsent() }

// SendPoint is the stream offset of the next byte to send; Acked is the
// cumulative acknowledgement point.
func (qp *QP) SendPoint() int64 { return qp.st.Nxt }

// Acked is the stream offset below which every byte is acknowledged.
func (qp *QP) Acked() int64 { return qp.st.Una }

// Rate is the congestion-control rate; Window the CC window (0 = none).
func (qp *QP) Rate() engine.Rate { return qp.rate }

// Window is the CC window in bytes (0 = none).
func (qp *QP) Window() int64 { return qp.window }

// LastClass is the class of the QP's most recent data packet.
func (qp *QP) LastClass() uint8 { return qp.lastClass }

// rewound re-finds the HOL, the first message that ends beyond the send
// point, after the requester moved that point (a packet sent, an ACK, a
// NACK or a timeout: go-back-N moves it back, selective repeat anywhere).
// Messages end in posting order, so it walks from the old HOL. The hot
// callers (a packet sent, an ACK) test inHOL first, which inlines.
func (qp *QP) rewound() {
	nxt := qp.st.Nxt
	h := min(qp.hol, len(qp.msgs))
	for h > 0 && qp.msgs[h-1].end > nxt {
		h--
	}
	for h < len(qp.msgs) && qp.msgs[h].end <= nxt {
		h++
	}
	if h != qp.hol {
		qp.hol = h
		qp.host.sched.HOLChanged(qp)
	}
}

// inHOL reports whether the send point is still inside the HOL message
// (messages are contiguous in the stream): then rewound would not move it.
func (qp *QP) inHOL() bool {
	if h := qp.hol; h < len(qp.msgs) {
		m := qp.msgs[h]
		return m.start <= qp.st.Nxt && qp.st.Nxt < m.end
	}
	return false
}

// changedRate reports whether the algorithm's last update went through
// the reference NIC's ChangeRate (cc.RateChangeReporter; every update of
// an algorithm that does not say).
func (qp *QP) changedRate() bool {
	r, ok := qp.cc.(cc.RateChangeReporter)
	return !ok || r.ChangedRate()
}

// applyCC reads the algorithm's rate and window, reschedules pacing after
// a rate change (docs/model.md §5.1), re-arms its timer and updates readiness.
func (qp *QP) applyCC(now engine.Time) {
	r := qp.cc.Rate()
	h := qp.host
	if r != qp.rate {
		h.c.pacing.repace(qp, now, r)
		if o := h.c.Observer; o != nil {
			o.RateChange(now, qp, qp.rate, r)
		}
		qp.rate = r
	}
	h.egress.rateApplied(now, qp)
	qp.window = qp.cc.Window()
	qp.armCC(now)
	if !qp.closed {
		qp.host.updateReady(qp)
	}
}

func (qp *QP) armCC(now engine.Time) {
	t := qp.cc.NextTimer()
	if t == engine.Never || t >= qp.ccAt {
		return
	}
	t = max(t, now)
	qp.ccAt = t
	qp.pinned = true // the event stays queued after the QP closes
	qp.host.sim.At(t, qp, evCC)
}

// armRTO sets the QP's retransmission deadline. The host keeps one event
// at the earliest deadline of all its QPs (see Host.checkRTO): RTOs almost
// never fire, and a pending event per QP would double the event queue.
func (qp *QP) armRTO(at engine.Time) {
	qp.rtoAt = at
	h := qp.host
	if at < h.rtoCheckAt {
		h.rtoCheckAt = at
		h.sim.At(at, h, evRTOCheck)
	}
}

const evCC uint8 = 0

// Fire implements engine.Handler for the QP's timers.
func (qp *QP) Fire(now engine.Time, _ uint8) {
	if qp.closed {
		return
	}
	if now == qp.ccAt {
		qp.ccAt = engine.Never
	}
	if qp.cc.NextTimer() <= now {
		qp.cc.OnTimer(now)
	}
	qp.applyCC(now)
	qp.host.egress.ccTimer(now)
}

// timeout is a retransmission timeout: go back to the first unacknowledged
// byte.
func (qp *QP) timeout(now engine.Time) {
	h := qp.host
	h.k.RTOs++
	qp.tx.OnTimeout()
	qp.rewound()
	if rw, ok := h.sched.(Rewinder); ok {
		rw.Rewound(qp)
	}
	qp.rtoAt = now + h.c.Cfg.RTO
	h.updateReady(qp)
}

func sortQPs(qs []*QP) {
	slices.SortFunc(qs, func(a, b *QP) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}

// pacedHeap is a binary min-heap of QPs by pacing time (ties by id).
//
// It stays hand-written, not internal/iheap (which SRPT, PIAS and STORM
// use): iheap needs an iheap.Node (a 32 B key, its index and class: 40 B)
// as the item's first field, while this heap's key is two fields the QP
// has anyway (nextAvail, ID) and its index is pacedIdx. The node would
// add 32 B to every QP, from the 208 B size class to 240 B (TestMessageSize
// holds QP to 208 B), with one QP per flow under per-flow mapping.
type pacedHeap struct{ h []*QP }

func (p *pacedHeap) len() int { return len(p.h) }
func (p *pacedHeap) min() *QP { return p.h[0] }
func lessPaced(a, b *QP) bool {
	return a.nextAvail < b.nextAvail || (a.nextAvail == b.nextAvail && a.ID < b.ID)
}

func (p *pacedHeap) push(q *QP) {
	q.pacedIdx = int32(len(p.h))
	p.h = append(p.h, q)
	p.up(int(q.pacedIdx))
}

func (p *pacedHeap) pop() *QP {
	q := p.h[0]
	p.removeAt(0)
	return q
}

func (p *pacedHeap) remove(q *QP) { p.removeAt(int(q.pacedIdx)) }

func (p *pacedHeap) fix(q *QP) {
	if !p.down(int(q.pacedIdx)) {
		p.up(int(q.pacedIdx))
	}
}

func (p *pacedHeap) removeAt(i int) {
	q := p.h[i]
	n := len(p.h) - 1
	if i != n {
		p.swap(i, n)
	}
	p.h[n] = nil
	p.h = p.h[:n]
	if i != n {
		if !p.down(i) {
			p.up(i)
		}
	}
	q.pacedIdx = -1
}

func (p *pacedHeap) swap(i, j int) {
	p.h[i], p.h[j] = p.h[j], p.h[i]
	p.h[i].pacedIdx = int32(i)
	p.h[j].pacedIdx = int32(j)
}

func (p *pacedHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !lessPaced(p.h[i], p.h[parent]) {
			return
		}
		p.swap(i, parent)
		i = parent
	}
}

func (p *pacedHeap) down(i int) bool {
	start := i
	n := len(p.h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && lessPaced(p.h[r], p.h[l]) {
			c = r
		}
		if !lessPaced(p.h[c], p.h[i]) {
			break
		}
		p.swap(i, c)
		i = c
	}
	return i > start
}
