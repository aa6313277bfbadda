package rnic

// The requester's half of the reorder-tolerant selective receiver
// (Config.DupThresh).

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// selectiveAck applies the ACK p to qp's selective-repeat requester and
// returns the units it newly acknowledged. In the reorder-tolerant mode an
// ACK (not an ATOMIC ACK, whose argument is the original value) with a
// range is a SACK, and every ACK lets the requester re-evaluate what is
// lost; in IRN's mode an ACK is cumulative only.
func (h *Host) selectiveAck(now engine.Time, qp *QP, p *fabric.Packet) int64 {
	if qp.sr.DupThresh == 0 {
		return qp.sr.OnAck(p.Seq)
	}
	var sack rocev2.Span
	if rocev2.Opcode(p.Op) == rocev2.AckOp && p.Arg != 0 {
		sack = rocev2.DecodeSack(p.Arg)
		h.c.Counters.Sacks++
	}
	return qp.sr.OnSack(now, p.Seq, sack)
}
