package rnic

import "github.com/dcsim/dcsim/engine"

// Message is one transfer (an RDMA SEND or WRITE work request, or a group
// of them forming one transaction) of Size bytes from Src to Dst.
type Message struct {
	ID        int64
	Src, Dst  int
	Size      int64
	Generator string // which workload generator made it
	Tag       string // workload-defined label (collective and step, incast event, ...)
	TxnID     int64  // transaction id for schedulers that group work requests; 0 = none
	User      any    // the workload's own handle, returned untouched on completion

	// Filled in by the NIC.
	Posted   engine.Time // when it was posted (the FCT start)
	Finished engine.Time // when the ACK of its last byte arrived
	Done     bool
	// QP carries the message while it is pending; it is nil once the
	// message is done (after OnComplete), so that finished messages do not
	// keep their QPs' transport, CC and scheduler state alive. QPID stays.
	QP            *QP
	QPID          int64 // the QP's ID, set when the message is posted
	FirstClass    int8  // class of its first data packet, -1 until sent
	Retransmitted int64

	start, end int64 // byte range in the QP's stream
	lastSent   bool  // OnSent was called
}

// Remaining is the number of its bytes not yet sent (from the QP's send point).
func (m *Message) Remaining() int64 {
	if m.Done {
		return 0
	}
	if m.QP == nil {
		return m.Size
	}
	nxt := m.QP.tx.Nxt
	switch {
	case nxt <= m.start:
		return m.Size
	case nxt >= m.end:
		return 0
	}
	return m.end - nxt
}

// FCT is the flow completion time (valid when Done).
func (m *Message) FCT() engine.Time { return m.Finished - m.Posted }
