package engine

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/dcsim/dcsim/internal/invariants"
)

// Handler receives events. kind is the value given to At; it lets one
// component multiplex up to 256 event types without a closure per event.
type Handler interface {
	Fire(now Time, kind uint8)
}

// event is 32 bytes: the time, a key holding the sequence number in its
// high 56 bits and the kind in its low 8, and the handler. Ordering by
// (at, key) is ordering by (time, sequence): ties pop FIFO.
type event struct {
	at  Time
	key uint64
	h   Handler
}

func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

// Queue is a 4-ary min-heap of events ordered by (time, sequence). Values
// are stored inline, so push and pop allocate nothing once the backing
// array has grown to the peak number of pending events. A 4-ary heap halves
// the depth of a binary heap and keeps siblings within two cache lines;
// see BenchmarkQueue for the measured cost.
type Queue struct {
	ev  []event
	seq uint64
}

// Len is the number of pending events.
func (q *Queue) Len() int { return len(q.ev) }

// Push adds an event. Events at the same time pop in push order.
func (q *Queue) Push(at Time, h Handler, kind uint8) {
	q.seq++
	q.ev = append(q.ev, event{at: at, key: q.seq<<8 | uint64(kind), h: h})
	q.up(len(q.ev) - 1)
}

// Peek returns the time of the earliest event, or Never.
func (q *Queue) Peek() Time {
	if len(q.ev) == 0 {
		return Never
	}
	return q.ev[0].at
}

// replaceTop replaces the earliest event with a new one: one sift instead
// of a pop's and a push's.
func (q *Queue) replaceTop(at Time, h Handler, kind uint8) {
	q.seq++
	q.down(event{at: at, key: q.seq<<8 | uint64(kind), h: h})
}

// pop removes and returns the earliest event.
func (q *Queue) pop() event {
	top := q.ev[0]
	n := len(q.ev) - 1
	last := q.ev[n]
	q.ev[n] = event{}
	q.ev = q.ev[:n]
	if n > 0 {
		q.down(last)
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

// down places e, which replaces the root, by sifting the hole down.
func (q *Queue) down(e event) {
	ev := q.ev
	n := len(ev)
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		best := c
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if ev[j].before(&ev[best]) {
				best = j
			}
		}
		if !ev[best].before(&e) {
			break
		}
		ev[i] = ev[best]
		i = best
	}
	ev[i] = e
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
	// firing is true while the event at the top of the queue is being
	// fired and its slot is still there: the first event the handler
	// schedules takes the slot (most handlers schedule exactly one).
	firing bool
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

// At schedules h.Fire(at, kind). Scheduling in the past is a bug.
func (s *Sim) At(at Time, h Handler, kind uint8) {
	if at < s.now {
		panic(fmt.Sprintf("engine: event scheduled at %v, before now %v", at, s.now))
	}
	if s.firing {
		s.firing = false
		s.q.replaceTop(at, h, kind)
		return
	}
	s.q.Push(at, h, kind)
}

// After schedules h.Fire(now+d, kind).
func (s *Sim) After(d Time, h Handler, kind uint8) { s.At(s.now+d, h, kind) }

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
		e := s.q.ev[0]
		s.now = e.at
		s.events++
		s.firing = true
		e.h.Fire(e.at, uint8(e.key))
		if s.firing {
			s.firing = false
			s.q.pop()
		}
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

// PendingByHandler counts pending events by the handler's dynamic type, a
// diagnostic for what fills the queue.
func (s *Sim) PendingByHandler() map[string]int {
	out := map[string]int{}
	for i := range s.q.ev {
		out[fmt.Sprintf("%T/%d", s.q.ev[i].h, uint8(s.q.ev[i].key))]++
	}
	return out
}
