package cctest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// Packet is what the toy path knew about the data packet an ACK answers.
type Packet struct {
	SentAt engine.Time // when it left the sender
	Seq    int64       // its first byte
	Bytes  int64       // its payload
	Rate   engine.Rate // the sender's rate when it left
}

// Signal fills in the congestion fields (ECE, RTT, INT, NACK) of one ACK
// of the toy closed loop. Now, AckSeq and SndNxt are already set; RTT is
// preset to Now - pkt.SentAt when the Spec asks for timestamps; INT is an
// empty slice with room for fabric.MaxINTHops records, so a Signal can
// append hops without allocating. A Signal may keep state of its own.
type Signal func(fb *cc.Feedback, pkt Packet)

// Option adjusts Run.
type Option func(*config)

type config struct {
	congest, relieve func() Signal
	congestFor       engine.Time
	recoverWithin    engine.Time
	recoverTo        float64
	seed             uint64
	sequences        int
	steps            int
}

// Congest gives the signal of a congested path (e.g. ECE on every ACK, a
// rising RTT, INT showing a full bottleneck). Without it the congestion
// and recovery checks are skipped. newSignal is called once per closed
// loop, so each loop starts from a fresh Signal.
func Congest(newSignal func() Signal) Option { return func(c *config) { c.congest = newSignal } }

// Relieve gives the signal of an uncongested path; without it ACKs carry
// no congestion information beyond the RTT preset.
func Relieve(newSignal func() Signal) Option { return func(c *config) { c.relieve = newSignal } }

// CongestFor sets how long the congestion signal lasts (default 2 ms).
func CongestFor(d engine.Time) Option { return func(c *config) { c.congestFor = d } }

// RecoverWithin states the recovery promise: once the congestion signal
// stops, the rate is at least fraction*LineRate after d (default 20 ms,
// 0.9).
func RecoverWithin(d engine.Time, fraction float64) Option {
	return func(c *config) { c.recoverWithin, c.recoverTo = d, fraction }
}

// Seed changes the seed of the random feedback sequences (default 1).
func Seed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// Sequences sets how many random sequences of how many steps the bounds
// check replays (default 200 of 400).
func Sequences(n, steps int) Option { return func(c *config) { c.sequences, c.steps = n, steps } }

// Run is the conformance suite every cc.Algorithm must pass. env is the QP's
// environment for every check; its LineRate must be positive.
//
// Checks, each a subtest:
//
//   - Start: a new QP sends at LineRate with Window() >= 0.
//   - Bounds: under random feedback sequences (ACKs and NACKs with random
//     sequence numbers, ECE, RTT and INT, standalone CNPs, timers fired on
//     time, late and spuriously) Rate() stays in [MinRate, LineRate],
//     Window() >= 0, NextTimer() is later than now after every OnTimer(now),
//     and nothing panics.
//   - Deterministic: the same sequence gives the same outputs twice.
//   - INT: OnAck neither modifies Feedback.INT nor keeps it: scribbling
//     over the slice after each call changes nothing.
//   - NoAllocs: OnAck and OnTimer allocate nothing.
//   - Congestion (with Congest): in a toy closed loop, sustained congestion
//     lowers the rate below LineRate or shrinks the window.
//   - Recovery (with Congest): after the signal stops (Relieve from then
//     on), the rate is back above the stated fraction of LineRate within
//     the stated time.
func Run(t *testing.T, spec cc.Spec, env cc.Env, opts ...Option) {
	t.Helper()
	cfg := config{
		congestFor:    2 * engine.Millisecond,
		recoverWithin: 20 * engine.Millisecond,
		recoverTo:     0.9,
		seed:          1,
		sequences:     200,
		steps:         400,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if env.LineRate <= 0 {
		t.Fatalf("cctest: env.LineRate must be positive, got %v", env.LineRate)
	}
	if spec.New == nil {
		t.Fatalf("cctest: spec %q has no New", spec.Name)
	}
	check := func(name string, f func() error) {
		t.Run(name, func(t *testing.T) {
			if err := f(); err != nil {
				t.Error(err)
			}
		})
	}
	check("Start", func() error { return CheckStart(spec, env) })
	check("Bounds", func() error { return CheckBounds(spec, env, cfg.seed, cfg.sequences, cfg.steps) })
	check("Deterministic", func() error { return CheckDeterministic(spec, env, cfg.seed, cfg.steps) })
	check("INT", func() error { return CheckINT(spec, env, cfg.seed, cfg.steps) })
	check("NoAllocs", func() error { return CheckNoAllocs(spec, env, cfg.seed) })
	if cfg.congest == nil {
		return
	}
	t.Run("CongestionAndRecovery", func(t *testing.T) {
		a, err := CheckCongestion(spec, env, cfg.congest, cfg.relieve, cfg.congestFor, cfg.recoverWithin, cfg.recoverTo)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("congested %v: rate %v (lowest %v), window %d of %d; back to %.0f%% of line rate after %v, %v at the end",
			cfg.congestFor, a.CongestedRate, a.MinRate, a.CongestedWindow, a.StartWindow, 100*cfg.recoverTo, a.RecoveredAt, a.RecoveredRate)
		// The closed loop is deterministic too.
		b, err := CheckCongestion(spec, env, cfg.congest, cfg.relieve, cfg.congestFor, cfg.recoverWithin, cfg.recoverTo)
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("second closed-loop run: got %+v, want %+v", b, a)
		}
	})
}

// CheckStart checks a new QP: Rate() == LineRate, Window() >= 0.
func CheckStart(spec cc.Spec, env cc.Env) error {
	a := spec.New(env)
	if got := a.Rate(); got != env.LineRate {
		return fmt.Errorf("%s: initial Rate() = %v, want LineRate %v", spec.Name, got, env.LineRate)
	}
	if w := a.Window(); w < 0 {
		return fmt.Errorf("%s: initial Window() = %d, want >= 0", spec.Name, w)
	}
	return nil
}

// opKind is one step of a random sequence.
type opKind uint8

const (
	opAck opKind = iota
	opCNP
	opTimer // a spurious or late OnTimer(at)
)

type op struct {
	kind  opKind
	drive bool // fire due timers (OnTimer at NextTimer) before the step
	fb    cc.Feedback
	hops  []fabric.INTHop // the INT records; fb.INT is set at replay
}

// randomOps builds a random but plausible-enough feedback sequence: time
// never goes back, sequence numbers mostly advance, INT hop records mostly
// advance per hop index, and every field sometimes takes an edge value.
func randomOps(rng *rand.Rand, env cc.Env, n int) []op {
	mtu := max(env.MTU, 1)
	var (
		now       = engine.Time(rng.Int64N(int64(engine.Millisecond)))
		una, nxt  int64
		hopState  [fabric.MaxINTHops + 1]fabric.INTHop
		lineRates = []engine.Rate{25 * engine.Gbps, 100 * engine.Gbps, 400 * engine.Gbps, env.LineRate}
	)
	for i := range hopState {
		hopState[i].LineRate = lineRates[rng.IntN(len(lineRates))]
		hopState[i].Time = now - engine.Time(rng.Int64N(int64(10*engine.Microsecond)))
	}
	ops := make([]op, n)
	for i := range ops {
		switch r := rng.IntN(100); {
		case r < 40:
		case r < 80:
			now += engine.Time(rng.Int64N(int64(5 * engine.Microsecond)))
		case r < 95:
			now += engine.Time(rng.Int64N(int64(500 * engine.Microsecond)))
		default:
			now += engine.Time(rng.Int64N(int64(20 * engine.Millisecond)))
		}
		o := &ops[i]
		o.drive = rng.IntN(4) != 0
		o.fb.Now = now
		switch r := rng.IntN(100); {
		case r < 8:
			o.kind = opCNP
			continue
		case r < 15:
			o.kind = opTimer
			continue
		}
		o.kind = opAck
		nxt += int64(rng.IntN(12)) * mtu
		if rng.IntN(50) == 0 {
			nxt += rng.Int64N(100 * mtu) // odd sizes
		}
		if nxt > una {
			una += rng.Int64N(nxt - una + 1)
		}
		o.fb.AckSeq, o.fb.SndNxt = una, nxt
		switch rng.IntN(20) {
		case 0:
			o.fb.AckSeq = rng.Int64N(una + 1) // stale
		case 1:
			o.fb.AckSeq = 0
		}
		o.fb.NACK = rng.IntN(20) == 0
		o.fb.ECE = rng.IntN(3) == 0
		switch r := rng.IntN(10); {
		case r == 0:
			o.fb.RTT = 0
		case r < 6:
			o.fb.RTT = env.BaseRTT + engine.Time(rng.Int64N(int64(60*engine.Microsecond)))
		default:
			o.fb.RTT = engine.Time(rng.Int64N(int64(2 * engine.Millisecond)))
		}
		nh := rng.IntN(fabric.MaxINTHops + 1)
		if rng.IntN(50) == 0 {
			nh = fabric.MaxINTHops + 1 // longer than any real stack
		}
		for h := 0; h < nh; h++ {
			s := &hopState[h]
			switch r := rng.IntN(20); {
			case r == 0: // same record time (duplicate)
			case r == 1: // goes back (path change)
				s.Time -= engine.Time(rng.Int64N(int64(engine.Microsecond)))
				s.TxBytes -= rng.Int64N(10000)
			default:
				dt := engine.Time(rng.Int64N(int64(20 * engine.Microsecond)))
				s.Time += dt
				s.TxBytes += int64(float64(s.LineRate.BytesIn(dt)) * rng.Float64() * 1.2)
			}
			switch r := rng.IntN(4); {
			case r == 0:
				s.QLen = 0
			case r == 1:
				s.QLen = rng.Int64N(10 * mtu)
			default:
				s.QLen = rng.Int64N(4 << 20)
			}
			if rng.IntN(100) == 0 {
				s.LineRate = lineRates[rng.IntN(len(lineRates))]
			}
			o.hops = append(o.hops, *s)
		}
	}
	return ops
}

// sample is what the QP shows after one step.
type sample struct {
	rate   engine.Rate
	window int64
	next   engine.Time
	timers int // OnTimer calls made while driving
}

// intMode says how replay passes INT slices.
type intMode int

const (
	intFresh    intMode = iota // a new copy per call, checked unmodified afterwards
	intScribble                // one shared buffer, overwritten after each call
)

// maxTimersPerStep bounds the OnTimer calls one step may trigger; more
// means the algorithm keeps asking for the same instant.
const maxTimersPerStep = 1_000_000

// replay runs ops on a, checking the invariants after every call, and
// returns the samples.
func replay(name string, a cc.Algorithm, env cc.Env, ops []op, mode intMode) ([]sample, error) {
	out := make([]sample, 0, len(ops))
	check := func(i int, what string, now engine.Time) error {
		if r := a.Rate(); r < env.MinRate || r > env.LineRate {
			return fmt.Errorf("%s: step %d (%s at %v): Rate() = %v, want within [%v, %v]", name, i, what, now, r, env.MinRate, env.LineRate)
		}
		if w := a.Window(); w < 0 {
			return fmt.Errorf("%s: step %d (%s at %v): Window() = %d, want >= 0", name, i, what, now, w)
		}
		return nil
	}
	timer := func(i int, now engine.Time) error {
		a.OnTimer(now)
		if next := a.NextTimer(); next <= now {
			return fmt.Errorf("%s: step %d: after OnTimer(%v), NextTimer() = %v, want later than now", name, i, now, next)
		}
		return check(i, "OnTimer", now)
	}
	shared := make([]fabric.INTHop, 0, fabric.MaxINTHops+1)
	var fresh []fabric.INTHop
	for i := range ops {
		o := &ops[i]
		now := o.fb.Now
		timers := 0
		if o.drive {
			for next := a.NextTimer(); next <= now; next = a.NextTimer() {
				if timers++; timers > maxTimersPerStep {
					return out, fmt.Errorf("%s: step %d: more than %d timers due by %v", name, i, maxTimersPerStep, now)
				}
				if err := timer(i, next); err != nil {
					return out, err
				}
			}
		}
		switch o.kind {
		case opCNP:
			a.OnCNP(now)
			if err := check(i, "OnCNP", now); err != nil {
				return out, err
			}
		case opTimer:
			if err := timer(i, now); err != nil {
				return out, err
			}
		case opAck:
			fb := o.fb
			switch mode {
			case intFresh:
				fresh = slices.Clone(o.hops) // never reused, so a kept slice keeps its values
				fb.INT = fresh
			case intScribble:
				shared = append(shared[:0], o.hops...)
				fb.INT = shared
			}
			if len(o.hops) == 0 {
				fb.INT = nil
			}
			a.OnAck(&fb)
			if mode == intFresh && !slices.Equal(fresh, o.hops) {
				return out, fmt.Errorf("%s: step %d: OnAck modified Feedback.INT: got %v, want %v", name, i, fresh, o.hops)
			}
			if mode == intScribble {
				for h := range shared[:cap(shared)] {
					shared[:cap(shared)][h] = fabric.INTHop{LineRate: 1, Time: -1, TxBytes: -1 << 40, QLen: 1 << 40}
				}
			}
			if err := check(i, "OnAck", now); err != nil {
				return out, err
			}
		}
		out = append(out, sample{a.Rate(), a.Window(), a.NextTimer(), timers})
	}
	return out, nil
}

// CheckBounds replays n random sequences of the given length, each on a
// new QP, and checks the invariants after every call.
func CheckBounds(spec cc.Spec, env cc.Env, seed uint64, n, steps int) error {
	for s := range n {
		rng := engine.NewStream(seed, fmt.Sprintf("cctest/bounds/%d", s))
		ops := randomOps(rng, env, steps)
		if _, err := replay(spec.Name, spec.New(env), env, ops, intFresh); err != nil {
			return fmt.Errorf("sequence %d (seed %d): %w", s, seed, err)
		}
	}
	return nil
}

// CheckDeterministic replays one random sequence on two new QPs and
// compares every output.
func CheckDeterministic(spec cc.Spec, env cc.Env, seed uint64, steps int) error {
	return replayTwice(spec, env, engine.NewStream(seed, "cctest/deterministic"), steps, intFresh, "second run")
}

// CheckINT replays one random sequence twice: once with private INT
// slices, once with a shared buffer scribbled over after every OnAck. Any
// difference means the algorithm kept the slice.
func CheckINT(spec cc.Spec, env cc.Env, seed uint64, steps int) error {
	return replayTwice(spec, env, engine.NewStream(seed, "cctest/int"), steps, intScribble, "run with a scribbled INT buffer")
}

// replayTwice replays one random sequence from r on two new QPs, the
// second handed its INT as second says, and reports the first difference
// in the outputs, naming the second run what.
func replayTwice(spec cc.Spec, env cc.Env, r *rand.Rand, steps int, second intMode, what string) error {
	ops := randomOps(r, env, steps)
	a, err := replay(spec.Name, spec.New(env), env, ops, intFresh)
	if err != nil {
		return err
	}
	b, err := replay(spec.Name, spec.New(env), env, ops, second)
	if err != nil {
		return err
	}
	return firstDiff(spec.Name, what, a, b)
}

func firstDiff(name, what string, want, got []sample) error {
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Errorf("%s: %s differs at step %d: got %+v, want %+v", name, what, i, got[i], want[i])
		}
	}
	if len(want) != len(got) {
		return fmt.Errorf("%s: %s: got %d steps, want %d", name, what, len(got), len(want))
	}
	return nil
}

// CheckNoAllocs measures OnAck and OnTimer over a random sequence replayed
// cyclically (times and sequence numbers shifted each lap).
func CheckNoAllocs(spec cc.Spec, env cc.Env, seed uint64) error {
	ops := randomOps(engine.NewStream(seed, "cctest/allocs"), env, 512)
	a := spec.New(env)
	lapTime := ops[len(ops)-1].fb.Now + engine.Millisecond
	var lapSeq int64
	for _, o := range ops {
		lapSeq = max(lapSeq, o.fb.SndNxt+1)
	}
	buf := make([]fabric.INTHop, 0, fabric.MaxINTHops+1)
	fb := new(cc.Feedback) // one for all calls: the harness must not allocate either
	i := 0
	step := func() {
		o := &ops[i%len(ops)]
		lap := int64(i / len(ops))
		i++
		*fb = o.fb
		fb.Now += engine.Time(lap) * lapTime
		fb.AckSeq += lap * lapSeq
		fb.SndNxt += lap * lapSeq
		buf = append(buf[:0], o.hops...)
		for h := range buf {
			buf[h].Time += engine.Time(lap) * lapTime
		}
		fb.INT = buf
		for n, next := 0, a.NextTimer(); next <= fb.Now && n < maxTimersPerStep; n, next = n+1, a.NextTimer() {
			a.OnTimer(next)
		}
		switch o.kind {
		case opAck:
			a.OnAck(fb)
		case opCNP:
			a.OnCNP(fb.Now)
		case opTimer:
			a.OnTimer(fb.Now)
		}
	}
	lap := func() {
		for range len(ops) {
			step()
		}
	}
	lap() // warm up: first-RTT paths
	// Whole laps per run: AllocsPerRun truncates the average, which would
	// hide an allocation made on fewer than all calls.
	if n := testing.AllocsPerRun(3, lap); n != 0 {
		return fmt.Errorf("%s: %v allocations per %d calls, want 0", spec.Name, n, len(ops))
	}
	return nil
}

// LoopResult summarises one closed-loop run.
type LoopResult struct {
	StartRate, CongestedRate, RecoveredRate engine.Rate
	StartWindow, CongestedWindow            int64
	MinRate                                 engine.Rate // lowest rate seen while congested
	Acks                                    int
	RecoveredAt                             engine.Time // first time the rate reached the target after relief; Never if not
}

// CheckCongestion runs the toy closed loop: congested for congestFor,
// then relieved for recoverWithin. The congested rate must be below
// LineRate or the window below its start; the final rate must be at least
// recoverTo*LineRate.
func CheckCongestion(spec cc.Spec, env cc.Env, congest, relieve func() Signal, congestFor, recoverWithin engine.Time, recoverTo float64) (LoopResult, error) {
	var res LoopResult
	a := spec.New(env)
	l := NewLoop(spec, env, a)
	res.StartRate, res.StartWindow = a.Rate(), a.Window()
	res.MinRate = a.Rate()
	err := l.Run(congestFor, congest(), func(now engine.Time) { res.MinRate = min(res.MinRate, a.Rate()) })
	if err != nil {
		return res, err
	}
	res.CongestedRate, res.CongestedWindow = a.Rate(), a.Window()
	lowerRate := res.CongestedRate < env.LineRate
	smallerWin := res.StartWindow > 0 && res.CongestedWindow < res.StartWindow
	if !lowerRate && !smallerWin {
		return res, fmt.Errorf("%s: after %v of congestion signals, Rate() = %v and Window() = %d; want rate below %v or window below %d",
			spec.Name, congestFor, res.CongestedRate, res.CongestedWindow, env.LineRate, res.StartWindow)
	}
	var sig Signal
	if relieve != nil {
		sig = relieve()
	}
	target := engine.Rate(recoverTo * float64(env.LineRate))
	start := l.Now()
	res.RecoveredAt = engine.Never
	err = l.Run(recoverWithin, sig, func(now engine.Time) {
		if res.RecoveredAt == engine.Never && a.Rate() >= target {
			res.RecoveredAt = now - start
		}
	})
	if err != nil {
		return res, err
	}
	res.RecoveredRate = a.Rate()
	res.Acks = l.Acks()
	if res.RecoveredRate < target {
		return res, fmt.Errorf("%s: %v after congestion stopped, Rate() = %v, want >= %v (%.2f of line rate; congested rate was %v)",
			spec.Name, recoverWithin, res.RecoveredRate, target, recoverTo, res.CongestedRate)
	}
	return res, nil
}
