package rocev2

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// One lost packet among five of 1000 B, selective repeat end to end: the
// responder keeps 3000-5000 and NACKs each with its range, the requester
// resends only 2000-3000, once, and the ACK of 5000 ends recovery.
func TestSelectiveRepeatOneLoss(t *testing.T) {
	cfg := &ReceiverConfig{AckInterval: 1}
	var r SelectiveReceiver
	var s SelectiveSender
	s.Post(5000)
	for i := range 5 {
		seq, n, ok := s.Next(1000)
		if !ok || seq != int64(i)*1000 || n != 1000 {
			t.Fatalf("packet %d: Next got (%d, %d, %v), want (%d, 1000, true)", i, seq, n, ok, i*1000)
		}
		if retx := s.Sent(seq, n); retx != 0 {
			t.Fatalf("packet %d: got %d retransmitted bytes, want 0", i, retx)
		}
	}
	type reply struct {
		resp Response
		ack  int64
		sack Span
	}
	deliver := func(seq int64, last bool) reply {
		resp, ack, sack, _ := r.OnData(seq, 1000, false, last, cfg)
		return reply{resp, ack, sack}
	}
	for _, tc := range []struct {
		seq  int64
		last bool
		want reply
	}{
		{0, false, reply{SendAck, 1000, Span{}}},
		{1000, false, reply{SendAck, 2000, Span{}}},
		// 2000 is lost.
		{3000, false, reply{SendNack, 2000, Span{3000, 4000}}},
		{4000, true, reply{SendNack, 2000, Span{4000, 5000}}},
	} {
		if got := deliver(tc.seq, tc.last); got != tc.want {
			t.Errorf("data at %d: got %+v, want %+v", tc.seq, got, tc.want)
		}
	}
	if got := r.Held(); got != 2000 {
		t.Errorf("held: got %d B, want 2000", got)
	}
	s.OnAck(1000)
	s.OnAck(2000)
	s.OnNack(2000, Span{3000, 4000})
	if !s.InRecovery() {
		t.Fatal("after a NACK: not in recovery")
	}
	seq, n, ok := s.Next(1000)
	if !ok || seq != 2000 || n != 1000 {
		t.Fatalf("in recovery: Next got (%d, %d, %v), want (2000, 1000, true)", seq, n, ok)
	}
	if retx := s.Sent(seq, n); retx != 1000 {
		t.Errorf("resend of 2000: got %d retransmitted bytes, want 1000", retx)
	}
	s.OnNack(2000, Span{4000, 5000}) // the second NACK, sent before the resend arrived
	if seq, n, ok := s.Next(1000); ok {
		t.Errorf("after the resend: Next got (%d, %d), want nothing (2000 resent once, 3000-5000 acknowledged)", seq, n)
	}
	if got := deliver(2000, false); got != (reply{SendAck, 5000, Span{}}) {
		t.Errorf("resent 2000: got %+v, want an ACK of 5000", got)
	}
	if got := deliver(3000, false); got.resp != None {
		t.Errorf("duplicate 3000: got %+v, want no response", got)
	}
	if adv := s.OnAck(5000); adv != 3000 || s.InRecovery() {
		t.Errorf("ACK 5000: got %d B advanced, recovery %v; want 3000 and recovery over", adv, s.InRecovery())
	}
}

// A timeout resends every unacknowledged byte not selectively
// acknowledged, in order, each once.
func TestSelectiveRepeatTimeout(t *testing.T) {
	var s SelectiveSender
	s.Post(4000)
	for range 4 {
		seq, n, _ := s.Next(1000)
		s.Sent(seq, n)
	}
	s.OnAck(1000)
	s.OnNack(1000, Span{2000, 3000})
	s.OnTimeout()
	var got []Span
	for {
		seq, n, ok := s.Next(1000)
		if !ok {
			break
		}
		s.Sent(seq, n)
		got = append(got, Span{seq, seq + n})
	}
	want := []Span{{1000, 2000}, {3000, 4000}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("resent after the timeout: got %v, want %v", got, want)
	}
}

// Held ranges merge: three out-of-order packets around two holes, then
// the holes fill in reverse order.
func TestSelectiveReceiverMerges(t *testing.T) {
	cfg := &ReceiverConfig{AckInterval: 1}
	var r SelectiveReceiver
	for _, seq := range []int64{1000, 3000, 4000} {
		if resp, ack, _, _ := r.OnData(seq, 1000, false, false, cfg); resp != SendNack || ack != 0 {
			t.Fatalf("data at %d: got (%v, %d), want a NACK of 0", seq, resp, ack)
		}
	}
	if resp, ack, _, _ := r.OnData(2000, 1000, false, false, cfg); resp != SendNack || ack != 0 || r.Held() != 4000 {
		t.Fatalf("data at 2000: got (%v, %d), held %d; want a NACK of 0 and 4000 B held", resp, ack, r.Held())
	}
	if resp, ack, _, _ := r.OnData(0, 1000, false, false, cfg); resp != SendAck || ack != 5000 || r.Held() != 0 {
		t.Errorf("data at 0: got (%v, %d), held %d; want an ACK of 5000 and nothing held", resp, ack, r.Held())
	}
}

// sendAll sends n packets of mtu bytes from a fresh sender.
func sendAll(s *SelectiveSender, n int, mtu int64) {
	s.Post(int64(n) * mtu)
	for range n {
		seq, m, _ := s.Next(mtu)
		s.Sent(seq, m)
	}
}

// The reorder-tolerant mode, DupThresh 3, ten packets of 1000 B: packet 2
// overtaken by 3 and 4 (two SACKs beyond it) is not lost, and the ACK of
// its late arrival acknowledges everything; overtaken by 3, 4 and 5 it
// is lost at the third SACK (RFC 6675: more than 2 x 1000 B SACKed above
// it), resent once, and nothing else is.
func TestSackThreshold(t *testing.T) {
	cfg := &ReceiverConfig{AckInterval: 1, Sack: true}
	for _, tc := range []struct {
		overtakers int
		wantLost   bool
	}{{1, false}, {2, false}, {3, true}} {
		var r SelectiveReceiver
		s := SelectiveSender{DupThresh: 3, MTU: 1000}
		sendAll(&s, 10, 1000)
		deliver := func(seq int64) {
			resp, ack, sack, _ := r.OnData(seq, 1000, false, seq == 9000, cfg)
			if resp != SendAck {
				t.Fatalf("overtakers %d: data at %d: got %v, want an ACK (never a NACK)", tc.overtakers, seq, resp)
			}
			if seq > 2000 && seq <= 2000+int64(tc.overtakers)*1000 && (sack != Span{seq, seq + 1000} || ack != 2000) {
				t.Fatalf("overtakers %d: data at %d: got ACK %d SACK %v, want ACK 2000 SACK [%d, %d)", tc.overtakers, seq, ack, sack, seq, seq+1000)
			}
			s.OnSack(0, ack, sack)
		}
		deliver(0)
		deliver(1000)
		for i := range tc.overtakers {
			deliver(3000 + int64(i)*1000)
			lost := s.InRecovery()
			if want := tc.wantLost && i == tc.overtakers-1; lost != want {
				t.Fatalf("overtakers %d, after SACK %d: in recovery %v, want %v", tc.overtakers, i+1, lost, want)
			}
		}
		seq, n, ok := s.Next(1000)
		if tc.wantLost {
			if !ok || seq != 2000 || n != 1000 {
				t.Fatalf("overtakers %d: Next got (%d, %d, %v), want the resend (2000, 1000, true)", tc.overtakers, seq, n, ok)
			}
			if retx := s.Sent(seq, n); retx != 1000 {
				t.Errorf("overtakers %d: resend: got %d retransmitted bytes, want 1000", tc.overtakers, retx)
			}
		}
		if seq, n, ok := s.Next(1000); ok {
			t.Errorf("overtakers %d: Next got (%d, %d), want nothing to send", tc.overtakers, seq, n)
		}
		deliver(2000)
		for seq := 3000 + int64(tc.overtakers)*1000; seq < 10000; seq += 1000 {
			deliver(seq)
		}
		if s.Una != 10000 || s.InRecovery() {
			t.Errorf("overtakers %d: Una %d, recovery %v; want 10000 and no recovery", tc.overtakers, s.Una, s.InRecovery())
		}
	}
}

// DupThresh discontiguous SACKed ranges condemn the holes below the
// lowest, whatever their size: RFC 6675 IsLost's first clause. Packets of
// 1000 B 0-8 sent; 100 B at 1000, 3000 and 5000 SACKed (300 B, not more
// than 2 x 1000 B, but three ranges): only the hole at 0 has three ranges
// above it, so 0-1000 is resent and nothing else.
func TestSackDiscontiguousRanges(t *testing.T) {
	s := SelectiveSender{DupThresh: 3, MTU: 1000}
	sendAll(&s, 9, 1000)
	for _, seq := range []int64{1000, 3000, 5000} {
		s.OnSack(0, 0, Span{seq, seq + 100})
	}
	var got []Span
	for {
		seq, n, ok := s.Next(1000)
		if !ok || seq >= 9000 {
			break
		}
		s.Sent(seq, n)
		got = append(got, Span{seq, seq + n})
	}
	want := []Span{{0, 1000}}
	if len(got) != len(want) || got[0] != want[0] {
		t.Errorf("resent: got %v, want %v", got, want)
	}
}

// A resend is not repeated by the next recovery: the hole at 1000 is
// condemned and resent in a recovery that ends at the cumulative ACK of
// 5000; a second hole at 6000 then starts another, which resends 6000
// only.
func TestSackResendOnce(t *testing.T) {
	s := SelectiveSender{DupThresh: 1, MTU: 1000}
	sendAll(&s, 10, 1000)
	s.OnSack(0, 1000, Span{2000, 3000})
	if seq, n, _ := s.Next(1000); seq != 1000 || s.Sent(seq, n) != 1000 {
		t.Fatalf("first recovery: resend at %d, want 1000", seq)
	}
	s.OnSack(0, 6000, Span{7000, 8000}) // recovery began at HighSent 10000: still in it
	if seq, n, ok := s.Next(1000); !ok || seq != 6000 || n != 1000 {
		t.Fatalf("second hole: Next got (%d, %d, %v), want (6000, 1000, true)", seq, n, ok)
	}
}

// With a reorder window the count's verdict on the lowest hole waits
// until the hole has been open that long since the first SACK above it:
// DupThresh 3, window 1 us, packet 2 of 10 missing, SACKs of 3, 4 and 5
// at 0, 100 and 200 ns do not condemn it (the count alone would at the
// third); the SACK of 6 at 1 us does; a hole filled in time is never
// resent.
func TestSackReorderWindow(t *testing.T) {
	s := SelectiveSender{DupThresh: 3, MTU: 1000, ReorderWindow: engine.Microsecond}
	sendAll(&s, 10, 1000)
	s.OnSack(0, 2000, Span{})
	for i, at := range []engine.Time{0, 100 * engine.Nanosecond, 200 * engine.Nanosecond} {
		seq := 3000 + int64(i)*1000
		s.OnSack(at, 2000, Span{seq, seq + 1000})
		if s.InRecovery() {
			t.Fatalf("SACK %d at %v: in recovery, want the window to hold the verdict", i+1, at)
		}
		want := engine.Never // the count condemns the hole from the third SACK on
		if i == 2 {
			want = engine.Microsecond
		}
		if got := s.VerdictAt(); got != want {
			t.Errorf("SACK %d: VerdictAt %v, want %v", i+1, got, want)
		}
	}
	s.OnSack(engine.Microsecond, 2000, Span{6000, 7000})
	if seq, n, ok := s.Next(1000); !s.InRecovery() || !ok || seq != 2000 || n != 1000 {
		t.Fatalf("SACK at 1 us: recovery %v, Next (%d, %d, %v); want recovery and the resend (2000, 1000, true)", s.InRecovery(), seq, n, ok)
	}
	if got := s.VerdictAt(); got != engine.Never {
		t.Errorf("after the verdict: VerdictAt %v, want never", got)
	}

	s = SelectiveSender{DupThresh: 3, MTU: 1000, ReorderWindow: engine.Microsecond}
	sendAll(&s, 10, 1000)
	for i := range 6 {
		seq := 3000 + int64(i)*1000
		s.OnSack(engine.Time(i)*100*engine.Nanosecond, 2000, Span{seq, seq + 1000})
	}
	s.OnSack(900*engine.Nanosecond, 10000, Span{}) // the late packet arrives
	if s.InRecovery() || s.Una != 10000 {
		t.Errorf("late packet within the window: recovery %v, Una %d; want none and 10000", s.InRecovery(), s.Una)
	}
}
