package engine

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// World is one simulation cut into units that run in parallel: the
// conservative, windowed engine of docs/parallel.md. A unit is a part of
// the model (a leaf switch with its hosts, a spine) whose handlers touch
// only its own state; units interact only through Send, an event in
// another unit at least the lookahead ahead. Units are fixed by the model,
// not by the thread count: the threads each run a contiguous group of
// units through one event queue (one *Sim), all in the same window
// [t, t+lookahead), and at the window's end exchange the events sent
// across units. Every unit sees the same events in the same order for any
// number of threads (the argument is in docs/parallel.md, "Determinism"),
// so a model whose units share no other state gives identical results
// for every thread count; TestWorldSameForEveryThreadCount checks it.
type World struct {
	lookahead Time
	sims      []*Sim  // one per thread
	unitOf    []int32 // unit -> thread
	stopped   bool

	// The barrier (dispatch, worker, await): the coordinator publishes a
	// task (a window's end, or -1: deliver) and bumps epoch; workers spin
	// on epoch for a while, then park on their wake channel; pending
	// counts the workers still at the task. Spinning keeps a hand-off
	// under a microsecond when every thread has a core; parking keeps
	// idle threads off the cores when they do not.
	task    atomic.Int64
	epoch   atomic.Uint64
	pending atomic.Int32
	quit    atomic.Bool
	workers []*worker
	spin    int // spinLimit, set by Run
	wg      sync.WaitGroup
	panics  []any // a worker's panic, re-raised by the coordinator

	winEnd Time // end (exclusive) of the open window; 0 if none is open
	// barrier is the model's state outside every unit (SetBarrier);
	// barrierEnd is the end of the window its At is running for, 0
	// outside At.
	barrier    Barrier
	barrierEnd Time

	stats  WorldStats
	before []uint64 // events per thread at the window's start
}

// WorldStats describes a World's run so far, for the performance notes:
// how much each window held and how the threads shared it.
type WorldStats struct {
	// Windows is the number of windows run (empty stretches of time are
	// skipped, not run).
	Windows uint64
	// Events is the events fired, over all threads (World.Events).
	Events uint64
	// CriticalEvents sums, over windows, the largest number of events one
	// thread fired in the window: with every event costing the same, the
	// run's length in events on as many cores as threads. Events /
	// CriticalEvents is the speed-up the partition allows before barrier
	// costs.
	CriticalEvents uint64
	// Sent is the events delivered across units so far.
	Sent uint64
	// Wait is the wall time the first thread waited, after its own part
	// of a window, for the other threads to finish theirs (imbalance),
	// and Exchange the wall time of handing out windows and delivering
	// the sent events (the barrier's own cost), summed over windows.
	Wait, Exchange time.Duration
}

// remote is an event sent to another unit, or a courier handed to it,
// held until its window ends.
type remote struct {
	at   Time
	h    Handler
	c    Courier
	src  int32
	dst  int32
	kind uint8
}

// A Courier carries what one unit sent another during a window when an
// event is not enough: a link's packets in flight, say, whose delivery
// events the receiving side then schedules itself. Arrive runs on the
// receiving unit's thread at the window's end, in the same order as sent
// events (by sending unit, then order handed), while the sending unit is
// stopped; it may schedule events at or after the window's end in s.
type Courier interface {
	Arrive(s *Sim)
}

// NewWorld makes a world of units units run by threads threads (at most
// units), with the given lookahead (> 0), whose random streams derive from
// seed. Units are split among threads in contiguous groups of nearly equal
// size (NewWorldWeighted with equal weights); NewWorldSplit chooses the
// split.
func NewWorld(seed uint64, units, threads int, lookahead Time) (*World, error) {
	return NewWorldWeighted(seed, slices.Repeat([]float64{1}, units), threads, lookahead)
}

// NewWorldWeighted makes a world of len(weight) units run by threads
// threads, splitting them into contiguous groups of nearly equal total
// weight: an estimate of each unit's work (its hosts and ports, say).
// Which thread runs a unit never changes a result, only how evenly the
// threads are loaded; a split by count leaves the threads that hold
// leaves with their hosts far busier than those that hold only upper
// switches (docs/parallel.md, "Measured so far").
func NewWorldWeighted(seed uint64, weight []float64, threads int, lookahead Time) (*World, error) {
	if threads < 1 {
		return nil, fmt.Errorf("engine: %d threads, want at least 1", threads)
	}
	return NewWorldSplit(seed, WeightedSplit(weight, threads), lookahead)
}

// WeightedSplit is NewWorldWeighted's split: first[i] is thread i's first
// unit. Each thread gets at least one unit (so at most len(weight)
// threads); a group ends once its running total reaches its share of the
// whole.
func WeightedSplit(weight []float64, threads int) []int32 {
	units := len(weight)
	threads = max(1, min(threads, units))
	var total float64
	for _, w := range weight {
		total += max(w, 0)
	}
	first := []int32{0}
	var sum float64
	for u := range units {
		sum += max(weight[u], 0)
		left := threads - len(first) // boundaries still to place
		if left > 0 && units-u-1 >= left && sum >= total*float64(len(first))/float64(threads) {
			first = append(first, int32(u+1))
		}
	}
	for len(first) < threads {
		// Weights too skewed to place every boundary by share (all the
		// weight in the first units): the last threads take one unit each.
		first = append(first, int32(units-(threads-len(first))))
	}
	return append(first, int32(units))
}

// NewWorldSplit makes a world whose thread i runs units [first[i],
// first[i+1]); first starts at 0 and increases strictly.
func NewWorldSplit(seed uint64, first []int32, lookahead Time) (*World, error) {
	if lookahead <= 0 {
		return nil, fmt.Errorf("engine: lookahead %v, want > 0 (a zero-delay link between units cannot run in parallel)", lookahead)
	}
	if len(first) < 2 || first[0] != 0 {
		return nil, fmt.Errorf("engine: unit split %v must start at 0 and name at least one thread", first)
	}
	w := &World{lookahead: lookahead, unitOf: make([]int32, first[len(first)-1]), before: make([]uint64, len(first)-1)}
	for i := 1; i < len(first); i++ {
		if first[i] <= first[i-1] {
			return nil, fmt.Errorf("engine: unit split %v is not strictly increasing", first)
		}
		for u := first[i-1]; u < first[i]; u++ {
			w.unitOf[u] = int32(i - 1)
		}
	}
	threads := len(first) - 1
	w.sims = make([]*Sim, threads)
	for i := range w.sims {
		w.sims[i] = &Sim{seed: seed, world: w, thread: int32(i), out: make([][]remote, threads)}
	}
	return w, nil
}

// Sim is the simulation that runs unit u: its handlers schedule their own
// events with its At and send to other units with its Send.
func (w *World) Sim(u int) *Sim { return w.sims[w.unitOf[u]] }

// Units is the number of units.
func (w *World) Units() int { return len(w.unitOf) }

// Threads is the number of threads.
func (w *World) Threads() int { return len(w.sims) }

// Lookahead is the world's window length.
func (w *World) Lookahead() Time { return w.lookahead }

// Stats describes the run so far.
func (w *World) Stats() WorldStats {
	st := w.stats
	st.Events = w.Events()
	for _, s := range w.sims {
		st.Sent += s.delivered
	}
	return st
}

// Events is the number of events fired so far, over all threads.
func (w *World) Events() uint64 {
	var n uint64
	for _, s := range w.sims {
		n += s.events
	}
	return n
}

// Now is the time every unit has reached: the end of the last window run
// (or the last event, once the queues are empty).
func (w *World) Now() Time { return w.sims[0].now }

// Send schedules h.Fire(at, kind) in unit dst, from a handler of unit src
// that runs on s. The event enters dst's queue when the current window
// ends, after the events src sent before it and those of lower-numbered
// units; at must be at least the window's end, which a link between units
// whose delay is at least the lookahead guarantees. On a Sim that is not
// part of a World, Send is At.
func (s *Sim) Send(src, dst int32, at Time, h Handler, kind uint8) {
	if s.world == nil {
		s.At(at, h, kind)
		return
	}
	if at < s.windowEnd {
		panic(fmt.Sprintf("engine: unit %d sent an event at %v to unit %d inside the window ending %v: a delay between units is below the lookahead %v",
			src, at, dst, s.windowEnd, s.world.lookahead))
	}
	t := s.world.unitOf[dst]
	s.out[t] = append(s.out[t], remote{at: at, h: h, src: src, dst: dst, kind: kind})
}

// Hand gives c to unit dst, from a handler of unit src that runs on s:
// c.Arrive runs at the end of the current window (Courier). Off a World,
// it runs at once.
func (s *Sim) Hand(src, dst int32, c Courier) {
	if s.world == nil {
		c.Arrive(s)
		return
	}
	t := s.world.unitOf[dst]
	s.out[t] = append(s.out[t], remote{c: c, src: src, dst: dst})
}

// A Barrier is model state that belongs to no unit: SimAI's collective
// progress, which a completion anywhere advances and which posts
// transfers on many hosts. Units hand it what happened (the model keeps
// one buffer per unit, which only that unit's handlers fill); at the end
// of every window, after the exchange, when no thread runs, the World
// calls At, which takes what the units handed it, does its own work due
// before end in an order that depends on the simulation only, and puts
// what follows into the units' queues with Schedule, at or after end. A
// model whose barrier's effects on units are never sooner than one
// lookahead after their causes runs exactly as on one queue, but for the
// order of same-time work (docs/parallel.md, "State that crosses units").
type Barrier interface {
	// Next is the time of the barrier's earliest pending work, or Never:
	// a window opens there even when no unit has an event.
	Next() Time
	// At does the barrier's work before end, the end of the window just
	// run.
	At(w *World, end Time)
}

// SetBarrier makes b the world's barrier (nil: none). Call it before Run.
func (w *World) SetBarrier(b Barrier) { w.barrier = b }

// Schedule puts h.Fire(at, kind) into unit u's queue, from a Barrier's At
// (at must be at least the window's end) or before the first Run (at
// least Now).
func (w *World) Schedule(u int, at Time, h Handler, kind uint8) {
	floor := w.Now()
	if w.barrierEnd > 0 {
		floor = w.barrierEnd
	} else if w.winEnd != 0 {
		panic("engine: World.Schedule during a window; units use At and Send")
	}
	if at < floor {
		panic(fmt.Sprintf("engine: World.Schedule at %v into unit %d, before %v: the barrier's work reaches units one lookahead (%v) late at most", at, u, floor, w.lookahead))
	}
	w.Sim(u).q.Push(at, h, kind)
}

// Run runs the world until every queue is empty (true), until no event
// is due at or before until (false), or until a handler calls Stop (the
// window it stopped in is finished by every unit, so that the stop point
// does not depend on the thread count; false unless the queues are
// empty). Threads beyond the first run on goroutines of their own for the
// length of the call.
func (w *World) Run(until Time) bool {
	w.stopped = false
	w.spin = spinLimit(len(w.sims))
	if len(w.sims) > 1 {
		w.panics = make([]any, len(w.sims))
		w.quit.Store(false)
		w.workers = w.workers[:0]
		for i := 1; i < len(w.sims); i++ {
			wk := &worker{s: w.sims[i], wake: make(chan struct{}, 1), seen: w.epoch.Load()}
			w.workers = append(w.workers, wk)
			w.wg.Add(1)
			go w.work(wk)
		}
		defer func() {
			w.quit.Store(true)
			w.dispatch(0)
			w.wg.Wait()
		}()
	}
	for {
		if w.winEnd == 0 {
			// Open the next window where the earliest event is, so that
			// windows (and with them the order in which sent events
			// enter their queues) depend on the simulation only.
			start := w.nextEvent()
			if start == Never || w.stopped {
				w.setClocks(w.latest())
				return start == Never
			}
			if start > until {
				w.setClocks(until)
				return false
			}
			w.winEnd = SatAdd(start, w.lookahead)
		}
		// A window that until cuts is run in parts, over as many calls,
		// with the exchange only at its end.
		end := w.winEnd
		if until < end-1 {
			end = until + 1
		}
		w.runAll(end)
		if end < w.winEnd {
			w.setClocks(until)
			return false
		}
		w.exchange()
		if w.barrier != nil {
			w.barrierEnd = w.winEnd
			w.barrier.At(w, w.winEnd)
			w.barrierEnd = 0
		}
		w.winEnd = 0
	}
}

// setClocks sets every thread's clock to t.
func (w *World) setClocks(t Time) {
	for _, s := range w.sims {
		s.now = max(s.now, t)
	}
}

// nextEvent is the earliest pending event over all threads: the next
// window starts there, so that windows (and with them the order in which
// sent events enter their queues) depend on the simulation only.
func (w *World) nextEvent() Time {
	t := Never
	if w.barrier != nil {
		t = w.barrier.Next()
	}
	for _, s := range w.sims {
		t = min(t, s.q.Peek())
	}
	return t
}

// NextEventTime is the time of the earliest pending event over all
// threads, or Never (between Runs: while a Run is under way only the
// caller's own thread may be asked, through its Sim).
func (w *World) NextEventTime() Time { return w.nextEvent() }

// latest is the latest clock of the threads.
func (w *World) latest() Time {
	var t Time
	for _, s := range w.sims {
		t = max(t, s.now)
	}
	return t
}

// runAll runs every thread over its events before end.
func (w *World) runAll(end Time) {
	for _, s := range w.sims {
		s.windowEnd = w.winEnd
	}
	t0 := time.Now()
	w.dispatch(end)
	t1 := time.Now()
	w.sims[0].runWindow(end)
	t2 := time.Now()
	w.await()
	w.stats.Exchange += t1.Sub(t0)
	w.stats.Wait += time.Since(t2)
}

// exchange ends a window: every thread has finished it, so what was sent
// is delivered, each thread into its own queue (the first thread
// delivers its own share while the others deliver theirs).
func (w *World) exchange() {
	t0 := time.Now()
	w.dispatch(-1)
	w.deliver(w.sims[0])
	w.await()
	w.stats.Exchange += time.Since(t0)
	var most uint64
	for i, s := range w.sims {
		most = max(most, s.events-w.before[i])
		w.before[i] = s.events
		if s.stopReq {
			w.stopped = true
			s.stopReq = false
		}
	}
	w.stats.CriticalEvents += most
	w.stats.Windows++
}

// worker is a thread beyond the first, on a goroutine of its own.
type worker struct {
	s        *Sim
	wake     chan struct{} // a parked worker's wake-up
	sleeping atomic.Int32  // 1: parked, or about to park
	seen     uint64        // the last epoch taken
}

// spinChecks is how many times a waiting thread looks for its next task,
// or for the others to finish, before it parks (a worker) or yields
// between looks (the coordinator): about 20-50 us.
const spinChecks = 20000

// spinLimit is how long a World's threads spin (spinChecks), or 0 when
// there are more threads than the Go scheduler runs at once
// (GOMAXPROCS): then a spinning thread holds a processor that a thread
// with work needs until the scheduler preempts it, some 10 ms later, at
// every window (8 threads on 2 cores took minutes for what 2 do in a
// second), so threads park at once and the coordinator yields.
func spinLimit(threads int) int {
	if threads > runtime.GOMAXPROCS(0) {
		return 0
	}
	return spinChecks
}

// dispatch hands every worker the task t: a window's end, -1 to deliver.
func (w *World) dispatch(t Time) {
	w.task.Store(int64(t))
	w.pending.Store(int32(len(w.workers)))
	w.epoch.Add(1)
	for _, wk := range w.workers {
		if wk.sleeping.CompareAndSwap(1, 0) {
			wk.wake <- struct{}{}
		}
	}
}

// work runs one thread's tasks as the coordinator hands them out, until
// quit.
func (w *World) work(wk *worker) {
	defer w.wg.Done()
	for {
		w.next(wk)
		if w.quit.Load() {
			return
		}
		w.step(wk.s, Time(w.task.Load()))
		w.pending.Add(-1)
	}
}

// next waits for the next task's epoch: spinning, then parked.
func (w *World) next(wk *worker) {
	for range w.spin {
		if e := w.epoch.Load(); e != wk.seen {
			wk.seen = e
			return
		}
	}
	for {
		wk.sleeping.Store(1)
		if e := w.epoch.Load(); e != wk.seen && wk.sleeping.CompareAndSwap(1, 0) {
			wk.seen = e // the task came before the coordinator saw us park
			return
		}
		<-wk.wake // dispatch took the flag back and sends
		if e := w.epoch.Load(); e != wk.seen {
			wk.seen = e
			return
		}
		// A stale wake-up: dispatch found the flag this worker had set
		// while it took the epoch's task by the check above, finished it
		// and parked again, all before dispatch's loop reached it.
		// Running the task again would count it twice in pending (the
		// coordinator then waited forever, or went on while this worker
		// still ran), so it waits for the next epoch.
	}
}

// step is one task of a worker; a panic in it (a model error such as a
// send inside the lookahead) is handed to the coordinator, which raises
// it on the caller's goroutine once every thread has stopped.
func (w *World) step(s *Sim, end Time) {
	defer func() {
		if p := recover(); p != nil {
			w.panics[s.thread] = p
		}
	}()
	if end < 0 {
		w.deliver(s)
	} else {
		s.runWindow(end)
	}
}

// await waits for the workers to finish their task and raises the first
// thread's panic, if any.
func (w *World) await() {
	for i := 0; w.pending.Load() != 0; i++ {
		if i >= w.spin {
			runtime.Gosched() // the workers may need this core
		}
	}
	for _, p := range w.panics {
		if p != nil {
			panic(p)
		}
	}
}

// runWindow fires s's events before end. The clock stays at the last
// event fired: a World moves it to a Run's until only when the Run ends.
func (s *Sim) runWindow(end Time) { s.run(end-1, false) }

// deliver moves the events sent to s's units in the last window into its
// queue, in the order of (sending unit, order sent): every thread's
// outbox to s holds its units' sends in the order they were made, and
// the outboxes are taken in thread order, so sorting by (sending unit,
// position) gives the same order whichever threads the units ran on.
func (w *World) deliver(s *Sim) {
	in := s.in[:0]
	for _, from := range w.sims {
		in = append(in, from.out[s.thread]...)
		clear(from.out[s.thread])
		from.out[s.thread] = from.out[s.thread][:0]
	}
	// In order of (sending unit, position): a stable counting sort by
	// sending unit of the events' indices (the positions of one unit are
	// already in order), not a comparison sort of the 56-byte events, and
	// none when already in order (one sending unit).
	order := s.order[:0]
	sorted := true
	for i := 1; i < len(in) && sorted; i++ {
		sorted = in[i].src >= in[i-1].src
	}
	if !sorted {
		if len(s.srcCount) != len(w.unitOf)+1 {
			s.srcCount = make([]int32, len(w.unitOf)+1)
		}
		count := s.srcCount
		clear(count)
		for i := range in {
			count[in[i].src+1]++
		}
		for u := 1; u < len(count); u++ {
			count[u] += count[u-1]
		}
		order = slices.Grow(order, len(in))[:len(in)]
		for i := range in {
			u := in[i].src
			order[count[u]] = int32(i)
			count[u]++
		}
	}
	for k := range in {
		i := k
		if !sorted {
			i = int(order[k])
		}
		e := &in[i]
		if e.c != nil {
			e.c.Arrive(s)
		} else {
			s.q.Push(e.at, e.h, e.kind)
		}
	}
	s.order = order[:0]
	s.delivered += uint64(len(in))
	clear(in)
	s.in = in[:0]
}
