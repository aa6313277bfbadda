package storm

import "math"

// What a data packet tells its receiver, packed into fabric.Packet.Arg
// (unused by the transport on data packets):
//
//	bits  0..1   kind: 0 none, 1 small transaction, 2 super-BDP transaction
//	             (3: a backlog update, in a Control packet's Arg; its
//	             bits 28..63 are unused)
//	bits  2..17  the transaction's ordinal on its QP (mod 2^16)
//	bits 18..27  the QP's backlog behind this transaction (saturates at 1023)
//	bits 28..63  bytes of the transaction after this packet (all ones: more
//	             than 2^36-2, exact size unknown to the receiver)
//
// A grant's Arg carries the class in bits 0..7, the ordinal in 8..23 and a
// revoke flag in bit 24 (a revocation's class is meaningless); its Seq is the stream offset below which the
// sender may send, its QP the sender's QP id.
const (
	kindNone   = 0
	kindSmall  = 1
	kindBig    = 2
	kindUpdate = 3

	maxWireBacklog = 1<<10 - 1
	remUnknown     = 1<<36 - 1
	endUnknown     = math.MaxInt64
)

type announce struct {
	kind     uint8
	ord      uint16
	backlog  int
	remAfter int64 // remUnknown when saturated
}

func (a announce) encode() int64 {
	b := uint64(min(a.backlog, maxWireBacklog))
	r := uint64(min(a.remAfter, remUnknown))
	return int64(uint64(a.kind) | uint64(a.ord)<<2 | b<<18 | r<<28)
}

func decodeAnnounce(arg int64) announce {
	u := uint64(arg)
	return announce{kind: uint8(u & 3), ord: uint16(u >> 2), backlog: int(u >> 18 & maxWireBacklog),
		remAfter: int64(u >> 28)}
}

type grantArg struct {
	class  uint8
	ord    uint16
	revoke bool
}

func (g grantArg) encode() int64 {
	a := int64(g.class) | int64(g.ord)<<8
	if g.revoke {
		a |= 1 << 24
	}
	return a
}

func decodeGrant(arg int64) grantArg {
	return grantArg{class: uint8(arg), ord: uint16(arg >> 8), revoke: arg>>24&1 == 1}
}
