package rnic

// The QP table: choosing, opening and closing QPs, and finding them by id.

import (
	"fmt"
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
	c, l, t := h.c, h.loc, h.tab
	t.opened++
	if t.opened > math.MaxInt32>>l.shift {
		// Packets carry the QP id in 32 bits (fabric.Packet.QP).
		if l.shift == 0 {
			panic("rnic: more than 2^31-1 QPs opened in one run")
		}
		panic(fmt.Sprintf("rnic: unit %d opened more than 2^%d-1 QPs, its share of the 2^31-1 ids of one run (%d bits of each name its unit)",
			h.unit, 31-l.shift, l.shift))
	}
	h.k.QPsOpened++
	sport := port()
	fresh := QP{ID: t.opened<<l.shift | int64(h.unit), host: h, Src: int32(h.ID), Dst: dst, SPort: sport, perFlow: perFlow,
		pacedIdx: -1, ccAt: engine.Never, rtoAt: engine.Never}
	var qp *QP
	if n := len(l.freeQPs); n > 0 && perFlow {
		qp = l.freeQPs[n-1]
		l.freeQPs[n-1] = nil
		l.freeQPs = l.freeQPs[:n-1]
		l.reusedQPs++
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
	t.open(t.opened, qp)
	h.sched.QPOpened(qp)
	qp.armCC(h.sim.Now())
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
	if seq := qp.ID >> h.idShift; h.tab.close(seq) {
		h.pageClosed(seq >> qpPageBits)
	}
	h.k.QPsClosed++
	h.sched.QPClosed(qp)
	if h.reusable(qp) {
		h.loc.freeQPs = append(h.loc.freeQPs, qp)
	}
}

// reusable reports whether the closed qp's memory may serve a QP opened
// later (local.freeQPs): a per-flow requester QP that nothing refers
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
	return ok && len(h.loc.freeQPs) < maxFreeQPs
}

// maxFreeQPs bounds the closed QPs kept for reuse by one thread (about
// 50 KB of them).
const maxFreeQPs = 256

// qp is this host's open QP with the given id, or nil.
func (h *Host) qp(id int32) *QP {
	// An ACK, NACK or CNP comes back to the QP's host, so id is of h's
	// unit and in h.tab.
	if qp := h.tab.qp(id >> h.idShift); qp != nil && qp.host == h {
		return qp
	}
	return nil
}

// local is what the handlers of a host change beyond the host itself,
// shared by the hosts that one thread runs: on a plain cluster, every
// host; on an engine.World, the hosts of one thread's units, so that no
// two threads share it (docs/parallel.md). Each Host holds its thread's
// local and the parts it touches per packet (sim, counters), so that the
// hot paths load them from the host as they loaded them from the cluster.
type local struct {
	sim      *engine.Sim
	counters *Counters // the Cluster's Counters on a plain cluster
	// tabs[u] finds unit u's QPs and their receive states by id: a QP id
	// is seq<<shift | u, seq counting the QPs unit u opened from 1, so
	// that ids do not depend on which unit ran first or on the thread
	// count. A plain cluster has one unit (shift 0): ids 1, 2, 3 in the
	// order QPs open. Here tabs[u] holds unit u's QPs if u is this
	// thread's, and the receive states of u's QPs at this thread's hosts.
	tabs  []qpTable
	shift uint8
	mask  int32
	// freeQPs are closed QPs whose memory the next per-flow QPs of this
	// thread reuse (Host.reusable), with their CC state when it is a
	// cc.Resetter.
	freeQPs   []*QP
	reusedQPs int64
	hosts     []*Host // the hosts this thread runs, in id order
}

// qp is the open QP with id, or nil; only the thread of the QP's unit
// finds it.
func (l *local) qp(id int32) *QP { return l.tabs[id&l.mask].qp(id >> l.shift) }

// rxState is the receive state of the QP id at h (qpTable.rx), the table
// holding it and id's sequence number there: h's own unit's table
// (Host.tab), always on a plain cluster, or the table of the QP's unit in
// h's thread.
func (h *Host) rxState(id int32) (*rxQP, *qpTable, int32) {
	t, seq := h.tab, id>>h.idShift
	if u := id & h.idMask; u != h.unit {
		t = &h.loc.tabs[u]
	}
	return t.rx(seq), t, seq
}

// qpTable finds a QP and its receive state (at its destination) by its
// sequence number in its unit (local.tabs), as packets carry it: one
// pointer each per id, in pages of qpPageSize ids. A page is freed once
// every id in it has been opened and closed and every receive state of
// them has ended (finishedRx), so that the table holds the QPs that are
// open and the pages around them, not 16 B per QP ever opened (16 MB per
// million per-flow QPs, which grew with the finished flows). A lookup in
// a freed page finds what the slots held: no QP, and finishedRx (a late
// duplicate is still recognised as one).
//
// On a World, a table counts the receive states that started and have not
// ended (live), since the QPs of other threads' hosts never start one
// here: a page of its own unit is freed once its QPs closed and no receive
// state in it is live (a QP closes only once its data arrived, so its
// receive state here, if any, has started by then). The table of another
// thread's unit does not see its QPs close: that unit's thread, when the
// last QP of a page closes, hands every other thread a notice
// (pageNotice), and at the window's end the page is freed there too once
// no receive state in it is live. Only pages not yet wholly closed (the
// newest ones of each unit, and those with a QP that stays open) are
// kept.
type qpTable struct {
	pages  []*qpPage
	opened int64 // QPs the unit opened: the last sequence number
	world  bool  // count live receive states (the World rule above)
}

const (
	qpPageBits = 10
	qpPageSize = 1 << qpPageBits
)

type qpPage struct {
	qp     [qpPageSize]*QP
	rx     [qpPageSize]*rxQP
	closed int32 // ids of the page whose QP closed
	// unfinished counts the rx slots that are not finishedRx, or on a
	// World the live ones (qpTable).
	unfinished int32
}

// newPage is a page with no QP and no receive state yet.
func (t *qpTable) newPage() *qpPage {
	if t.world {
		return &qpPage{}
	}
	return &qpPage{unfinished: qpPageSize}
}

// qp is the open QP with sequence number seq, or nil.
func (t *qpTable) qp(seq int32) *QP {
	if i := int(seq >> qpPageBits); i < len(t.pages) {
		if pg := t.pages[i]; pg != nil {
			return pg.qp[seq&(qpPageSize-1)]
		}
	}
	return nil
}

// rx is the receive state of seq: nil before its first packet, finishedRx
// once its message was received whole.
func (t *qpTable) rx(seq int32) *rxQP {
	if i := int(seq >> qpPageBits); i < len(t.pages) {
		if pg := t.pages[i]; pg != nil {
			return pg.rx[seq&(qpPageSize-1)]
		}
		return finishedRx // a freed page
	}
	return nil
}

// open records a newly opened QP (sequence numbers open in order, so its
// page is the last one or a new one).
func (t *qpTable) open(seq int64, qp *QP) {
	i := int(seq >> qpPageBits)
	for len(t.pages) <= i {
		t.pages = append(t.pages, t.newPage())
	}
	t.pages[i].qp[seq&(qpPageSize-1)] = qp
}

// close records that the QP with sequence number seq closed, and
// reports whether every QP of its page has now closed.
func (t *qpTable) close(seq int64) bool {
	pg := t.pages[seq>>qpPageBits]
	pg.qp[seq&(qpPageSize-1)] = nil
	pg.closed++
	all := pg.closed == qpPageSize
	t.release(seq)
	return all
}

// closedElsewhere records, in another thread's unit's table, that every
// QP of page i closed (at its unit, which sent the notice: pageNotice):
// the page is freed once no receive state in it is live, as a page of
// the table's own unit is. A page this table never had stays absent.
func (t *qpTable) closedElsewhere(i int64) {
	if i >= int64(len(t.pages)) || t.pages[i] == nil {
		return
	}
	t.pages[i].closed = qpPageSize
	t.release(i << qpPageBits)
}

// pageNotice tells another thread that every QP of a page of unit unit
// closed, so that its table of that unit may free the page
// (qpTable.closedElsewhere). It arrives at the end of the window: after
// the QPs closed, when only late duplicates of their data can still
// arrive, which a freed page recognises (finishedRx).
type pageNotice struct {
	tab  *qpTable
	page int64
}

// Arrive implements engine.Courier.
func (n *pageNotice) Arrive(*engine.Sim) { n.tab.closedElsewhere(n.page) }

// pageClosed sends every other thread that runs hosts a pageNotice for
// page i of h's unit, whose QPs have all closed. A plain cluster, or a
// World on one thread, has no other thread.
func (h *Host) pageClosed(i int64) {
	for _, l := range h.c.locals {
		if l != h.loc {
			h.sim.Hand(h.unit, l.hosts[0].unit, &pageNotice{tab: &l.tabs[h.unit], page: i})
		}
	}
}

// setRx sets the receive state of seq (finishedRx when it ends).
func (t *qpTable) setRx(seq int32, rx *rxQP) {
	i := int(seq >> qpPageBits)
	for len(t.pages) <= i { // another thread's unit: its QPs open there
		t.pages = append(t.pages, t.newPage())
	}
	pg := t.pages[i]
	if pg == nil { // freed: every slot finished; bring it back as it was
		pg = &qpPage{closed: qpPageSize}
		for k := range pg.rx {
			pg.rx[k] = finishedRx
		}
		t.pages[i] = pg
	}
	slot := &pg.rx[seq&(qpPageSize-1)]
	switch {
	case t.world:
		pg.unfinished += live(rx) - live(*slot)
	case *slot != finishedRx && rx == finishedRx:
		pg.unfinished--
	case *slot == finishedRx && rx != finishedRx:
		pg.unfinished++
	}
	*slot = rx
	t.release(int64(seq))
}

// live is 1 for a receive state that started and has not ended.
func live(rx *rxQP) int32 {
	if rx == nil || rx == finishedRx {
		return 0
	}
	return 1
}

// release frees seq's page once all its QPs closed and their receive
// states ended.
func (t *qpTable) release(seq int64) {
	i := seq >> qpPageBits
	if pg := t.pages[i]; pg.closed == qpPageSize && pg.unfinished == 0 {
		t.pages[i] = nil
	}
}
