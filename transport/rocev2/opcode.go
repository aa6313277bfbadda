package rocev2

// Opcode is a packet's transport opcode (the BTH OpCode of an RC QP,
// InfiniBand Architecture Specification vol. 1, 9.2, table 38), carried in
// fabric.Packet.Op. The zero value is a packet without one (PFC, grants).
type Opcode uint8

// Opcodes.
const (
	OpNone Opcode = iota
	SendFirst
	SendMiddle
	SendLast
	SendOnly
	WriteFirst
	WriteMiddle
	WriteLast
	WriteOnly
	ReadRequest
	ReadResponseFirst
	ReadResponseMiddle
	ReadResponseLast
	ReadResponseOnly
	FetchAddRequest    // ATOMIC Fetch and Add
	CompareSwapRequest // ATOMIC Compare and Swap
	AtomicAck          // carries the 8 B original value (AtomicAckETH)
	AckOp              // ACKNOWLEDGE (AETH)
	NakOp              // ACKNOWLEDGE with a NAK syndrome (go-back-N or selective repeat)
	numOpcodes
)

var opNames = [numOpcodes]string{"none", "SEND first", "SEND middle", "SEND last", "SEND only",
	"WRITE first", "WRITE middle", "WRITE last", "WRITE only", "READ request",
	"READ response first", "READ response middle", "READ response last", "READ response only",
	"FETCH_ADD", "CMP_SWAP", "ATOMIC ACK", "ACK", "NAK"}

func (o Opcode) String() string {
	if o < numOpcodes {
		return opNames[o]
	}
	return "opcode?"
}

// Request reports whether o is a request without payload that occupies
// one unit of the requester's sequence space: a READ request or an ATOMIC.
func (o Opcode) Request() bool {
	return o == ReadRequest || o == FetchAddRequest || o == CompareSwapRequest
}

// Ends reports whether o is the last (or only) packet of its message.
func (o Opcode) Ends() bool {
	switch o {
	case SendLast, SendOnly, WriteLast, WriteOnly, ReadResponseLast, ReadResponseOnly,
		ReadRequest, FetchAddRequest, CompareSwapRequest:
		return true
	}
	return false
}

// Verb is a work request's (WQE's) operation.
type Verb uint8

// Verbs. The zero value is SEND, what every workload posts today.
const (
	Send Verb = iota
	Write
	Read
	FetchAdd
	CompareSwap
	// ReadResponse is a responder's own work: the data of a READ, sent
	// by the responder's QP context (it is never posted by a workload).
	ReadResponse
	numVerbs
)

var verbNames = [numVerbs]string{"send", "write", "read", "fetch-add", "compare-swap", "read-response"}

func (v Verb) String() string {
	if v < numVerbs {
		return verbNames[v]
	}
	return "verb?"
}

// Packet is the opcode of a packet of a message of verb v: first and last
// say where the packet is in its message (both for a one-packet message).
func (v Verb) Packet(first, last bool) Opcode {
	var base Opcode
	switch v {
	case Send:
		base = SendFirst
	case Write:
		base = WriteFirst
	case ReadResponse:
		base = ReadResponseFirst
	case Read:
		return ReadRequest
	case FetchAdd:
		return FetchAddRequest
	case CompareSwap:
		return CompareSwapRequest
	default:
		return OpNone
	}
	switch {
	case first && last:
		return base + 3
	case first:
		return base
	case last:
		return base + 2
	}
	return base + 1
}

// Atomic reports whether v is an ATOMIC.
func (v Verb) Atomic() bool { return v == FetchAdd || v == CompareSwap }

// Units is how much of its QP's sequence space (byte offsets, see the
// package doc) a work request of v with size bytes occupies: its bytes for
// SEND and WRITE, one unit for a READ request or an ATOMIC, which carry no
// payload (a READ's size is its response's, on the responder's context).
func (v Verb) Units(size int64) int64 {
	if v == Read || v.Atomic() {
		return 1
	}
	return size
}

// PSNs is how many packet sequence numbers a message of v with size bytes
// consumes at an MTU of mtu: one per packet for SEND and WRITE (a message
// of 0 bytes is one packet), as many as the response has packets for a
// READ (as in InfiniBand: the response packets carry the request's PSNs),
// one for an ATOMIC.
func (v Verb) PSNs(size, mtu int64) int64 {
	if v.Atomic() {
		return 1
	}
	return max(1, (size+mtu-1)/mtu)
}
