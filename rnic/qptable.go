package rnic

// The QP table: choosing, opening and closing QPs, and finding them by id.

import (
	"math"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/transport/rocev2"
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
	qp := &QP{ID: c.nextQP, host: h, Src: int32(h.ID), Dst: dst, SPort: sport, perFlow: perFlow,
		pacedIdx: -1, ccAt: engine.Never, rtoAt: engine.Never}
	if c.Cfg.Selective {
		qp.sr = &rocev2.SelectiveSender{DupThresh: c.Cfg.DupThresh, MTU: c.Cfg.MTU, ReorderWindow: c.Cfg.ReorderWindow}
	}
	qp.cc = c.Cfg.CC.New(c.Cfg.CCEnv)
	qp.rate = qp.cc.Rate()
	qp.window = qp.cc.Window()
	h.qps[qp.ID] = qp
	for int64(len(c.byID)) <= qp.ID {
		c.byID = append(c.byID, nil)
		c.rxByID = append(c.rxByID, nil)
	}
	c.byID[qp.ID] = qp
	h.sched.QPOpened(qp)
	qp.armCC(c.Sim.Now())
	return qp
}

// nextPort is the source port of a new QP towards dst.
func (h *Host) nextPort(dst int32) uint16 {
	if h.c.Cfg.Compat.PairPorts {
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
	h.sport++
	if h.sport < 10000 {
		h.sport = 10000
	}
	return h.sport
}

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
	delete(h.qps, qp.ID)
	h.c.byID[qp.ID] = nil
	h.c.Counters.QPsClosed++
	h.sched.QPClosed(qp)
}

// qp is this host's open QP with the given id, or nil.
func (h *Host) qp(id int32) *QP {
	if qp := h.c.byID[id]; qp != nil && qp.host == h {
		return qp
	}
	return nil
}
