package rnic

// One-sided verbs: fences on the requester (docs/model.md §9.1), built on
// Ext.Wait, and what a placement hook asks of a packet.

import (
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// SendFence makes m wait as a WR posted with IBV_SEND_FENCE does: its
// first packet is held until every RDMA READ and ATOMIC posted before it
// on its QP has completed; prior WRITEs and SENDs are not waited for
// (ibv_post_send(3)). A Wait m already has must hold too. Call it before
// Post.
func SendFence(m *Message) {
	addWait(m, func(qp *QP) bool {
		for _, x := range qp.msgs {
			if x == m {
				return true
			}
			if x.Verb == rocev2.Read || x.Verb.Atomic() {
				return false // not completed: completed WQEs leave the queue
			}
		}
		return true
	})
}

// ImplicitFence holds the ATOMIC m until every WRITE posted before it on
// its QP is acknowledged: what multi-path NICs' stacks do to keep
// write-then-atomic correct (Config.ImplicitFence; deepseek-ai/DeepEP PR
// #437), about one RTT per ATOMIC. A Wait m already has must hold too.
func ImplicitFence(m *Message) {
	addWait(m, func(qp *QP) bool {
		for _, x := range qp.msgs {
			if x == m {
				return true
			}
			if x.Verb == rocev2.Write && x.end > qp.st.Una {
				return false
			}
		}
		return true
	})
}

// addWait adds the predicate w to m's Wait (both must hold).
func addWait(m *Message, w func(*QP) bool) {
	if m.Ext == nil {
		m.Ext = &Ext{}
	}
	if prev := m.Ext.Wait; prev != nil {
		m.Ext.Wait = func(qp *QP) bool { return w(qp) && prev(qp) }
		return
	}
	m.Ext.Wait = w
}

// WQE is the requester's work request whose payload the SEND or WRITE
// data packet p carries, and p's byte offset in it: what a placement hook
// (Cluster.OnPlace) at the target needs to know where the bytes go. Nil
// when that WQE already completed. The WQE is the requester's state, so
// WQE works on one thread only (on a World of more threads it panics).
func (c *Cluster) WQE(p *fabric.Packet) (*Message, int64) {
	if len(c.locals) > 1 {
		panic("rnic: WQE reads the requester's state, another unit's: on one thread only")
	}
	q := c.locals[0].qp(p.QP)
	if q == nil || q.responder {
		return nil, 0
	}
	for _, m := range q.msgs {
		if m.start <= p.Seq && p.Seq < m.end {
			return m, p.Seq - m.start
		}
	}
	return nil, 0
}
