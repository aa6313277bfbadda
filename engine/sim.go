package engine

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/dcsim/dcsim/internal/invariants"
)

// Handler receives events. kind and arg are the values given to Schedule;
// they let one component multiplex several event types without a closure
// per event.
type Handler interface {
	Fire(now Time, kind int32, arg uint64)
}

type event struct {
	at   Time
	seq  uint64
	h    Handler
	arg  uint64
	kind int32
}

func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// Queue is a 4-ary min-heap of events ordered by (time, sequence). Values
// are stored inline, so push and pop allocate nothing once the backing
// array has grown to the peak number of pending events. A 4-ary heap halves
// the depth of a binary heap and keeps siblings on one cache line; see
// BenchmarkQueue for the measured cost.
type Queue struct {
	ev  []event
	seq uint64
}

// Len is the number of pending events.
func (q *Queue) Len() int { return len(q.ev) }

// Push adds an event. Events at the same time pop in push order.
func (q *Queue) Push(at Time, h Handler, kind int32, arg uint64) {
	q.seq++
	q.ev = append(q.ev, event{at: at, seq: q.seq, h: h, arg: arg, kind: kind})
	q.up(len(q.ev) - 1)
}

// Peek returns the time of the earliest event, or Never.
func (q *Queue) Peek() Time {
	if len(q.ev) == 0 {
		return Never
	}
	return q.ev[0].at
}

// Pop removes and returns the earliest event.
func (q *Queue) pop() event {
	top := q.ev[0]
	n := len(q.ev) - 1
	q.ev[0] = q.ev[n]
	q.ev[n] = event{}
	q.ev = q.ev[:n]
	if n > 1 {
		q.down(0)
	}
	return top
}

func (q *Queue) up(i int) {
	e := q.ev[i]
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&q.ev[p]) {
			break
		}
		q.ev[i] = q.ev[p]
		i = p
	}
	q.ev[i] = e
}

func (q *Queue) down(i int) {
	n := len(q.ev)
	e := q.ev[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		best := c
		end := c + 4
		if end > n {
			end = n
		}
		for j := c + 1; j < end; j++ {
			if q.ev[j].before(&q.ev[best]) {
				best = j
			}
		}
		if !q.ev[best].before(&e) {
			break
		}
		q.ev[i] = q.ev[best]
		i = best
	}
	q.ev[i] = e
}

// Sim is one simulation: a clock, an event queue, a run loop and the seeded
// random streams. It is not safe for concurrent use; parallelism in dcsim
// is across simulations, never inside one.
type Sim struct {
	now     Time
	q       Queue
	events  uint64
	stopped bool
	seed    uint64
	check   func(now Time)
}

// SetCheck installs a function run after every event when the binary is
// built with -tags invariants (and never otherwise). Simulations use it to
// assert their conservation laws at every step.
func (s *Sim) SetCheck(f func(now Time)) { s.check = f }

// NewSim returns a simulation at time 0 whose random streams derive from seed.
func NewSim(seed uint64) *Sim { return &Sim{seed: seed} }

// Now is the current simulated time.
func (s *Sim) Now() Time { return s.now }

// Seed is the scenario seed the streams derive from.
func (s *Sim) Seed() uint64 { return s.seed }

// Events is the number of events fired so far.
func (s *Sim) Events() uint64 { return s.events }

// Pending is the number of scheduled events not yet fired.
func (s *Sim) Pending() int { return s.q.Len() }

// At schedules h.Fire(at, kind, arg). Scheduling in the past is a bug.
func (s *Sim) At(at Time, h Handler, kind int32, arg uint64) {
	if at < s.now {
		panic(fmt.Sprintf("engine: event scheduled at %v, before now %v", at, s.now))
	}
	s.q.Push(at, h, kind, arg)
}

// After schedules h.Fire(now+d, kind, arg).
func (s *Sim) After(d Time, h Handler, kind int32, arg uint64) { s.At(s.now+d, h, kind, arg) }

// Stop makes Run return after the event being fired.
func (s *Sim) Stop() { s.stopped = true }

// NextEventTime is the time of the next pending event, or Never.
func (s *Sim) NextEventTime() Time { return s.q.Peek() }

// Run fires events in (time, sequence) order until the queue is empty, the
// next event is after until, or Stop is called. It returns true if it
// stopped because the queue emptied. The clock ends at the last fired event
// (or at until if events remain beyond it).
func (s *Sim) Run(until Time) bool {
	s.stopped = false
	for len(s.q.ev) > 0 {
		if s.q.ev[0].at > until {
			s.now = until
			return false
		}
		e := s.q.pop()
		s.now = e.at
		s.events++
		e.h.Fire(e.at, e.kind, e.arg)
		if invariants.Enabled && s.check != nil {
			s.check(s.now)
		}
		if s.stopped {
			return len(s.q.ev) == 0
		}
	}
	return true
}

// Rand returns a random stream named name, derived from the simulation seed
// and the name only: adding a stream never changes another stream's draws.
// Each call returns a fresh generator at the start of its stream; callers
// keep the one they get.
func (s *Sim) Rand(name string) *rand.Rand { return NewStream(s.seed, name) }

// NewStream is the generator Sim.Rand returns, for code that has a seed but
// no Sim (workload generators, tests).
func NewStream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
