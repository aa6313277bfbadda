package rnic

// The QP table: choosing, opening and closing QPs, and finding them by id.

import (
	"math"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
)

func (h *Host) qpFor(m *Message) *QP {
	if h.c.Cfg.Mapping.PerFlow {
		return h.openQP(int32(m.Dst), true)
	}
	pq := h.pairs[int32(m.Dst)]
	if pq == nil {
		pq = &pairQPs{}
		for i := 0; i < h.c.Cfg.Mapping.Pool; i++ {
			pq.qps = append(pq.qps, h.openQP(int32(m.Dst), false))
		}
		h.pairs[int32(m.Dst)] = pq
	}
	qp := pq.qps[pq.next]
	pq.next = (pq.next + 1) % len(pq.qps)
	return qp
}

// openQP opens a requester's QP towards dst.
func (h *Host) openQP(dst int32, perFlow bool) *QP {
	return h.newQP(dst, perFlow, func() uint16 { return h.nextPort(dst) })
}

// openResponder opens the responder context that sends the READ response
// data of the requester's QP q from this host (q's destination). It is a
// QP like any other (its host's scheduler ranks it, its own CC state paces
// it, the requester acknowledges its data) with q's source port, so its
// packets hash as q's ACKs do; it closes when its responses are
// acknowledged.
func (h *Host) openResponder(q *QP) *QP {
	rq := h.newQP(q.Src, true, func() uint16 { return q.SPort })
	rq.responder = true
	rq.extension().peer = q
	if h.responders == nil {
		h.responders = map[int64]*QP{}
	}
	h.responders[q.ID] = rq
	return rq
}

func (h *Host) newQP(dst int32, perFlow bool, port func() uint16) *QP {
	c := h.c
	c.nextQP++
	if c.nextQP > math.MaxInt32 {
		// Packets carry the QP id in 32 bits (fabric.Packet.QP).
		panic("rnic: more than 2^31-1 QPs opened in one run")
	}
	c.Counters.QPsOpened++
	sport := port()
	fresh := QP{ID: c.nextQP, host: h, Src: int32(h.ID), Dst: dst, SPort: sport, perFlow: perFlow,
		pacedIdx: -1, ccAt: engine.Never, rtoAt: engine.Never}
	var qp *QP
	if n := len(c.freeQPs); n > 0 && perFlow {
		qp = c.freeQPs[n-1]
		c.freeQPs[n-1] = nil
		c.freeQPs = c.freeQPs[:n-1]
		c.reusedQPs++
		old, msgs, tx := qp.cc, qp.msgs, qp.tx
		*qp = fresh
		qp.msgs = msgs[:0]
		if r, ok := old.(cc.Resetter); ok {
			r.Reset()
			qp.cc = old
		}
		tx.Reset()
		qp.tx = tx
	} else {
		qp = new(QP)
		*qp = fresh
		qp.tx = c.newSender()
	}
	qp.st = qp.tx.State()
	if qp.cc == nil {
		qp.cc = c.Cfg.CC.New(c.Cfg.CCEnv)
	}
	qp.rate = qp.cc.Rate()
	qp.window = qp.cc.Window()
	qp.openIdx = int32(len(h.qps))
	h.qps = append(h.qps, qp)
	c.byID.open(qp)
	h.sched.QPOpened(qp)
	qp.armCC(c.Sim.Now())
	return qp
}

// nextPort is the source port of a new QP towards dst.
func (h *Host) nextPort(dst int32) uint16 { return h.c.portFor(h, dst) }

func (h *Host) closeQP(qp *QP) {
	if qp.ready {
		qp.ready = false
		h.ready--
		h.sched.ReadyChanged(qp)
	}
	if qp.pacedIdx >= 0 {
		h.paced.remove(qp)
	}
	qp.closed = true
	if qp.responder {
		delete(h.responders, qp.ext.peer.ID)
	}
	last := h.qps[len(h.qps)-1]
	h.qps[qp.openIdx], last.openIdx = last, qp.openIdx
	h.qps[len(h.qps)-1] = nil
	h.qps = h.qps[:len(h.qps)-1]
	h.c.byID.close(qp.ID)
	h.c.Counters.QPsClosed++
	h.sched.QPClosed(qp)
	if h.reusable(qp) {
		h.c.freeQPs = append(h.c.freeQPs, qp)
	}
}

// reusable reports whether the closed qp's memory may serve a QP opened
// later (Cluster.freeQPs): a per-flow requester QP that nothing refers
// to any more. Its id is dead (packets carry ids, and byID has nil for
// it), the scheduler said it keeps no reference (Releaser), no observer
// saw it, and no CC timer event, responder context, callback or fence
// can reach it (pinned, ext). TestQPReuse checks that a reused QP is a
// fresh one.
func (h *Host) reusable(qp *QP) bool {
	if !qp.perFlow || qp.responder || qp.pinned || qp.ext != nil || qp.SchedState != nil || h.c.Observer != nil {
		return false
	}
	_, ok := h.sched.(Releaser)
	return ok && len(h.c.freeQPs) < maxFreeQPs
}

// maxFreeQPs bounds the closed QPs kept for reuse (about 50 KB of them).
const maxFreeQPs = 256

// qp is this host's open QP with the given id, or nil.
func (h *Host) qp(id int32) *QP {
	if qp := h.c.byID.qp(id); qp != nil && qp.host == h {
		return qp
	}
	return nil
}

// qpTable finds a QP and its receive state (at its destination) by id, as
// packets carry it: one pointer each per id, in pages of qpPageSize ids.
// A page is freed once every id in it has been opened and closed and
// every receive state of them has ended (finishedRx), so that the table
// holds the QPs that are open and the pages around them, not 16 B per QP
// ever opened (16 MB per million per-flow QPs, which grew with the
// finished flows). A lookup in a freed page finds what the slots held: no
// QP, and finishedRx (a late duplicate is still recognised as one).
type qpTable struct {
	pages []*qpPage
}

const (
	qpPageBits = 10
	qpPageSize = 1 << qpPageBits
)

type qpPage struct {
	qp         [qpPageSize]*QP
	rx         [qpPageSize]*rxQP
	closed     int32 // ids of the page whose QP closed
	unfinished int32 // rx slots that are not finishedRx
}

// qp is the open QP with id, or nil.
func (t *qpTable) qp(id int32) *QP {
	if i := int(id >> qpPageBits); i < len(t.pages) {
		if pg := t.pages[i]; pg != nil {
			return pg.qp[id&(qpPageSize-1)]
		}
	}
	return nil
}

// rx is the receive state of id: nil before its first packet, finishedRx
// once its message was received whole.
func (t *qpTable) rx(id int32) *rxQP {
	if i := int(id >> qpPageBits); i < len(t.pages) {
		if pg := t.pages[i]; pg != nil {
			return pg.rx[id&(qpPageSize-1)]
		}
		return finishedRx // a freed page
	}
	return nil
}

// open records a newly opened QP (ids open in order, so its page is the
// last one or a new one).
func (t *qpTable) open(qp *QP) {
	i := int(qp.ID >> qpPageBits)
	for len(t.pages) <= i {
		t.pages = append(t.pages, &qpPage{unfinished: qpPageSize})
	}
	t.pages[i].qp[qp.ID&(qpPageSize-1)] = qp
}

// close records that the QP with id closed.
func (t *qpTable) close(id int64) {
	pg := t.pages[id>>qpPageBits]
	pg.qp[id&(qpPageSize-1)] = nil
	pg.closed++
	t.release(id)
}

// setRx sets the receive state of id (finishedRx when it ends).
func (t *qpTable) setRx(id int32, rx *rxQP) {
	i := int(id >> qpPageBits)
	pg := t.pages[i]
	if pg == nil { // freed: every slot finished; bring it back as it was
		pg = &qpPage{closed: qpPageSize}
		for k := range pg.rx {
			pg.rx[k] = finishedRx
		}
		t.pages[i] = pg
	}
	slot := &pg.rx[id&(qpPageSize-1)]
	switch {
	case *slot != finishedRx && rx == finishedRx:
		pg.unfinished--
	case *slot == finishedRx && rx != finishedRx:
		pg.unfinished++
	}
	*slot = rx
	t.release(int64(id))
}

// release frees id's page once all its QPs closed and their receive
// states ended.
func (t *qpTable) release(id int64) {
	i := id >> qpPageBits
	if pg := t.pages[i]; pg.closed == qpPageSize && pg.unfinished == 0 {
		t.pages[i] = nil
	}
}
