package simai

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
)

// idealEvent is a pending Done or Wake of RunIdeal.
type idealEvent struct {
	at    engine.Time
	seq   uint64
	kind  uint8 // idealDone, idealWake, idealSent
	value int   // transfer ID or wake token
}

const (
	idealDone = iota
	idealWake
	idealSent
)

// idealQueue is a binary min-heap ordered by (at, seq): ties fire in the
// order they were scheduled, like engine.Sim.
type idealQueue []idealEvent

func (q idealQueue) less(i, j int) bool {
	return q[i].at < q[j].at || (q[i].at == q[j].at && q[i].seq < q[j].seq)
}

func (q *idealQueue) push(e idealEvent) {
	*q = append(*q, e)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *idealQueue) pop() idealEvent {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.less(c+1, c) {
			c++
		}
		if !h.less(c, i) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	*q = h
	return top
}

// RunIdeal drives r from time 0 to completion on an ideal network in which
// every transfer is delivered transferTime(t) after it is posted,
// independently of every other transfer (no contention, no queueing). It
// returns the time the last rank finished. It is an oracle for tests and a
// lower bound for a real network with the same per-transfer cost; the
// scenario package drives a Run over the simulated network instead.
func RunIdeal(r *Run, transferTime func(Transfer) engine.Time) (engine.Time, error) {
	return runIdealSent(r, nil, transferTime)
}

// runIdealSent is RunIdeal with, when sentTime is not nil, a Sent call
// sentTime(t) after each post (it must not exceed transferTime(t)).
func runIdealSent(r *Run, sentTime, transferTime func(Transfer) engine.Time) (engine.Time, error) {
	var q idealQueue
	var seq uint64
	var end engine.Time
	schedule := func(acts []Action) error {
		for i := range acts {
			a := &acts[i]
			seq++
			switch a.Kind {
			case Post:
				d := transferTime(a.Transfer)
				if d < 0 {
					return fmt.Errorf("simai: negative transfer time %v for %s", d, a.Transfer.Tag)
				}
				if sentTime != nil {
					q.push(idealEvent{at: a.At + sentTime(a.Transfer), seq: seq, kind: idealSent, value: a.Transfer.ID})
					seq++
				}
				q.push(idealEvent{at: a.At + d, seq: seq, kind: idealDone, value: a.Transfer.ID})
			case Wake:
				q.push(idealEvent{at: a.At, seq: seq, kind: idealWake, value: a.Token})
			}
		}
		return nil
	}
	if err := schedule(r.Start(0)); err != nil {
		return 0, err
	}
	for len(q) > 0 {
		e := q.pop()
		end = e.at
		var acts []Action
		switch e.kind {
		case idealWake:
			acts = r.Wake(e.at, e.value)
		case idealSent:
			acts = r.Sent(e.at, e.value)
		default:
			acts = r.Done(e.at, e.value)
		}
		if err := schedule(acts); err != nil {
			return 0, err
		}
	}
	if !r.Finished() {
		return end, fmt.Errorf("simai: run stalled at %v with %d collectives in flight", end, len(r.insts))
	}
	return end, nil
}

// LinkTime returns a transfer-time function for RunIdeal: bytes at rate
// plus a fixed latency, e.g. the serialization at the host link plus a
// base RTT.
func LinkTime(rate engine.Rate, latency engine.Time) func(Transfer) engine.Time {
	return func(t Transfer) engine.Time { return rate.TxTime(t.Bytes) + latency }
}
