package rocev2

import "github.com/dcsim/dcsim/engine"

// Stream is the state of a requester's byte stream that every Sender
// keeps and a NIC reads on its hot path (readiness, the head-of-line
// message): plain fields, so that reading them costs no call.
type Stream struct {
	Una int64 // snd_una: every byte before it is acknowledged
	// Nxt is the send point: the next byte to send (go-back-N's snd_nxt;
	// under selective repeat the next hole to resend, else new data).
	Nxt      int64
	End      int64 // bytes posted to the QP so far
	HighSent int64 // one past the highest byte ever sent
}

// Unsent is the number of posted bytes not yet sent (from Nxt).
func (s *Stream) Unsent() int64 { return s.End - s.Nxt }

// Sender is the requester side of one RC QP: GBNSender (go-back-N, the
// reference model) or SelectiveSender (IRN-style selective repeat, with
// the reorder-tolerant mode). A NIC holds one per QP, chosen when the QP
// opens, and tells it what happened; the sender decides what to send.
type Sender interface {
	// State is the sender's stream; the pointer stays valid for the
	// sender's life.
	State() *Stream
	// InFlight is the bytes sent and not acknowledged (go-back-N: from
	// Una to Nxt; selective repeat: from Una to HighSent).
	InFlight() int64
	// Post appends n units to the stream.
	Post(n int64)
	// Next is the next packet of at most mtu units: its seq is Nxt.
	Next(mtu int64) (seq, n int64, ok bool)
	// Sent records a packet of n units at seq (what Next returned) and
	// returns how many were retransmissions.
	Sent(seq, n int64) (retransmitted int64)
	// Acknowledge applies an ACK that arrived at now: its cumulative
	// point and, in the reorder-tolerant mode, the range it selectively
	// acknowledges (empty otherwise). It returns the units newly
	// acknowledged.
	Acknowledge(now engine.Time, cum int64, sack Span) int64
	// OnNack applies a NACK: its cumulative point and, under selective
	// repeat, the range that arrived out of order.
	OnNack(cum int64, sack Span) int64
	// OnTimeout is a retransmission timeout.
	OnTimeout()
	// OnResponse is the in-order arrival of a READ response whose request
	// ends at end: go-back-N takes it as the request's acknowledgement;
	// selective repeat does not (its responder ACKs the request, and
	// holes may remain below it).
	OnResponse(end int64) int64
	// VerdictAt is when the reorder window's verdict on the lowest hole
	// is due without an ACK (SelectiveSender.VerdictAt), Never if none.
	VerdictAt() engine.Time
	// Reset empties the stream and keeps the settings (a QP reused).
	Reset()
}

// Segment is a data packet as a Receiver sees it: n units at seq, its ECN
// mark, whether it ends its message, and its opcode.
type Segment struct {
	Seq, N   int64
	CE, Last bool
	Op       Opcode
}

// Answer is what a Receiver made of a segment: the response to send (Resp;
// None for none) with its cumulative point (Seq), the range it carries (a
// selective NACK's or SACK's) and the congestion echo; whether every unit
// of the segment had arrived before (Duplicate) or the segment is newly
// kept, in order or held above the cumulative point (Kept); and the
// cumulative point after it (InOrder).
type Answer struct {
	Resp            Response
	Seq             int64
	Sack            Span
	Echo            bool
	Duplicate, Kept bool
	InOrder         int64
}

// Receiver is the responder side of one RC QP: GBNReceiver (in order) or
// SelectiveReceiver (keeps out-of-order data).
type Receiver interface {
	// Receive handles a data segment.
	Receive(now engine.Time, s Segment, cfg *ReceiverConfig) Answer
	// InOrder is the cumulative point: every unit below it arrived.
	InOrder() int64
	// Holds reports whether every unit of [seq, seq+n) arrived (below the
	// cumulative point or kept above it).
	Holds(seq, n int64) bool
	// Held is the units kept above the cumulative point.
	Held() int64
}

var (
	_ Sender   = (*GBNSender)(nil)
	_ Sender   = (*SelectiveSender)(nil)
	_ Receiver = (*GBNReceiver)(nil)
	_ Receiver = (*SelectiveReceiver)(nil)
)
