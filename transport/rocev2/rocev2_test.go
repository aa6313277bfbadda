package rocev2

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
)

func TestHeaderSizes(t *testing.T) {
	h := ReferenceHeaders
	for _, tc := range []struct {
		name      string
		got, want int64
	}{
		{"data 1000 B", h.DataWire(1000, 0), 1048},
		{"data with HPCC INT", h.DataWire(1000, 42), 1090},
		{"ack", h.AckWire(0), 60},
		{"ack with TIMELY ts", h.AckWire(8), 60},
		{"ack with HPCC INT", h.AckWire(42), 88},
		{"realistic data", RealisticHeaders.DataWire(1000, 0), 1082},
		{"realistic ack", RealisticHeaders.AckWire(0), 86},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %d B, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestSenderGoBackN(t *testing.T) {
	var s GBNSender
	s.Post(5000)
	for i := 0; i < 5; i++ {
		if r := s.Sent(s.Nxt, 1000); r != 0 {
			t.Fatalf("first transmission counted %d retransmitted bytes", r)
		}
	}
	if s.InFlight() != 5000 || s.Unsent() != 0 {
		t.Fatalf("in flight %d unsent %d, want 5000 and 0", s.InFlight(), s.Unsent())
	}
	if adv := s.OnAck(2000); adv != 2000 || s.Una != 2000 {
		t.Fatalf("ack 2000: advanced %d, una %d", adv, s.Una)
	}
	if adv := s.OnAck(1000); adv != 0 || s.Una != 2000 {
		t.Fatalf("stale ack moved una to %d", s.Una)
	}
	// NACK at 3000: everything from 3000 is resent.
	s.OnNack(3000, Span{})
	if s.Una != 3000 || s.Nxt != 3000 {
		t.Fatalf("after NACK una %d nxt %d, want 3000 3000", s.Una, s.Nxt)
	}
	if r := s.Sent(s.Nxt, 1000); r != 1000 {
		t.Fatalf("resent 1000 B counted as %d retransmitted", r)
	}
	// An ACK beyond what was ever sent is capped.
	s.OnAck(1 << 40)
	if s.Una != 5000 || s.Nxt != 5000 {
		t.Fatalf("ack past the end: una %d nxt %d, want 5000", s.Una, s.Nxt)
	}
	s.Post(1000)
	s.Sent(s.Nxt, 1000)
	s.OnTimeout()
	if s.Nxt != s.Una {
		t.Fatalf("rewind: nxt %d, una %d", s.Nxt, s.Una)
	}
}

func TestReceiver(t *testing.T) {
	cfg := &ReceiverConfig{AckInterval: 1, NackInterval: 500 * engine.Microsecond}
	var r GBNReceiver
	// In order: every packet ACKed; the CE mark is echoed once.
	if resp, seq, echo := r.OnData(0, 0, 1000, true, false, cfg); resp != SendAck || seq != 1000 || !echo {
		t.Fatalf("first packet: %v %d %v", resp, seq, echo)
	}
	if resp, _, echo := r.OnData(1, 1000, 1000, false, false, cfg); resp != SendAck || echo {
		t.Fatalf("second packet: %v echo %v", resp, echo)
	}
	// A gap: NACK(2000) once, then silence within the NACK interval.
	if resp, seq, _ := r.OnData(2, 3000, 1000, false, false, cfg); resp != SendNack || seq != 2000 {
		t.Fatalf("gap: %v %d, want NACK 2000", resp, seq)
	}
	if resp, _, _ := r.OnData(3, 4000, 1000, false, false, cfg); resp != None {
		t.Fatalf("second gap packet within the interval: %v, want none", resp)
	}
	if resp, _, _ := r.OnData(engine.Time(600*engine.Microsecond), 4000, 1000, false, false, cfg); resp != SendNack {
		t.Fatalf("gap after the NACK interval: %v, want NACK", resp)
	}
	// The retransmission fills the gap.
	if resp, seq, _ := r.OnData(4, 2000, 1000, false, false, cfg); resp != SendAck || seq != 3000 {
		t.Fatalf("retransmission: %v %d", resp, seq)
	}
	// A duplicate is silent unless it ends a message.
	if resp, _, _ := r.OnData(5, 0, 1000, false, false, cfg); resp != None {
		t.Fatalf("duplicate: %v, want none", resp)
	}
	if resp, seq, _ := r.OnData(6, 2000, 1000, false, true, cfg); resp != SendAck || seq != 3000 {
		t.Fatalf("duplicate last packet: %v %d, want ACK 3000", resp, seq)
	}
}

// Coalesced ACKs: one per AckInterval bytes, and always on a message's
// last packet; CE marks between ACKs are echoed on the next one.
func TestReceiverCoalescing(t *testing.T) {
	cfg := &ReceiverConfig{AckInterval: 4000, NackInterval: engine.Microsecond}
	var r GBNReceiver
	acks := 0
	echoes := 0
	for i := int64(0); i < 10; i++ {
		resp, _, echo := r.OnData(0, i*1000, 1000, i == 5, i == 9, cfg)
		if resp == SendAck {
			acks++
			if echo {
				echoes++
			}
		}
	}
	// ACKs at 1000 (first milestone), 4000, 8000 and on the last packet.
	if acks != 4 || echoes != 1 {
		t.Fatalf("%d ACKs with %d echoes, want 4 and 1", acks, echoes)
	}
}

func TestRequestSizes(t *testing.T) {
	h := ReferenceHeaders
	for _, tc := range []struct {
		name      string
		got, want int64
	}{
		{"READ request", h.RequestWire(ReadRequest, 0), 64},
		{"FETCH_ADD", h.RequestWire(FetchAddRequest, 0), 76},
		{"CMP_SWAP with HPCC INT", h.RequestWire(CompareSwapRequest, 42), 118},
		{"ATOMIC ACK", h.AtomicAckWire(0), 60},
		{"ATOMIC ACK with HPCC INT", h.AtomicAckWire(42), 96},
		{"realistic ATOMIC ACK", RealisticHeaders.AtomicAckWire(0), 94},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %d B, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestVerbOpcodes(t *testing.T) {
	for _, tc := range []struct {
		v           Verb
		first, last bool
		want        Opcode
	}{
		{Send, true, true, SendOnly}, {Send, true, false, SendFirst}, {Send, false, false, SendMiddle}, {Send, false, true, SendLast},
		{Write, true, true, WriteOnly}, {Write, false, true, WriteLast},
		{ReadResponse, true, false, ReadResponseFirst}, {ReadResponse, false, true, ReadResponseLast},
		{Read, true, true, ReadRequest}, {FetchAdd, true, true, FetchAddRequest}, {CompareSwap, true, true, CompareSwapRequest},
	} {
		if got := tc.v.Packet(tc.first, tc.last); got != tc.want {
			t.Errorf("%v first %v last %v: got %v, want %v", tc.v, tc.first, tc.last, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v          Verb
		size, want int64
	}{{Send, 2500, 3}, {Send, 0, 1}, {Write, 1000, 1}, {Read, 3001, 4}, {FetchAdd, 8, 1}, {CompareSwap, 8, 1}} {
		if got := tc.v.PSNs(tc.size, 1000); got != tc.want {
			t.Errorf("%v of %d B: got %d PSNs, want %d", tc.v, tc.size, got, tc.want)
		}
	}
	if s := EncodeSack(Span{123456789, 123457789}); DecodeSack(s) != (Span{123456789, 123457789}) {
		t.Errorf("sack round trip: got %v", DecodeSack(s))
	}
}
