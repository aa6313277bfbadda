package rocev2

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// reorderChannel runs a sender and a receiver over a channel that
// delivers packet k of the send order at tick k + delay, delay drawn in
// [0, depth] (so at most depth later packets overtake any packet), drops
// each packet with probability loss, and returns every ACK at once. The
// sender sends one packet per tick while it has one; after idle ticks
// without progress it times out (OnTimeout). It returns the bytes resent
// and whether the stream completed within the tick budget.
func reorderChannel(s *SelectiveSender, r *SelectiveReceiver, packets int, depth int, loss float64, seed uint64) (resent int64, done bool) {
	const mtu, idle = 1000, 64
	rng := rand.New(rand.NewPCG(seed, 1))
	cfg := &ReceiverConfig{AckInterval: 1, Sack: true}
	end := int64(packets) * mtu
	s.Post(end)
	type flight struct {
		at, order int
		seq, n    int64
	}
	var wire []flight
	sent, lastProgress := 0, 0
	for tick := 0; tick < 100*packets; tick++ {
		if seq, n, ok := s.Next(mtu); ok {
			resent += s.Sent(seq, n)
			if rng.Float64() >= loss {
				wire = append(wire, flight{tick + rng.IntN(depth+1), sent, seq, n})
			}
			sent++
		}
		slices.SortStableFunc(wire, func(a, b flight) int { return a.at - b.at })
		for len(wire) > 0 && wire[0].at <= tick {
			f := wire[0]
			wire = wire[1:]
			resp, ack, sack, _ := r.OnData(f.seq, f.n, false, f.seq+f.n == end, cfg)
			if resp == SendAck {
				before := s.Una
				s.OnSack(0, ack, sack)
				if s.Una > before {
					lastProgress = tick
				}
			}
		}
		if s.Una == end {
			return resent, true
		}
		if tick-lastProgress > idle && len(wire) == 0 {
			s.OnTimeout()
			lastProgress = tick
		}
	}
	return resent, false
}

// Reordering of at most DupThresh - 1 packets is never taken for loss:
// over 50 seeds and 200 packets each, no byte is resent and every stream
// completes. Deeper reordering completes too (with spurious resends), and
// so does loss (by the threshold or the timeout); the receiver ends with
// every byte in order.
func TestSackBoundedReorderProperty(t *testing.T) {
	var deepResent int64
	for seed := uint64(1); seed <= 50; seed++ {
		for _, tc := range []struct {
			depth      int
			loss       float64
			wantResent bool
		}{{0, 0, false}, {1, 0, false}, {2, 0, false}, {6, 0, true}, {2, 0.05, true}} {
			s := SelectiveSender{DupThresh: 3, MTU: 1000}
			var r SelectiveReceiver
			resent, done := reorderChannel(&s, &r, 200, tc.depth, tc.loss, seed)
			if !done || r.Expected != 200_000 || r.Held() != 0 {
				t.Fatalf("seed %d, depth %d, loss %v: done %v, receiver at %d holding %d; want done at 200000 holding 0",
					seed, tc.depth, tc.loss, done, r.Expected, r.Held())
			}
			if !tc.wantResent && resent != 0 {
				t.Errorf("seed %d, depth %d: got %d B resent, want 0 (reordering below the threshold)", seed, tc.depth, resent)
			}
			if tc.depth == 6 {
				deepResent += resent
			}
		}
	}
	if deepResent == 0 {
		t.Error("depth 6: nothing resent over 50 seeds; want spurious resends (the channel must reorder beyond the threshold)")
	}
}
