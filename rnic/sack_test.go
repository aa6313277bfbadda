package rnic_test

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// reorderOne is a test-only router: the data packet at byte offset victim
// takes the slow up port (spine 1), every other packet the fast one. With
// drop set, the victim's first transmission is dropped instead: it keeps
// its data class, which the lossy fabric's one-byte queue limit rejects,
// while every other packet travels in class 0, which switches do not
// admit against the buffer (one class in use per queue, so the timing is
// that of a single data class).
type reorderOne struct {
	victim  int64
	drop    bool
	once    bool // only the victim's first transmission takes the slow port
	dropped bool
	slowed  bool
}

func (r *reorderOne) Route(sw *fabric.Switch, p *fabric.Packet, _ int) int {
	hops := sw.Routes(p.Dst)
	fast, slow := hops[0], hops[len(hops)-1]
	if sw.Ports[fast].Delay > sw.Ports[slow].Delay {
		fast, slow = slow, fast
	}
	victim := p.Kind == fabric.Data && p.Seq == r.victim
	if r.drop {
		if victim && !r.dropped {
			r.dropped = true
			return int(fast)
		}
		p.Class = 0
		return int(fast)
	}
	if victim && !(r.once && r.slowed) {
		r.slowed = r.slowed || sw.Ports[slow].Delay != sw.Ports[fast].Delay
		return int(slow)
	}
	return int(fast)
}

// pktT is the serialisation of a 1000 B packet (1048 B on the wire) at
// 100 Gbps; ackT that of a 60 B ACK.
var pktT, ackT = ser(1048), ser(60)

// reorderRig is twoPathRig with the router r (lossy with a one-byte
// queue limit when r drops) and the selective receiver; dupThresh 0 is
// IRN's, and mutate (if not nil) changes the NICs' configuration last.
func reorderRig(t *testing.T, r *reorderOne, extra engine.Time, dupThresh int, mutate ...func(*rnic.Config)) *rig {
	t.Helper()
	return twoPathRig(t, r, extra, func(f *fabric.Config) {
		if r.drop {
			f.PFC, f.LossyQueueLimit = false, 1
		}
	}, func(c *rnic.Config) {
		c.Selective, c.DupThresh = true, dupThresh
		for _, f := range mutate {
			f(c)
		}
	})
}

// noReorderFCT is the FCT of n packets of 1000 B on the fast path: the
// last leaves the sender after n serialisations and takes three more
// store-and-forward hops and four 1 us wires; its ACK four hops back.
func noReorderFCT(n engine.Time) engine.Time {
	return (n+3)*pktT + 4*engine.Microsecond + 4*(ackT+engine.Microsecond)
}

// A 10-packet message whose packet v takes a path longer by X: packet 5
// by 2.5 or 3.5 serialisations (T), so 2 or 3 later packets overtake it.
// At the receiver's leaf its slot goes idle and the packets after it move
// one slot, or, when it arrives after them all, it ends the message
// itself: the message completes max(T, X - (9 - v) T) after the
// no-reorder FCT (the reorder delay less what later packets fill of it)
// in every mode that resends nothing before the end; the resends only add
// bytes. Packet 8 delayed 2.5 T, overtaken by packet 9 only: 1.5 T. DupThresh 3 resends nothing with 2
// overtakers and sends no NACK at all; with 3 it resends packet 5 once
// (spurious: it was late, not lost). IRN (DupThresh 0) NACKs every
// overtaker and resends packet 5 on the first NACK, as before. The resend
// arrives after the flow finished and is a duplicate, not payload.
func TestSackReorder(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		victim               int64
		extra                engine.Time
		dupThresh            int
		wantRetx, wantNacks  int64
		wantSacks, wantInOrd int64
		wantDupData          int64
		wantDone             engine.Time
	}{
		{"dupthresh 3, 2 overtakers", 5000, 5 * pktT / 2, 3, 0, 0, 2, 10000, 0, noReorderFCT(10) + pktT},
		{"dupthresh 3, packet 8, 1 overtaker", 8000, 5 * pktT / 2, 3, 0, 0, 1, 10000, 0, noReorderFCT(10) + 3*pktT/2},
		{"dupthresh 3, 3 overtakers", 5000, 7 * pktT / 2, 3, 1000, 0, 3, 10000, 1, noReorderFCT(10) + pktT},
		{"IRN, 2 overtakers", 5000, 5 * pktT / 2, 0, 1000, 2, 0, 10000, 1, noReorderFCT(10) + pktT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := reorderRig(t, &reorderOne{victim: tc.victim}, tc.extra, tc.dupThresh)
			m := r.postAt(0, 0, 1, 10000)
			r.drain(t)
			k := r.c.Counters
			if !m.Done || m.FCT() != tc.wantDone {
				t.Errorf("done %v, fct %v; want done, fct %v", m.Done, m.FCT(), tc.wantDone)
			}
			if k.Retransmitted != tc.wantRetx || k.Nacks != tc.wantNacks || k.Sacks != tc.wantSacks || k.RTOs != 0 {
				t.Errorf("got %d B resent, %d NACKs, %d SACKs, %d RTOs; want %d, %d, %d, 0",
					k.Retransmitted, k.Nacks, k.Sacks, k.RTOs, tc.wantRetx, tc.wantNacks, tc.wantSacks)
			}
			if k.PayloadInOrder != tc.wantInOrd || k.DuplicateData != tc.wantDupData {
				t.Errorf("got %d B in order, %d duplicates; want %d, %d", k.PayloadInOrder, k.DuplicateData, tc.wantInOrd, tc.wantDupData)
			}
		})
	}
	r := reorderRig(t, &reorderOne{victim: -1}, 0, 3)
	m := r.postAt(0, 0, 1, 10000)
	r.drain(t)
	if m.FCT() != noReorderFCT(10) {
		t.Errorf("no reorder: fct %v, want %v", m.FCT(), noReorderFCT(10))
	}
}

// Packet 5 of 10 dropped. DupThresh 3 resends it when the third SACK
// beyond it (packet 8's) arrives: packet 8 reaches the receiver at 12
// serialisations + 4 us, its SACK the sender 4 ACK hops later; the resend
// takes 4 serialisations and 4 us, the final ACK 4 ACK hops. IRN resends
// on packet 6's NACK, two serialisations earlier. A drop of the last
// packet leaves no packet to SACK: both wait for the timeout (5 ms),
// armed by the ACK of packet 8, the last one that advanced.
func TestSackLoss(t *testing.T) {
	hop := ackT + engine.Microsecond
	for _, tc := range []struct {
		name      string
		victim    int64
		dupThresh int
		wantDone  engine.Time
		wantRTOs  int64
	}{
		{"dupthresh 3, packet 5", 5000, 3, 16*pktT + 8*engine.Microsecond + 8*hop, 0},
		{"IRN, packet 5", 5000, 0, 14*pktT + 8*engine.Microsecond + 8*hop, 0},
		{"dupthresh 3, last packet", 9000, 3, 5*engine.Millisecond + 16*pktT + 8*engine.Microsecond + 8*hop, 1},
		{"IRN, last packet", 9000, 0, 5*engine.Millisecond + 16*pktT + 8*engine.Microsecond + 8*hop, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := reorderRig(t, &reorderOne{victim: tc.victim, drop: true}, 0, tc.dupThresh)
			m := r.postAt(0, 0, 1, 10000)
			r.drain(t)
			k := r.c.Counters
			if r.net.DroppedPayload != 1000 {
				t.Fatalf("dropped %d B of payload, want 1000", r.net.DroppedPayload)
			}
			if !m.Done || m.FCT() != tc.wantDone {
				t.Errorf("done %v, fct %v; want done, fct %v", m.Done, m.FCT(), tc.wantDone)
			}
			if k.Retransmitted != 1000 || k.RTOs != tc.wantRTOs || k.PayloadInOrder != 10000 {
				t.Errorf("got %d B resent, %d RTOs, %d B in order; want 1000, %d, 10000", k.Retransmitted, k.RTOs, k.PayloadInOrder, tc.wantRTOs)
			}
		})
	}
}

// A late duplicate of a finished per-flow QP is a duplicate (the flaw
// this fixes: it found no receive state, looked like a new flow's first
// packet and was counted, and placed, again). Go-back-N, a one-packet
// message whose packet takes a path 20 us longer, the timeout 10 us: the
// resend on the fast path completes the message, and the original
// arrives after the receive state ended. It is counted once as a
// duplicate and placed no second time; its re-ACK finds the QP closed.
func TestLateDuplicateOfFinishedQP(t *testing.T) {
	for _, selective := range []bool{false, true} {
		r := reorderRig(t, &reorderOne{victim: 0, once: true}, 20*engine.Microsecond, 0, func(c *rnic.Config) {
			c.Selective, c.RTO = selective, 10*engine.Microsecond
		})
		placed := 0
		r.c.OnPlace = func(engine.Time, *rnic.Host, *fabric.Packet) { placed++ }
		m := r.postAt(0, 0, 1, 1000)
		r.drain(t)
		k := r.c.Counters
		if !m.Done || k.RTOs != 1 || k.Retransmitted != 1000 {
			t.Fatalf("selective %v: done %v, %d RTOs, %d B resent; want done, 1, 1000", selective, m.Done, k.RTOs, k.Retransmitted)
		}
		if k.PayloadArrived != 2000 || k.PayloadInOrder != 1000 || k.DuplicateData != 1 || placed != 1 || k.DroppedStaleAck != 1 {
			t.Errorf("selective %v: %d B arrived, %d B in order, %d duplicates, %d placements, %d stale ACKs; want 2000, 1000, 1, 1, 1",
				selective, k.PayloadArrived, k.PayloadInOrder, k.DuplicateData, placed, k.DroppedStaleAck)
		}
	}
}

// A reorder window (ReorderWindow, with DupThresh 3) forgives reordering
// deeper than the threshold if it resolves in time, and delays a real
// loss's resend until the hole has been open that long since the first
// SACK above it (packet 6's, at 10 serialisations T + 4 us + 4 ACK hops).
// 3 overtakers (3.5 T late) within a 1 us window: nothing resent, FCT one
// T over the no-reorder one. Packet 5 dropped, window 2.5 T: the count
// condemns the hole at packet 8's SACK (2 T after packet 6's), the window
// ends 0.5 T later, between SACKs, and the verdict timer resends packet 5
// then: FCT 16.5 T + 8 us + 8 ACK hops, 0.5 T after the count alone.
// Window 5 T, longer than the SACKs last: the timer resends at 15 T + 4 us
// + 4 hops, FCT 19 T + 8 us + 8 hops, no timeout.
func TestSackReorderWindow(t *testing.T) {
	hop := ackT + engine.Microsecond
	for _, tc := range []struct {
		name     string
		r        *reorderOne
		extra    engine.Time
		window   engine.Time
		wantRetx int64
		wantRTOs int64
		wantDone engine.Time
	}{
		{"3 overtakers, 1 us", &reorderOne{victim: 5000}, 7 * pktT / 2, engine.Microsecond, 0, 0, noReorderFCT(10) + pktT},
		{"drop, 2.5 serialisations", &reorderOne{victim: 5000, drop: true}, 0, 5 * pktT / 2, 1000, 0, 33*pktT/2 + 8*engine.Microsecond + 8*hop},
		{"drop, 5 serialisations", &reorderOne{victim: 5000, drop: true}, 0, 5 * pktT, 1000, 0, 19*pktT + 8*engine.Microsecond + 8*hop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := reorderRig(t, tc.r, tc.extra, 3, func(c *rnic.Config) { c.ReorderWindow = tc.window })
			m := r.postAt(0, 0, 1, 10000)
			r.drain(t)
			k := r.c.Counters
			if !m.Done || m.FCT() != tc.wantDone {
				t.Errorf("done %v, fct %v; want done, fct %v", m.Done, m.FCT(), tc.wantDone)
			}
			if k.Retransmitted != tc.wantRetx || k.RTOs != tc.wantRTOs || k.Nacks != 0 || k.PayloadInOrder != 10000 {
				t.Errorf("got %d B resent, %d RTOs, %d NACKs, %d B in order; want %d, %d, 0, 10000",
					k.Retransmitted, k.RTOs, k.Nacks, k.PayloadInOrder, tc.wantRetx, tc.wantRTOs)
			}
		})
	}
}
