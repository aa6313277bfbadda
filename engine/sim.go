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

// Sim is one simulation: a clock, an event queue, a run loop and the seeded
// random streams. It is not safe for concurrent use. A World (world.go)
// runs one simulation on several Sims, one per thread, that meet only at
// its windows' barriers.
type Sim struct {
	now     Time
	q       Queue
	events  uint64
	stopped bool
	seed    uint64
	check   func(now Time)
	observe func(h Handler, at Time)

	// A thread of a World (world.go); all zero otherwise.
	world     *World
	thread    int32
	windowEnd Time       // end (exclusive) of the window being run
	out       [][]remote // events sent this window, by receiving thread
	in        []remote   // scratch for deliveries
	order     []int32    // scratch for their order
	srcCount  []int32    // scratch: deliveries per sending unit
	delivered uint64     // events delivered to this thread's units
	stopReq   bool       // Stop was called in this window
}

// SetCheck installs a function run after every event when the binary is
// built with -tags invariants (and never otherwise). Simulations use it to
// assert their conservation laws at every step.
func (s *Sim) SetCheck(f func(now Time)) { s.check = f }

// SetObserver installs a function called with every event's handler and
// time before it fires, in binaries built with -tags invariants (and never
// otherwise): a measurement hook (wiring TestParallelProjection counts
// the events each part of the network would fire in a parallel run).
func (s *Sim) SetObserver(f func(h Handler, at Time)) { s.observe = f }

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
	s.q.Push(at, h, kind)
}

// After schedules h.Fire(now+d, kind).
func (s *Sim) After(d Time, h Handler, kind uint8) { s.At(s.now+d, h, kind) }

// Stop makes Run return after the event being fired; in a World, at the
// end of the window being run.
func (s *Sim) Stop() { s.stopped = true }

// NextEventTime is the time of the next pending event, or Never.
func (s *Sim) NextEventTime() Time { return s.q.Peek() }

// Run fires events in (time, sequence) order until the queue is empty, the
// next event is after until, or Stop is called. It returns true if it
// stopped because the queue emptied. The clock ends at the last fired event
// (or at until if events remain beyond it).
func (s *Sim) Run(until Time) bool { return s.run(until, true) }

// run is Run; with clock false it leaves the clock at the last event fired
// when events remain beyond until (World.runWindow).
func (s *Sim) run(until Time, clock bool) bool {
	s.stopped = false
	for {
		e, ok := s.q.next(until)
		if !ok {
			if s.q.Len() == 0 {
				return true
			}
			if clock {
				s.now = until
			}
			return false
		}
		s.now = e.at
		s.events++
		if invariants.Enabled && s.observe != nil {
			s.observe(e.h, e.at)
		}
		e.h.Fire(e.at, uint8(e.key))
		if invariants.Enabled && s.check != nil {
			s.check(s.now)
		}
		if s.stopped {
			if s.world != nil {
				// A World stops at the end of the window, in every
				// thread alike (World.Run).
				s.stopped, s.stopReq = false, true
				continue
			}
			return s.q.Len() == 0
		}
	}
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
	s.q.each(func(e *event) { out[fmt.Sprintf("%T/%d", e.h, uint8(e.key))]++ })
	return out
}
