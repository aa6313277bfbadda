package mpitrace

import (
	"fmt"
	"strconv"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
)

// Config places a Program on a cluster: rank r on host Hosts[r], from
// Start; Name is the Generator field of its messages ("mpitrace").
type Config struct {
	Program *Program
	Hosts   []int
	Start   engine.Time
	Name    string
}

// Exec runs a Program on an rnic.Cluster: every rank is a state machine
// woken by its own timer (a gap, a start time, the iteration's end) and
// by its messages' completions.
type Exec struct {
	cfg    Config
	c      *rnic.Cluster
	rankOf map[int]int
	ranks  []rankState
	np     int // phases per iteration
	// Finish[r] is when rank r finished its last iteration, -1 before.
	Finish []engine.Time
	// IterEnd[i] is when the last rank ended iteration i.
	IterEnd []engine.Time
	// Messages and Bytes count what was posted; Done the messages done.
	Messages, Bytes, Done int64
	// Log has one record per message posted, in posting order.
	Log  []Record
	left int // ranks not finished
}

type rankState struct {
	it, ph    int
	itStart   engine.Time
	posted    bool // the current phase's sends are posted
	sendsLeft int
	recvd     []int32 // per iteration*np + phase: messages received
	wake      wake
}

// wake kinds.
const (
	wakePost uint8 = iota
	wakeIteration
)

type wake struct {
	x *Exec
	r int
}

func (w *wake) Fire(now engine.Time, kind uint8) {
	if kind == wakeIteration {
		w.x.beginIteration(now, w.r)
		return
	}
	w.x.post(now, w.r)
}

// Record is one message of the run: ranks, iteration and phase, size,
// when it was posted and when it completed (-1 before).
type Record struct {
	Src, Dst, Iteration, Phase int
	Bytes                      int64
	Posted, Finished           engine.Time
}

// tag is a message's User: its ranks, its phase (iteration*np + phase)
// and its index in Log.
type tag struct{ src, dst, g, log int }

// New checks the program against the cluster.
func New(c *rnic.Cluster, cfg Config) (*Exec, error) {
	p := cfg.Program
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(cfg.Hosts) != p.Ranks() {
		return nil, fmt.Errorf("%s: %d ranks on %d hosts", p.Name, p.Ranks(), len(cfg.Hosts))
	}
	x := &Exec{cfg: cfg, c: c, rankOf: map[int]int{}, ranks: make([]rankState, p.Ranks()), np: len(p.Phases[0]),
		Finish: make([]engine.Time, p.Ranks()), IterEnd: make([]engine.Time, p.Iterations), left: p.Ranks()}
	if x.cfg.Name == "" {
		x.cfg.Name = "mpitrace"
	}
	for r, h := range cfg.Hosts {
		if h < 0 || h >= len(c.Hosts) {
			return nil, fmt.Errorf("host %d: the network has %d hosts", h, len(c.Hosts))
		}
		if _, dup := x.rankOf[h]; dup {
			return nil, fmt.Errorf("host %d: ranks need distinct hosts", h)
		}
		x.rankOf[h] = r
		x.ranks[r].recvd = make([]int32, p.Iterations*x.np)
		x.ranks[r].wake = wake{x, r}
		x.Finish[r] = -1
	}
	for i := range x.IterEnd {
		x.IterEnd[i] = -1
	}
	return x, nil
}

// Start schedules every rank's first iteration at cfg.Start.
func (x *Exec) Start() {
	for r := range x.ranks {
		x.c.Sim.At(x.cfg.Start, &x.ranks[r].wake, wakeIteration)
	}
}

// Finished reports whether every rank finished its last iteration.
func (x *Exec) Finished() bool { return x.left == 0 }

// ExecTime is from Start to the last rank's finish, -1 until then.
func (x *Exec) ExecTime() engine.Time {
	if x.left > 0 {
		return -1
	}
	var last engine.Time
	for _, f := range x.Finish {
		last = max(last, f)
	}
	return last - x.cfg.Start
}

func (x *Exec) beginIteration(now engine.Time, r int) {
	rs := &x.ranks[r]
	rs.itStart, rs.ph = now, 0
	x.enter(now, r)
}

// enter schedules the current phase's posting: Gap after now, not before
// At from the iteration's start.
func (x *Exec) enter(now engine.Time, r int) {
	rs := &x.ranks[r]
	ph := &x.cfg.Program.Phases[r][rs.ph]
	rs.posted = false
	x.c.Sim.At(max(now+ph.Gap, rs.itStart+ph.At), &rs.wake, wakePost)
}

func (x *Exec) post(now engine.Time, r int) {
	rs := &x.ranks[r]
	ph := &x.cfg.Program.Phases[r][rs.ph]
	rs.posted, rs.sendsLeft = true, len(ph.Sends)
	g := rs.it*x.np + rs.ph
	src := x.cfg.Hosts[r]
	for _, s := range ph.Sends {
		m := x.c.NewMessage(src, x.cfg.Hosts[s.To], s.Bytes)
		m.Generator, m.Tag = x.cfg.Name, x.cfg.Program.Name+"/i"+strconv.Itoa(rs.it)+"/p"+strconv.Itoa(rs.ph)
		m.User = tag{r, s.To, g, len(x.Log)}
		x.Log = append(x.Log, Record{Src: r, Dst: s.To, Iteration: rs.it, Phase: rs.ph, Bytes: s.Bytes, Posted: now, Finished: -1})
		m.Ext = &rnic.Ext{OnDone: x.done}
		x.Messages++
		x.Bytes += s.Bytes
		x.c.Post(m)
	}
	x.check(now, r)
}

// done is a message's completion: its sender has one send fewer to wait
// for, its receiver one more message of that phase.
func (x *Exec) done(m *rnic.Message) {
	t := m.User.(tag)
	x.Done++
	x.ranks[t.src].sendsLeft--
	x.ranks[t.dst].recvd[t.g]++
	now := x.c.Sim.Now()
	x.Log[t.log].Finished = now
	x.check(now, t.src)
	x.check(now, t.dst)
}

// check completes rank r's current phase if its sends are acknowledged
// and its messages arrived.
func (x *Exec) check(now engine.Time, r int) {
	rs := &x.ranks[r]
	if !rs.posted || rs.it >= x.cfg.Program.Iterations {
		return
	}
	ph := &x.cfg.Program.Phases[r][rs.ph]
	if rs.sendsLeft > 0 || int(rs.recvd[rs.it*x.np+rs.ph]) < ph.Recvs {
		return
	}
	rs.posted = false
	if rs.ph++; rs.ph < x.np {
		x.enter(now, r)
		return
	}
	p := x.cfg.Program
	end := max(now+p.Tail, rs.itStart+p.Span)
	x.IterEnd[rs.it] = max(x.IterEnd[rs.it], end)
	if rs.it++; rs.it == p.Iterations {
		x.Finish[r] = end
		x.left--
		return
	}
	x.c.Sim.At(end, &rs.wake, wakeIteration)
}

// Check reports a broken invariant: a rank that received more messages
// of a phase than the program sends it, or, once finished, messages not
// all done.
func (x *Exec) Check() error {
	p := x.cfg.Program
	for r := range x.ranks {
		for g, n := range x.ranks[r].recvd {
			if want := p.Phases[r][g%x.np].Recvs; int(n) > want {
				return fmt.Errorf("mpitrace: rank %d got %d messages in iteration %d phase %d, the program sends it %d", r, n, g/x.np, g%x.np, want)
			}
		}
	}
	if x.Finished() {
		if want := int64(p.Iterations) * p.Bytes(); x.Bytes != want || x.Done != x.Messages {
			return fmt.Errorf("mpitrace: finished with %d of %d messages done, %d B posted, want %d", x.Done, x.Messages, x.Bytes, want)
		}
	}
	return nil
}
