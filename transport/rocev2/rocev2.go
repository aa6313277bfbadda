package rocev2

import "github.com/dcsim/dcsim/engine"

// Headers gives on-the-wire sizes. The zero value is not valid; use
// ReferenceHeaders or RealisticHeaders.
type Headers struct {
	Data    int64 // bytes added to every data packet's payload
	AckBase int64 // ACK/NACK size before the CC's echoed bytes
	AckMin  int64 // smallest ACK/NACK
	Frame   int64 // per-frame overhead that occupies the wire (preamble + IFG)
	// WriteRETH is added to a WRITE's first (or only) packet: its RETH.
	// ReferenceHeaders' 48 B are the reference model's abstract header
	// and add none, so a WRITE is a SEND on the wire.
	WriteRETH int64
}

// ReferenceHeaders is the reference model's accounting (docs/model.md §4.1):
// data = payload + 48 B (+ CC bytes), ACK = max(60, 46 + CC bytes).
var ReferenceHeaders = Headers{Data: 48, AckBase: 46, AckMin: 60}

// RealisticHeaders counts Ethernet 14 + FCS 4 + IPv4 20 + UDP 8 + BTH 12 +
// ICRC 4 = 62 B per data packet (+16 B RETH on a WRITE's first packet), 62 + AETH 4 = 66 B per ACK (Ethernet's
// 64 B minimum respected), and 20 B of preamble and inter-frame gap per
// frame. The gap is folded into the frame size, so queues and buffers count
// it too (slightly pessimistic).
var RealisticHeaders = Headers{Data: 62, AckBase: 66, AckMin: 64, Frame: 20, WriteRETH: RETHBytes}

// DataWire is the wire size of a data packet with payload bytes and extra
// congestion-control header bytes.
func (h Headers) DataWire(payload, extra int64) int64 { return payload + h.Data + extra + h.Frame }

// AckWire is the wire size of an ACK/NACK echoing extra CC bytes.
func (h Headers) AckWire(extra int64) int64 { return max(h.AckMin, h.AckBase+extra) + h.Frame }

// Extended transport headers of the requests without payload and of the
// ATOMIC ACK (InfiniBand vol. 1, 9.3.3.3 RETH, 9.3.3.4 AtomicETH, 9.3.3.6
// AtomicAckETH).
const (
	RETHBytes         = 16 // READ request: virtual address, rkey, DMA length
	AtomicETHBytes    = 28 // ATOMIC: virtual address, rkey, swap/add and compare data
	AtomicAckETHBytes = 8  // ATOMIC ACK: the original value
)

// RequestWire is the wire size of a READ request or ATOMIC (op) with
// extra congestion-control header bytes: a data packet without payload
// plus its extended transport header.
func (h Headers) RequestWire(op Opcode, extra int64) int64 {
	eth := int64(RETHBytes)
	if op != ReadRequest {
		eth = AtomicETHBytes
	}
	return h.DataWire(0, extra) + eth
}

// AtomicAckWire is the wire size of an ATOMIC ACK: an ACK with its 8 B
// AtomicAckETH.
func (h Headers) AtomicAckWire(extra int64) int64 {
	return max(h.AckMin, h.AckBase+extra+AtomicAckETHBytes) + h.Frame
}

// CNPBytes is the size of a standalone CNP packet.
func (h Headers) CNPBytes() int64 { return h.AckWire(0) }

// Sender is the requester side of one RC QP: a byte stream with a
// cumulative ACK point, a send point and go-back-N recovery. Sequence
// numbers are byte offsets in the QP's stream (the reference model's
// convention); the PSN of a packet is its offset divided by the MTU.
type Sender struct {
	Una      int64 // snd_una: every byte before it is acknowledged
	Nxt      int64 // snd_nxt: next byte to send
	End      int64 // bytes posted to the QP so far
	HighSent int64 // one past the highest byte ever sent
}

// InFlight is the number of sent, unacknowledged bytes.
func (s *Sender) InFlight() int64 { return s.Nxt - s.Una }

// Unsent is the number of posted bytes not yet sent (from Nxt).
func (s *Sender) Unsent() int64 { return s.End - s.Nxt }

// Post appends n bytes to the stream.
func (s *Sender) Post(n int64) { s.End += n }

// Sent records a packet of n bytes at Nxt and returns how many of them
// were retransmissions.
func (s *Sender) Sent(n int64) (retransmitted int64) {
	if s.Nxt < s.HighSent {
		retransmitted = min(n, s.HighSent-s.Nxt)
	}
	s.Nxt += n
	s.HighSent = max(s.HighSent, s.Nxt)
	return retransmitted
}

// OnAck applies a cumulative ACK and returns the newly acknowledged bytes.
// A stale ACK (at or below Una) changes nothing.
func (s *Sender) OnAck(seq int64) int64 {
	if seq <= s.Una {
		return 0
	}
	if seq > s.HighSent {
		seq = s.HighSent // an ACK can never cover bytes not sent
	}
	adv := seq - s.Una
	s.Una = seq
	if s.Nxt < s.Una {
		s.Nxt = s.Una
	}
	return adv
}

// OnNack applies a NACK: its sequence acknowledges every byte before it,
// and sending resumes from there (go-back-N).
func (s *Sender) OnNack(seq int64) int64 {
	adv := s.OnAck(seq)
	s.Nxt = s.Una
	return adv
}

// Rewind restarts sending from Una (retransmission timeout).
func (s *Sender) Rewind() { s.Nxt = s.Una }

// Response is what the receiver answers to a data packet.
type Response uint8

// Responses.
const (
	None Response = iota
	SendAck
	SendNack
)

// ReceiverConfig holds the responder settings (docs/model.md §4.2).
type ReceiverConfig struct {
	// AckInterval: an ACK is sent each time Expected passes a milestone
	// AckInterval bytes beyond the previous one (1 = every packet, the
	// reference setting). The last packet of a message is always ACKed.
	AckInterval  int64
	NackInterval engine.Time // minimum gap between NACKs for the same sequence
	// Sack makes SelectiveReceiver answer an out-of-order packet with an
	// ACK carrying its range (a SACK) instead of a NACK: the
	// reorder-tolerant mode, whose requester decides what is lost
	// (SelectiveSender.DupThresh).
	Sack bool
}

// Receiver is the responder side of one RC QP (go-back-N, in order).
type Receiver struct {
	Expected  int64 // next in-order byte
	milestone int64
	nackAt    engine.Time
	lastNack  int64
	nacked    bool
	ce        bool // a CE-marked packet arrived since the last ACK
}

// OnData handles a data packet at byte offset seq with n payload bytes.
// ce reports the packet's ECN mark; last marks a message's final packet.
// It returns the response, the cumulative sequence to put in it, and the
// congestion echo (any CE since the previous ACK).
func (r *Receiver) OnData(now engine.Time, seq, n int64, ce, last bool, cfg *ReceiverConfig) (resp Response, ackSeq int64, echo bool) {
	r.ce = r.ce || ce
	switch {
	case seq == r.Expected:
		r.Expected += n
		if r.Expected >= r.milestone || last {
			r.milestone = (r.Expected/cfg.AckInterval + 1) * cfg.AckInterval
			echo, r.ce = r.ce, false
			return SendAck, r.Expected, echo
		}
		return None, 0, false
	case seq > r.Expected:
		if !r.nacked || now >= r.nackAt || r.lastNack != r.Expected {
			r.nacked = true
			r.nackAt = now + cfg.NackInterval
			r.lastNack = r.Expected
			echo, r.ce = r.ce, false
			return SendNack, r.Expected, echo
		}
		return None, 0, false
	default:
		// A duplicate (go-back-N resent bytes already received). The
		// reference model stays silent; dcsim re-ACKs a duplicate that ends
		// a message, as InfiniBand responders do, so that a lost final ACK
		// in a lossy run cannot hang the flow.
		if last {
			return SendAck, r.Expected, false
		}
		return None, 0, false
	}
}
