package rnic

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// Message is one work request (WQE) on a send queue from Src to Dst: a
// SEND or WRITE of Size bytes, a READ of Size bytes from Dst, or an ATOMIC
// on the 8-byte word at Ext.Addr of Dst (Size is ignored), by Verb; or a
// group of them forming one transaction.
type Message struct {
	ID        int64
	Src, Dst  int
	Size      int64
	Generator string // which workload generator made it
	Tag       string // workload-defined label (collective and step, incast event, ...)
	TxnID     int64  // transaction id for schedulers that group work requests; 0 = none
	User      any    // the workload's own handle, returned untouched on completion
	// Ext holds what SEND-only workloads never set: an ATOMIC's operands
	// and result, the completion callback and the fence. Nil for most
	// messages, which keeps a Message at 168 B (the 176 B size class, as
	// before verbs).
	Ext *Ext

	// Filled in by the NIC.
	Posted engine.Time // when it was posted (the FCT start)
	// Finished is when it completed: SEND and WRITE when the ACK of their
	// last byte arrived, READ when the last response packet did, ATOMIC
	// when its ATOMIC ACK did; later than that if an earlier WQE on the
	// same QP completed later (completions are in posting order).
	Finished engine.Time
	// QP carries the message while it is pending; it is nil once the
	// message is done (after OnComplete), so that finished messages do not
	// keep their QPs' transport, CC and scheduler state alive. QPID stays.
	QP            *QP
	QPID          int64 // the QP's ID, set when the message is posted
	Retransmitted int64
	// PSN is the packet sequence number of its first packet; it consumes
	// Verb.PSNs(Size, MTU) of them (a READ as many as its response has
	// packets, as in InfiniBand).
	PSN        int64
	start, end int64 // range in the QP's sequence space (bytes; 1 unit for a READ or ATOMIC request)

	Verb       rocev2.Verb // set by the workload; the zero value is SEND
	Done       bool
	FirstClass int8 // class of its first data packet, -1 until sent
	lastSent   bool // OnSent was called
	responded  bool // READ: its last response packet arrived; ATOMIC: its ATOMIC ACK did
	answered   bool // READ: its target queued the response (once, duplicates of the request aside)
}

// Ext is a Message's optional part.
type Ext struct {
	// Addr, Operand and Compare are an ATOMIC's target word, its addend
	// (FETCH_ADD) or swap value (CMP_SWAP), and CMP_SWAP's compare value.
	Addr, Operand, Compare uint64
	// Result is an ATOMIC's original value, from its ATOMIC ACK.
	Result uint64
	// OnDone, if set, is called when the message completes, before
	// Cluster.OnComplete (a per-WQE completion callback).
	OnDone func(m *Message)
	// Wait, if set, holds the message: its first packet is not sent while
	// Wait(qp) is false (a fence: a predicate on the WQEs posted before it,
	// qp.Messages()). It is asked whenever the QP's readiness is
	// recomputed (every ACK, completion, sent packet and rate change of
	// the QP); a predicate on other state calls Cluster.Recheck when that
	// state changes.
	Wait func(qp *QP) bool

	req      *Message // a READ response: the READ it answers
	executed bool     // an ATOMIC: it executed at its target
}

// wait is m's fence predicate, or nil.
func (m *Message) wait() func(*QP) bool {
	if m.Ext == nil {
		return nil
	}
	return m.Ext.Wait
}

// units is how much of its QP's sequence space m occupies: its bytes, or
// one unit for a request without payload.
func (m *Message) units() int64 {
	if m.Verb == rocev2.Read || m.Verb.Atomic() {
		return 1
	}
	return m.Size
}

// complete reports whether m may complete once the WQEs before it have:
// SEND and WRITE when their last byte is acknowledged, READ and ATOMIC
// when their response arrived.
func (m *Message) complete(una int64) bool {
	switch {
	case m.Verb == rocev2.Read || m.Verb.Atomic():
		return m.responded && m.end <= una
	}
	return m.end <= una
}

// Remaining is the number of its units not yet sent (from the QP's send
// point): bytes of a SEND, WRITE or READ response, 1 or 0 for a READ or
// ATOMIC request.
func (m *Message) Remaining() int64 {
	if m.Done {
		return 0
	}
	if m.QP == nil {
		return m.units()
	}
	nxt := m.QP.st.Nxt
	switch {
	case nxt <= m.start:
		return m.units()
	case nxt >= m.end:
		return 0
	}
	return m.end - nxt
}

// FCT is the flow completion time (valid when Done).
func (m *Message) FCT() engine.Time { return m.Finished - m.Posted }
