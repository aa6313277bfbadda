package rocev2

import "github.com/dcsim/dcsim/engine"

// Selective repeat, IRN-style (Mittal et al., "Revisiting Network Support
// for RDMA", SIGCOMM 2018, section 3.1): the responder keeps out-of-order
// data instead of discarding it, and answers every out-of-order packet
// with a NACK that carries the cumulative ACK point and the range of the
// packet that triggered it (IRN's simplified SACK). The requester keeps
// which ranges were selectively acknowledged, and on a NACK enters loss
// recovery: it resends only what is lost - bytes below the highest
// selectively acknowledged one that were not acknowledged - each once per
// recovery, then goes on with new data, and leaves recovery when the
// cumulative ACK passes the highest byte sent when recovery began.
// Packets of one QP may then take different paths (per-packet spraying,
// adaptive routing) without go-back-N resending a window per reordering.
// Sequence numbers are byte offsets, as for Sender and Receiver; a range
// stands for the packets (PSNs) it covers.
//
// rnic drives these when its receiver mode is selective (scenario
// nic.receiver: selective); the NACK carries the range in its Arg
// (EncodeSack).

// Span is a byte range [Start, End) of a QP's stream.
type Span struct{ Start, End int64 }

// spans is a sorted list of disjoint, non-adjacent spans.
type spans []Span

// add inserts s, merging it with the spans it overlaps or touches.
func (ss spans) add(s Span) spans {
	if s.End <= s.Start {
		return ss
	}
	i := 0
	for i < len(ss) && ss[i].End < s.Start {
		i++
	}
	j := i
	for j < len(ss) && ss[j].Start <= s.End {
		s.Start, s.End = min(s.Start, ss[j].Start), max(s.End, ss[j].End)
		j++
	}
	out := append(ss[:i:i], s)
	return append(out, ss[j:]...)
}

// trim drops everything below off.
func (ss spans) trim(off int64) spans {
	i := 0
	for i < len(ss) && ss[i].End <= off {
		i++
	}
	ss = ss[i:]
	if len(ss) > 0 && ss[0].Start < off {
		ss[0].Start = off
	}
	return ss
}

// EncodeSack packs a selectively acknowledged range into a NACK's 64-bit
// argument: its start in the high 48 bits, its length (at most one
// packet, below 2^16) in the low 16.
func EncodeSack(s Span) int64 { return s.Start<<16 | (s.End - s.Start) }

// DecodeSack is EncodeSack's inverse.
func DecodeSack(a int64) Span { return Span{a >> 16, a>>16 + a&0xffff} }

// SelectiveReceiver is the responder side of one RC QP under selective
// repeat.
type SelectiveReceiver struct {
	Expected  int64 // next in-order byte: the cumulative ACK point
	held      spans // received ranges above Expected
	milestone int64
	ce        bool
}

// Holds reports whether every unit of [seq, seq+n) was already received
// (below Expected or in a held range): a duplicate.
func (r *SelectiveReceiver) Holds(seq, n int64) bool {
	if seq+n <= r.Expected {
		return true
	}
	for _, s := range r.held {
		if s.Start <= seq && seq+n <= s.End {
			return true
		}
	}
	return false
}

// InOrder is the cumulative point, Expected.
func (r *SelectiveReceiver) InOrder() int64 { return r.Expected }

// Receive is OnData for a Segment, but that an ATOMIC out of order is,
// unless cfg.KeepAtomics, discarded and NACKed without a range and without
// taking its ECN mark (the requester resends it in recovery, so it
// executes once, in order).
func (r *SelectiveReceiver) Receive(_ engine.Time, s Segment, cfg *ReceiverConfig) Answer {
	if s.Op.Request() && s.Op != ReadRequest && s.Seq > r.Expected && !cfg.KeepAtomics {
		return Answer{Resp: SendNack, Seq: r.Expected, InOrder: r.Expected}
	}
	a := Answer{Duplicate: r.Holds(s.Seq, s.N)}
	a.Resp, a.Seq, a.Sack, a.Echo = r.OnData(s.Seq, s.N, s.CE, s.Last, cfg)
	a.Kept, a.InOrder = !a.Duplicate, r.Expected
	return a
}

// Held is the number of bytes received out of order and kept.
func (r *SelectiveReceiver) Held() int64 {
	var n int64
	for _, s := range r.held {
		n += s.End - s.Start
	}
	return n
}

// OnData handles a data packet at byte offset seq with n payload bytes,
// ce its ECN mark, last whether it ends a message. An in-order packet
// advances Expected over every range held behind it and is ACKed as
// Receiver's are (milestones of cfg.AckInterval, and a message's end); an
// out-of-order one is kept and NACKed with the cumulative point and its
// own range (sack), or, with cfg.Sack, ACKed with them (a SACK: the
// reorder-tolerant mode, where the requester decides what is lost); a
// duplicate is ACKed again when it ends a message.
func (r *SelectiveReceiver) OnData(seq, n int64, ce, last bool, cfg *ReceiverConfig) (resp Response, ackSeq int64, sack Span, echo bool) {
	r.ce = r.ce || ce
	switch {
	case seq <= r.Expected && seq+n > r.Expected:
		r.held = r.held.add(Span{seq, seq + n})
		r.Expected = r.held[0].End
		r.held = r.held[1:]
		if r.Expected >= r.milestone || last {
			r.milestone = (r.Expected/cfg.AckInterval + 1) * cfg.AckInterval
			echo, r.ce = r.ce, false
			return SendAck, r.Expected, Span{}, echo
		}
		return None, 0, Span{}, false
	case seq > r.Expected:
		r.held = r.held.add(Span{seq, seq + n})
		echo, r.ce = r.ce, false
		if cfg.Sack {
			return SendAck, r.Expected, Span{seq, seq + n}, echo
		}
		return SendNack, r.Expected, Span{seq, seq + n}, echo
	}
	if last {
		return SendAck, r.Expected, Span{}, false
	}
	return None, 0, Span{}, false
}

// SelectiveSender is the requester side of one RC QP under selective
// repeat. Next says what to send; Sent, OnAck, OnNack, OnSack and
// OnTimeout are what happened. Stream.Nxt follows Next: the next hole to
// resend, else HighSent.
type SelectiveSender struct {
	Stream

	// DupThresh > 0 selects the reorder-tolerant mode (OnSack): a hole
	// is lost only once DupThresh packets beyond it are selectively
	// acknowledged (RFC 6675 IsLost, with MTU as SMSS). 0 is IRN's mode:
	// every NACK marks everything below its range lost.
	DupThresh int
	MTU       int64
	// ReorderWindow > 0 (with DupThresh) also asks that the lowest hole
	// has been open that long, since the first SACK above it, before it
	// is lost: reordering that resolves within the window is forgiven
	// whatever its depth (RFC 8985 RACK's reorder window, in the time
	// since reordering was seen).
	ReorderWindow engine.Time

	holeOpen bool        // a SACK above Una has been seen since Una last moved
	holeAt   engine.Time // when, for the hole at holeUna
	holeUna  int64

	sacked    spans // selectively acknowledged ranges above Una
	recovery  bool
	recoverTo int64 // HighSent when recovery began
	lostTo    int64 // in recovery, unacknowledged bytes below it are lost
	resent    int64 // in recovery, lost bytes below it were resent
}

// State returns the sender's stream.
func (s *SelectiveSender) State() *Stream { return &s.Stream }

// InFlight is everything between the cumulative point and the highest
// byte sent: holes and selectively acknowledged ranges included.
func (s *SelectiveSender) InFlight() int64 { return s.HighSent - s.Una }

// Post appends n bytes to the stream.
func (s *SelectiveSender) Post(n int64) {
	s.End += n
	s.sync()
}

// sync sets Nxt to the start of what Next would send.
func (s *SelectiveSender) sync() {
	if seq, _, ok := s.Next(1); ok {
		s.Nxt = seq
	} else {
		s.Nxt = s.HighSent
	}
}

// Reset empties the stream and the scoreboard and keeps the settings.
func (s *SelectiveSender) Reset() {
	*s = SelectiveSender{DupThresh: s.DupThresh, MTU: s.MTU, ReorderWindow: s.ReorderWindow, sacked: s.sacked[:0]}
}

// Acknowledge applies an ACK: cumulative in IRN's mode (DupThresh 0, where
// no ACK carries a range), OnSack in the reorder-tolerant mode.
func (s *SelectiveSender) Acknowledge(now engine.Time, cum int64, sack Span) int64 {
	if s.DupThresh == 0 {
		return s.OnAck(cum)
	}
	return s.OnSack(now, cum, sack)
}

// OnResponse acknowledges nothing: a READ response does not say that the
// units below its request arrived (the responder ACKs the request).
func (s *SelectiveSender) OnResponse(int64) int64 { return 0 }

// InRecovery reports whether the sender is in loss recovery.
func (s *SelectiveSender) InRecovery() bool { return s.recovery }

// Next is the range of the next packet of at most mtu bytes: in recovery,
// the first lost range not yet resent (a hole below the highest
// selectively acknowledged byte), else new data from HighSent. ok is false
// when there is nothing to send.
func (s *SelectiveSender) Next(mtu int64) (seq, n int64, ok bool) {
	if s.recovery {
		from := max(s.Una, s.resent)
		end := s.lostTo
		for _, sk := range s.sacked {
			if sk.End <= from {
				continue
			}
			if sk.Start <= from {
				from = sk.End
				continue
			}
			end = min(end, sk.Start)
			break
		}
		if from < end {
			return from, min(mtu, end-from), true
		}
	}
	if s.HighSent < s.End {
		return s.HighSent, min(mtu, s.End-s.HighSent), true
	}
	return 0, 0, false
}

// Sent records a packet of n bytes at seq (a range Next returned) and
// returns how many of its bytes were retransmissions.
func (s *SelectiveSender) Sent(seq, n int64) (retransmitted int64) {
	if seq < s.HighSent {
		retransmitted = min(n, s.HighSent-seq)
		s.resent = max(s.resent, seq+n)
	}
	s.HighSent = max(s.HighSent, seq+n)
	s.sync()
	return retransmitted
}

// OnAck applies a cumulative ACK and returns the newly acknowledged bytes;
// it ends recovery once the ACK passes the point recovery began at.
func (s *SelectiveSender) OnAck(seq int64) int64 {
	seq = min(seq, s.HighSent)
	if seq <= s.Una {
		return 0
	}
	adv := seq - s.Una
	s.Una = seq
	s.sacked = s.sacked.trim(seq)
	if s.recovery && s.Una >= s.recoverTo {
		s.recovery = false
	}
	s.sync()
	return adv
}

// OnNack applies a NACK: its cumulative point acknowledges what precedes
// it, sack the range that arrived out of order; a NACK outside recovery
// starts one.
func (s *SelectiveSender) OnNack(cum int64, sack Span) int64 {
	adv := s.OnAck(cum)
	sack.End = min(sack.End, s.HighSent)
	if sack.Start < s.Una {
		sack.Start = s.Una
	}
	s.sacked = s.sacked.add(sack)
	if !s.recovery && s.Una < s.HighSent {
		s.recovery, s.recoverTo, s.resent, s.lostTo = true, s.HighSent, s.Una, s.Una
	}
	if s.recovery {
		s.lostTo = max(s.lostTo, sack.Start) // lost: below a selectively acknowledged byte
	}
	s.sync()
	return adv
}

// OnSack applies an ACK that arrived at now in the reorder-tolerant mode
// (DupThresh > 0): its cumulative point cum, and sack, the range that
// arrived out of order (empty on an in-order ACK). The unacknowledged
// bytes below the highest point that RFC 6675's IsLost condemns are lost
// (lostBelow); with a ReorderWindow, only the lowest hole, and only once
// it has been open that long (judged when an ACK arrives, and at
// VerdictAt, when the NIC's timer calls OnSack again).
// The first lost point outside recovery starts one. Bytes already resent
// and still unacknowledged are not resent again by a later recovery (RFC
// 6675 retransmits a segment once; the timeout covers a lost resend).
func (s *SelectiveSender) OnSack(now engine.Time, cum int64, sack Span) int64 {
	adv := s.OnAck(cum)
	sack.End = min(sack.End, s.HighSent)
	sack.Start = max(sack.Start, s.Una)
	s.sacked = s.sacked.add(sack)
	lost := s.lostBelow()
	if s.ReorderWindow > 0 {
		switch {
		case len(s.sacked) == 0:
			s.holeOpen = false
		case !s.holeOpen || s.holeUna != s.Una:
			s.holeOpen, s.holeAt, s.holeUna = true, now, s.Una
		}
		if !s.holeOpen || now-s.holeAt < s.ReorderWindow {
			lost = s.Una
		} else {
			lost = min(lost, s.sacked[0].Start)
		}
	}
	if lost > s.Una {
		if !s.recovery {
			s.recovery, s.recoverTo, s.resent, s.lostTo = true, s.HighSent, max(s.resent, s.Una), lost
		}
		s.lostTo = max(s.lostTo, lost)
	}
	s.sync()
	return adv
}

// VerdictAt is when the reorder window of the lowest hole ends if the
// count already condemns it and only the window holds the verdict back:
// the time to call OnSack again (with the cumulative point and no range)
// when no ACK comes first. Never otherwise.
func (s *SelectiveSender) VerdictAt() engine.Time {
	if s.ReorderWindow <= 0 || !s.holeOpen || s.holeUna != s.Una || len(s.sacked) == 0 ||
		(s.recovery && s.lostTo >= s.sacked[0].Start) || s.lostBelow() <= s.Una {
		return engine.Never
	}
	return s.holeAt + s.ReorderWindow
}

// lostBelow is the highest point p such that every hole below p is lost
// by RFC 6675's IsLost: DupThresh discontiguous selectively acknowledged
// ranges above it, or more than (DupThresh-1) x MTU bytes selectively
// acknowledged above it (so DupThresh full packets). Una when none is.
func (s *SelectiveSender) lostBelow() int64 {
	var bytes int64
	for i := len(s.sacked) - 1; i >= 0; i-- {
		sk := s.sacked[i]
		bytes += sk.End - sk.Start
		if len(s.sacked)-i >= s.DupThresh || bytes > int64(s.DupThresh-1)*s.MTU {
			return sk.Start
		}
	}
	return s.Una
}

// OnTimeout starts recovery from Una, treating every byte not selectively
// acknowledged as lost (IRN resends on a timeout as on a NACK).
func (s *SelectiveSender) OnTimeout() {
	if s.Una < s.HighSent {
		s.recovery, s.recoverTo, s.resent, s.lostTo = true, s.HighSent, s.Una, s.HighSent
	}
	s.sync()
}
