package wiring

import (
	"cmp"
	"container/heap"
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/workloads/simai"
)

// Training on the parallel engine (docs/parallel.md, "State that crosses
// units"). A simai.Run is one executor for every rank: a completion on
// any host advances it, and it posts on many hosts. On a World it is the
// engine's Barrier (trainBarrier), run by the coordinator at the end of
// every window, when no thread runs:
//
//   - a host's unit hands it what happened there, a transfer's last byte
//     serialised (Run.Sent) or acknowledged (Run.Done), in a buffer of
//     that unit's own, with the time it happened;
//   - at the barrier it takes the buffers in unit order and runs every
//     executor call due before the window's end (those, its own wake-ups
//     for compute and NVLink transfers, and the zero-byte or same-host
//     transfers that complete at their post time) in order of time, then
//     of when it learnt of them;
//   - each transfer it posts goes to its source host's unit as an event
//     at the post time, which the executor puts a send latency after the
//     call that causes it (simai.RunConfig.SendLatency: SimAI's
//     AS_SEND_LAT, 6 us by default, or its protocol table's 9.3-22.4 us).
//     A send latency of at least the lookahead puts every post at or
//     after the window's end, so nothing is late: the executor sees the
//     same calls at the same times as on the sequential engine, and the
//     network the same posts, but for the order of same-time calls. A
//     smaller send latency is refused (checkTrainingLookahead) rather
//     than delayed.
//
// What differs from the sequential engine is what differs for every run
// on the World (same-time order, per-switch random streams) and the
// message ids of training transfers, which are handed out when the
// executor decides a post (at the barrier) rather than at the post.
type trainBarrier struct {
	s     *Sim
	notes [][]trainCall // per unit: filled only by that unit's handlers
	calls trainCalls    // pending executor calls, by (time, order learnt)
	seq   uint64
	// now is the time of the call being run (0 before the run); end the
	// end of the window being finished.
	now, end engine.Time
}

// trainCall is one executor call: Run.Done (a network transfer
// acknowledged, or a transfer that needs no network at its post time),
// Run.Sent, or Run.Wake.
type trainCall struct {
	at   engine.Time
	seq  uint64
	kind uint8
	tr   *trainer
	id   int // transfer id, or wake token
}

const (
	callDone = iota
	callSent
	callWake
)

type trainCalls []trainCall

func (h trainCalls) Len() int { return len(h) }
func (h trainCalls) Less(i, j int) bool {
	return cmp.Or(cmp.Compare(h[i].at, h[j].at), cmp.Compare(h[i].seq, h[j].seq)) < 0
}
func (h trainCalls) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *trainCalls) Push(x any)   { *h = append(*h, x.(trainCall)) }
func (h *trainCalls) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newTrainBarrier(s *Sim) *trainBarrier {
	return &trainBarrier{s: s, notes: make([][]trainCall, s.World.Units())}
}

// note records, from a handler of unit u, a call for the barrier.
func (b *trainBarrier) note(u int32, c trainCall) { b.notes[u] = append(b.notes[u], c) }

func (b *trainBarrier) push(c trainCall) {
	c.seq = b.seq
	b.seq++
	heap.Push(&b.calls, c)
}

// Next implements engine.Barrier.
func (b *trainBarrier) Next() engine.Time {
	if len(b.calls) == 0 {
		return engine.Never
	}
	return b.calls[0].at
}

// At implements engine.Barrier: the units' calls in unit order, then
// every call due before end, in order.
func (b *trainBarrier) At(_ *engine.World, end engine.Time) {
	b.end = end
	for u, ns := range b.notes {
		for _, c := range ns {
			b.push(c)
		}
		clear(ns)
		b.notes[u] = ns[:0]
	}
	for len(b.calls) > 0 && b.calls[0].at < end {
		c := heap.Pop(&b.calls).(trainCall)
		b.now = c.at
		tr := c.tr
		switch c.kind {
		case callDone:
			b.apply(tr, tr.run.Done(c.at, c.id))
		case callSent:
			b.apply(tr, tr.run.Sent(c.at, c.id))
		case callWake:
			b.apply(tr, tr.run.Wake(c.at, c.id))
		}
	}
}

// apply is trainer.apply on the World: wake-ups and transfers that need
// no network become the barrier's own calls; a network transfer's
// message is made now and sent to its source's unit for its post time.
func (b *trainBarrier) apply(tr *trainer, actions []simai.Action) {
	s := b.s
	for _, a := range actions {
		switch a.Kind {
		case simai.Wake:
			b.push(trainCall{at: max(a.At, b.now), kind: callWake, tr: tr, id: a.Token})
		case simai.Post:
			t := a.Transfer
			src, dst, network := tr.endpoints(t)
			if !network {
				b.push(trainCall{at: max(a.At, b.now), kind: callDone, tr: tr, id: t.ID})
				continue
			}
			if a.At < b.end {
				// checkTrainingLookahead refuses a send latency below
				// the lookahead, so this is a model error.
				panic(fmt.Sprintf("wiring: training transfer %d posted at %v, inside the window ending %v", t.ID, a.At, b.end))
			}
			m := tr.message(t, src, dst)
			s.flowsMade++
			s.World.Schedule(int(s.Net.HostUnit(m.Src)), a.At, &postAt{s, m}, 0)
		}
	}
}

// checkTrainingLookahead refuses, on the parallel engine, a training
// workload whose send latency (the least time from an executor call to
// the post it causes) is below the lookahead: its posts could not reach
// their hosts' units in time.
func checkTrainingLookahead(path, kind string, cfg simai.RunConfig, lookahead engine.Time) error {
	least, field, fix := cfg.SendLatency, "send_latency", "raise it"
	if cfg.SendLatencyTable {
		least, field, fix = simai.SendLatencyFor(cfg.Protocol, false), "send_latency_table", "choose a protocol with a longer one"
	}
	if least < lookahead {
		return fmt.Errorf("threads: %s.%s.%s: a send latency of %v is below the lookahead %v: a transfer posted on another thread must be at least one lookahead after what causes it; %s, or leave --threads and parallel unset",
			path, kind, field, least, lookahead, fix)
	}
	return nil
}
