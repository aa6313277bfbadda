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

// GBNSender is the requester side of one RC QP under go-back-N: a byte
// stream with a cumulative ACK point, a send point and go-back-N recovery.
// Sequence numbers are byte offsets in the QP's stream (the reference
// model's convention); the PSN of a packet is its offset divided by the MTU.
type GBNSender struct{ Stream }

// State returns the sender's stream.
func (s *GBNSender) State() *Stream { return &s.Stream }

// InFlight is the number of sent, unacknowledged bytes.
func (s *GBNSender) InFlight() int64 { return s.Nxt - s.Una }

// Post appends n bytes to the stream.
func (s *GBNSender) Post(n int64) { s.End += n }

// Next is the next packet of at most mtu bytes: from Nxt, never beyond End.
func (s *GBNSender) Next(mtu int64) (seq, n int64, ok bool) {
	return s.Nxt, min(mtu, s.End-s.Nxt), s.Nxt < s.End
}

// Sent records a packet of n bytes at seq (= Nxt) and returns how many of
// them were retransmissions.
func (s *GBNSender) Sent(seq, n int64) (retransmitted int64) {
	if seq < s.HighSent {
		retransmitted = min(n, s.HighSent-seq)
	}
	s.Nxt = seq + n
	s.HighSent = max(s.HighSent, s.Nxt)
	return retransmitted
}

// OnAck applies a cumulative ACK and returns the newly acknowledged bytes.
// A stale ACK (at or below Una) changes nothing.
func (s *GBNSender) OnAck(seq int64) int64 {
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

// Acknowledge applies an ACK: cumulative only (go-back-N has no SACK).
func (s *GBNSender) Acknowledge(_ engine.Time, cum int64, _ Span) int64 { return s.OnAck(cum) }

// OnNack applies a NACK: its sequence acknowledges every byte before it,
// and sending resumes from there (go-back-N). A go-back-N NACK has no
// range.
func (s *GBNSender) OnNack(seq int64, _ Span) int64 {
	adv := s.OnAck(seq)
	s.Nxt = s.Una
	return adv
}

// OnTimeout restarts sending from Una.
func (s *GBNSender) OnTimeout() { s.Nxt = s.Una }

// OnResponse takes the in-order arrival of a READ response ending at end as
// the cumulative acknowledgement of its request (InfiniBand's implicit
// acknowledgement: an in-order responder answered it, so everything before
// it arrived).
func (s *GBNSender) OnResponse(end int64) int64 { return s.OnAck(end) }

// VerdictAt is Never: go-back-N has no reorder window.
func (s *GBNSender) VerdictAt() engine.Time { return engine.Never }

// Reset returns the sender to an empty stream.
func (s *GBNSender) Reset() { *s = GBNSender{} }

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
	// KeepAtomics makes SelectiveReceiver keep an ATOMIC that arrives out
	// of order like data (it is then executed on arrival or in order,
	// rnic's Config.Atomics); off, it is discarded and NACKed without a
	// range, so that the requester resends it in recovery and it executes
	// once, in order. Go-back-N never keeps out-of-order data.
	KeepAtomics bool
}

// GBNReceiver is the responder side of one RC QP under go-back-N: it
// accepts only the next expected byte.
type GBNReceiver struct {
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
func (r *GBNReceiver) OnData(now engine.Time, seq, n int64, ce, last bool, cfg *ReceiverConfig) (resp Response, ackSeq int64, echo bool) {
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

// InOrder is the next in-order byte: the cumulative ACK point.
func (r *GBNReceiver) InOrder() int64 { return r.Expected }

// Holds reports whether every unit of [seq, seq+n) was already received.
func (r *GBNReceiver) Holds(seq, n int64) bool { return seq+n <= r.Expected }

// Held is 0: go-back-N keeps nothing out of order.
func (r *GBNReceiver) Held() int64 { return 0 }

// Receive is OnData for a Segment; only an in-order segment is kept. An
// in-order READ request is not ACKed: its response acknowledges it, as in
// InfiniBand.
func (r *GBNReceiver) Receive(now engine.Time, s Segment, cfg *ReceiverConfig) Answer {
	before := r.Expected
	a := Answer{Duplicate: s.Seq+s.N <= before}
	a.Resp, a.Seq, a.Echo = r.OnData(now, s.Seq, s.N, s.CE, s.Last, cfg)
	a.Kept, a.InOrder = r.Expected > before, r.Expected
	if s.Op == ReadRequest && a.Kept && a.Resp == SendAck {
		a.Resp = None
	}
	return a
}
