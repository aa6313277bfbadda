package dcqcn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/cc/cctest"
	"github.com/dcsim/dcsim/engine"
)

var env100 = cc.Env{LineRate: 100 * engine.Gbps, MinRate: engine.Gbps,
	BaseRTT: 8 * engine.Microsecond, BDP: 100_000, MTU: 1000}

const us = engine.Microsecond

func eceEveryAck() cctest.Signal { return func(fb *cc.Feedback, _ cctest.Packet) { fb.ECE = true } }

func TestConformance(t *testing.T) {
	for _, name := range []string{"dcqcn", "dcqcn_paper", "dcqcn_vwin"} {
		t.Run(name, func(t *testing.T) {
			p, err := Preset(name, env100.LineRate)
			if err != nil {
				t.Fatal(err)
			}
			// Recovery from the floor: fast recovery, one AI step, then
			// hyper increases halve the gap to line rate every RP_TIMER
			// (300 us): above 90% after about 5 firings, 1.5 ms.
			cctest.Run(t, Spec(p), env100, cctest.Congest(eceEveryAck),
				cctest.RecoverWithin(5*engine.Millisecond, 0.9))
		})
	}
}

// TestReferenceCheck is docs/model.md §5.2's deterministic check: one CNP at
// t0 and none after, at 100 Gbps with the default parameters.
func TestReferenceCheck(t *testing.T) {
	q := New(DefaultParams(env100.LineRate), env100)
	t0 := 7*us + 123*engine.Picosecond
	q.OnAck(&cc.Feedback{Now: t0, AckSeq: 1000, SndNxt: 10_000, ECE: true})
	if got := q.Rate(); got != env100.LineRate {
		t.Fatalf("rate right after the first CNP = %v, want %v (RateOnFirstCnp 1)", got, env100.LineRate)
	}
	// Alpha after four alpha-timer firings, just before the decrease.
	q.OnTimer(t0 + 4*us)
	if got, want := q.Alpha(), 0.984466; math.Abs(got-want) > 5e-7 {
		t.Errorf("alpha at t0+4us = %.7f, want %.6f", got, want)
	}
	if got, want := q.Alpha(), math.Pow(255.0/256, 4); got != want {
		t.Errorf("alpha at t0+4us = %v, want (255/256)^4 = %v exactly", got, want)
	}
	if got := q.Rate(); got != env100.LineRate {
		t.Errorf("rate at t0+4us = %v, want unchanged %v", got, env100.LineRate)
	}
	// The decrease is the only visible timer, due at t0 + 4 us + 1 ns.
	if got, want := q.NextTimer(), t0+4*us+engine.Nanosecond; got != want {
		t.Fatalf("NextTimer() = %v, want %v", got, want)
	}
	q.OnTimer(t0 + 4*us + engine.Nanosecond)
	steps := []struct {
		at         engine.Time
		rate, tgt  float64 // Gbps, at the printed precision
		resolution float64
	}{
		{t0 + 4*us + engine.Nanosecond, 50.7767, 100, 5e-5},
		{t0 + 304*us + engine.Nanosecond, 75.3883, 100, 5e-5},
		{t0 + 604*us + engine.Nanosecond, 87.6942, 100, 5e-5},
		{t0 + 904*us + engine.Nanosecond, 93.8471, 100, 5e-5},
	}
	for i, s := range steps {
		if i > 0 {
			if got := q.NextTimer(); got != s.at {
				t.Fatalf("step %d: NextTimer() = %v, want %v", i, got, s.at)
			}
			q.OnTimer(s.at)
		}
		gbps := float64(q.Rate()) / 1e9
		if math.Abs(gbps-s.rate) > s.resolution {
			t.Errorf("step %d at %v: R = %.4f Gbps, want %.4f", i, s.at, gbps, s.rate)
		}
		if got := float64(q.TargetRate()) / 1e9; got != s.tgt {
			t.Errorf("step %d at %v: R_T = %v Gbps, want %v", i, s.at, got, s.tgt)
		}
	}
	// From here on only hyper increases: R halves its gap to 100 Gbps each
	// firing until it reaches the fixed point, then the QP goes quiet.
	for i := 0; q.NextTimer() != engine.Never; i++ {
		if i > 100 {
			t.Fatalf("still asking for timers after %d firings, R = %v", i, q.Rate())
		}
		q.OnTimer(q.NextTimer())
	}
	// The reference truncates each half to whole bit/s, so R can settle
	// one bit/s below R_max (here from an odd R: 49999999999 + 5e10).
	if got := q.Rate(); got < env100.LineRate-1 {
		t.Errorf("rate after recovery = %v, want within 1 bps of %v", got, env100.LineRate)
	}
}

// TestClampAndStages follows a QP through two decreases with and without
// CLAMP_TARGET_RATE, and through F = 3 fast-recovery steps.
func TestClampAndStages(t *testing.T) {
	for _, clamp := range []bool{false, true} {
		t.Run(fmt.Sprint("clamp=", clamp), func(t *testing.T) {
			p := DefaultParams(env100.LineRate)
			p.ClampTargetRate = clamp
			p.FastRecoveryTimes = 3
			q := New(p, env100)
			q.OnCNP(0)
			q.OnTimer(4*us + engine.Nanosecond) // first decrease, stage 0
			r1 := q.Rate()
			wantT := env100.LineRate
			if clamp {
				wantT = env100.LineRate // R before the cut was line rate
			}
			if got := q.TargetRate(); got != wantT {
				t.Errorf("R_T after first decrease = %v, want %v", got, wantT)
			}
			// Two fast-recovery steps: R_T unchanged, R halves the gap.
			q.OnTimer(304*us + engine.Nanosecond)
			q.OnTimer(604*us + engine.Nanosecond)
			r := r1/2 + wantT/2
			r = r/2 + wantT/2
			if got := q.Rate(); got != r {
				t.Errorf("R after two fast recoveries = %v, want %v", got, r)
			}
			// A CNP now: at the next decrease, stage is 2 > 0 so R_T = R
			// with or without the clamp.
			q.OnCNP(700 * us)
			before := q.Rate()
			q.OnTimer(q.NextTimer())
			if got := q.TargetRate(); got != before {
				t.Errorf("R_T after a decrease at stage 2 = %v, want R before the cut %v", got, before)
			}
			if q.stage != 0 {
				t.Errorf("stage after a decrease = %d, want 0", q.stage)
			}
		})
	}
	t.Run("stage0-no-clamp", func(t *testing.T) {
		// Two CNPs close together: the second decrease happens at stage 0,
		// so without the clamp R_T stays at line rate.
		q := New(DefaultParams(env100.LineRate), env100)
		q.OnCNP(0)
		q.OnCNP(6 * us)
		q.OnTimer(8*us + engine.Nanosecond)
		if got := q.TargetRate(); got != env100.LineRate {
			t.Errorf("R_T = %v, want %v", got, env100.LineRate)
		}
		if got := q.Rate(); got >= 50*engine.Gbps {
			t.Errorf("R after two cuts = %v, want below 50 Gbps", got)
		}
	})
}

func TestRateOnFirstCNPAndFloor(t *testing.T) {
	p := DefaultParams(env100.LineRate)
	p.RateOnFirstCNP = 0.25
	p.MinRate = 30 * engine.Gbps
	q := New(p, env100)
	q.OnCNP(0)
	if got, want := q.Rate(), 30*engine.Gbps; got != want { // 25 Gbps, floored
		t.Errorf("R after the first CNP = %v, want %v", got, want)
	}
	q.OnTimer(4*us + engine.Nanosecond)
	if got, want := q.Rate(), 30*engine.Gbps; got != want {
		t.Errorf("R after a decrease at the floor = %v, want %v", got, want)
	}
}

func TestWindow(t *testing.T) {
	p, _ := Preset("dcqcn_vwin", env100.LineRate)
	q := New(p, env100)
	if got, want := q.Window(), env100.BDP; got != want {
		t.Errorf("Window() at line rate = %d, want %d", got, want)
	}
	q.OnCNP(0)
	q.OnTimer(4*us + engine.Nanosecond)
	want := env100.BDP * int64(q.Rate()/engine.Mbps) / int64(env100.LineRate/engine.Mbps)
	if got := q.Window(); got != want {
		t.Errorf("Window() at %v = %d, want %d", q.Rate(), got, want)
	}
	if got := New(DefaultParams(env100.LineRate), env100).Window(); got != 0 {
		t.Errorf("Window() without has_win = %d, want 0", got)
	}
}

// eager is a direct transcription of the reference model's DCQCN with its
// three timers as events, ordered by (time, scheduling order) like the
// ns-3 scheduler. The production QP must match it exactly.
type eager struct {
	p                   Params
	env                 cc.Env
	floor               engine.Rate
	rate, target        engine.Rate
	alpha               float64
	stage               int64
	cnpAlpha, cnpDec    bool
	first               bool
	events              []eagerEvent
	seq                 int
	incSeq              int // the live increase event; others are cancelled
	firings             int
	lastFiring, lastCNP engine.Time
}

type eagerEvent struct {
	at   engine.Time
	seq  int
	kind timer
}

func newEager(p Params, env cc.Env) *eager {
	return &eager{p: p, env: env, floor: cc.RateFloor(env, p.MinRate),
		rate: env.LineRate, target: env.LineRate, alpha: 1, first: true, incSeq: -1}
}

func (e *eager) schedule(at engine.Time, k timer) int {
	e.seq++
	e.events = append(e.events, eagerEvent{at, e.seq, k})
	return e.seq
}

func (e *eager) peek() (int, bool) {
	best := -1
	for i, ev := range e.events {
		if best < 0 || ev.at < e.events[best].at || ev.at == e.events[best].at && ev.seq < e.events[best].seq {
			best = i
		}
	}
	return best, best >= 0
}

func (e *eager) nextAt() engine.Time {
	if i, ok := e.peek(); ok {
		return e.events[i].at
	}
	return engine.Never
}

func (e *eager) run(until engine.Time) {
	for {
		i, ok := e.peek()
		if !ok || e.events[i].at > until {
			return
		}
		ev := e.events[i]
		e.events = append(e.events[:i], e.events[i+1:]...)
		if ev.kind == increaseTimer && ev.seq != e.incSeq {
			continue // cancelled
		}
		e.firings++
		e.lastFiring = ev.at
		switch ev.kind {
		case alphaTimer:
			if e.cnpAlpha {
				e.alpha = (1-e.p.EWMAGain)*e.alpha + e.p.EWMAGain
			} else {
				e.alpha = (1 - e.p.EWMAGain) * e.alpha
			}
			e.cnpAlpha = false
			e.schedule(ev.at+e.p.AlphaResumeInterval, alphaTimer)
		case decreaseTimer:
			e.schedule(ev.at+e.p.RateDecreaseInterval, decreaseTimer)
			if e.cnpDec {
				if e.p.ClampTargetRate || e.stage > 0 {
					e.target = e.rate
				}
				e.rate = max(e.floor, engine.Rate(float64(e.rate)*(1-e.alpha/2)))
				e.stage = 0
				e.cnpDec = false
				e.incSeq = e.schedule(ev.at+e.p.RPTimer, increaseTimer)
			}
		case increaseTimer:
			e.incSeq = e.schedule(ev.at+e.p.RPTimer, increaseTimer)
			f := int64(e.p.FastRecoveryTimes)
			if e.stage == f {
				e.target = min(e.env.LineRate, e.target+e.p.RateAI)
			} else if e.stage > f {
				e.target = min(e.env.LineRate, e.target+e.p.RateHAI)
			}
			e.rate = e.rate/2 + e.target/2
			e.stage++
		}
	}
}

func (e *eager) cnp(now engine.Time) {
	e.run(now)
	e.lastCNP = now
	e.cnpAlpha, e.cnpDec = true, true
	if e.first {
		e.alpha = 1
		e.cnpAlpha = false
		e.schedule(now+e.p.AlphaResumeInterval, alphaTimer)
		e.schedule(now+e.p.RateDecreaseInterval+engine.Nanosecond, decreaseTimer)
		e.rate = max(e.floor, engine.Rate(float64(e.rate)*e.p.RateOnFirstCNP))
		e.target = e.rate
		e.first = false
	}
}

// cnpTimes draws CNP arrivals in bursts separated by gaps, some of them on
// whole microseconds so that they tie with timer firings.
func cnpTimes(rng *rand.Rand, horizon engine.Time) []engine.Time {
	var out []engine.Time
	now := engine.Time(rng.Int64N(int64(100 * us)))
	for now < horizon {
		burst := rng.IntN(40)
		for range burst {
			if rng.IntN(4) == 0 {
				now = (now/us + 1) * us // on a whole microsecond
			} else {
				now += engine.Time(rng.Int64N(int64(3 * us)))
			}
			out = append(out, now)
		}
		switch rng.IntN(3) {
		case 0:
			now += engine.Time(rng.Int64N(int64(100 * us)))
		case 1:
			now += engine.Time(rng.Int64N(int64(2 * engine.Millisecond)))
		default:
			now += engine.Time(rng.Int64N(int64(20 * engine.Millisecond)))
		}
	}
	return out
}

// TestMatchesEagerTimers drives the production QP the way the rnic would
// (OnTimer only at NextTimer) and the eager transcription with every timer
// as an event, on random CNP patterns, and compares R and R_T after every
// timer firing and CNP, and alpha and the stage whenever the production
// QP has caught up (at each CNP).
func TestMatchesEagerTimers(t *testing.T) {
	odd := env100
	odd.LineRate = 99_999_999_999 // the increase fixed point is R_max - 1
	params := map[string]func() (Params, cc.Env){
		"default": func() (Params, cc.Env) { return DefaultParams(env100.LineRate), env100 },
		"paper": func() (Params, cc.Env) {
			p, _ := Preset("dcqcn_paper", env100.LineRate)
			return p, env100
		},
		"clamp-F3": func() (Params, cc.Env) {
			p := DefaultParams(env100.LineRate)
			p.ClampTargetRate, p.FastRecoveryTimes, p.RateOnFirstCNP = true, 3, 0.5
			return p, env100
		},
		"ties": func() (Params, cc.Env) { // decrease and increase periods coincide
			p := DefaultParams(env100.LineRate)
			p.AlphaResumeInterval, p.RateDecreaseInterval, p.RPTimer = 3*us, 3*us, 9*us
			p.RateHAI = 5 * engine.Gbps
			return p, env100
		},
		"odd-line-rate": func() (Params, cc.Env) { return DefaultParams(odd.LineRate), odd },
		"big-g": func() (Params, cc.Env) {
			p := DefaultParams(env100.LineRate)
			p.EWMAGain, p.FastRecoveryTimes = 0.5, 0
			return p, env100
		},
	}
	for name, mk := range params {
		t.Run(name, func(t *testing.T) {
			for s := range 8 {
				p, env := mk()
				rng := engine.NewStream(uint64(s), "dcqcn/eager")
				times := cnpTimes(rng, 60*engine.Millisecond)
				compareWithEager(t, p, env, times)
			}
		})
	}
}

func compareWithEager(t *testing.T, p Params, env cc.Env, times []engine.Time) {
	t.Helper()
	q := New(p, env)
	e := newEager(p, env)
	visible := 0
	same := func(when string, at engine.Time) bool {
		if q.Rate() != e.rate || q.TargetRate() != e.target {
			t.Errorf("%s at %v: got R %v R_T %v, want R %v R_T %v (eager)", when, at, q.Rate(), q.TargetRate(), e.rate, e.target)
			return false
		}
		return true
	}
	ci := 0
	horizon := times[len(times)-1] + 30*engine.Millisecond
	for {
		nextCNP := engine.Never
		if ci < len(times) {
			nextCNP = times[ci]
		}
		at := min(nextCNP, e.nextAt())
		if at > horizon {
			break
		}
		e.run(at)
		for next := q.NextTimer(); next <= at; next = q.NextTimer() {
			q.OnTimer(next)
			visible++
		}
		if !same("after timers", at) {
			return
		}
		if at == nextCNP {
			for ci < len(times) && times[ci] == at {
				q.OnCNP(at)
				e.cnp(at)
				ci++
			}
			// alpha is snapped to 0 once negligible (see decayAlpha).
			alphaSame := q.alpha == e.alpha || q.alpha == 0 && e.alpha < q.negligibleAlpha
			if !alphaSame || q.stage != e.stage || q.cnpAlpha != e.cnpAlpha || q.cnpDec != e.cnpDec {
				t.Errorf("at CNP %v: got alpha %v stage %d flags %v/%v, want alpha %v stage %d flags %v/%v",
					at, q.alpha, q.stage, q.cnpAlpha, q.cnpDec, e.alpha, e.stage, e.cnpAlpha, e.cnpDec)
				return
			}
			if !same("after CNP", at) {
				return
			}
		}
	}
	if visible*5 > e.firings {
		t.Errorf("production QP exposed %d of %d timer firings; want far fewer", visible, e.firings)
	}
}

func TestDefaultParamsScale(t *testing.T) {
	tests := []struct {
		line     engine.Rate
		ai, hai  engine.Rate
		wantName string
	}{
		{25 * engine.Gbps, 5 * engine.Mbps, 50 * engine.Mbps, "25G"},
		{100 * engine.Gbps, 20 * engine.Mbps, 200 * engine.Mbps, "100G"},
		{400 * engine.Gbps, 80 * engine.Mbps, 800 * engine.Mbps, "400G"},
	}
	for _, tt := range tests {
		p := DefaultParams(tt.line)
		if p.RateAI != tt.ai || p.RateHAI != tt.hai {
			t.Errorf("%s: rate_ai %v rate_hai %v, want %v %v", tt.wantName, p.RateAI, p.RateHAI, tt.ai, tt.hai)
		}
		if p.MinRate != 1000*engine.Mbps || p.RPTimer != 300*us || p.EWMAGain != 1.0/256 {
			t.Errorf("%s: min_rate %v rp_timer %v g %v, want 1000Mbps 300us 1/256", tt.wantName, p.MinRate, p.RPTimer, p.EWMAGain)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v", tt.wantName, err)
		}
	}
	if _, err := Preset("dcqcn_fast", env100.LineRate); err == nil {
		t.Error("Preset(dcqcn_fast): got nil error, want one")
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		field string
		mut   func(*Params)
	}{
		{"alpha_resume_interval", func(p *Params) { p.AlphaResumeInterval = 0 }},
		{"rate_decrease_interval", func(p *Params) { p.RateDecreaseInterval = -1 }},
		{"rp_timer", func(p *Params) { p.RPTimer = 0 }},
		{"alpha_resume_interval", func(p *Params) { p.AlphaResumeInterval = MinTimerPeriod - 1 }}, // 1ps took a 1 ms run over a minute
		{"rp_timer", func(p *Params) { p.RPTimer = engine.Picosecond }},
		{"ewma_gain", func(p *Params) { p.EWMAGain = 0 }},
		{"ewma_gain", func(p *Params) { p.EWMAGain = 1.5 }},
		{"ewma_gain", func(p *Params) { p.EWMAGain = math.NaN() }},
		{"fast_recovery_times", func(p *Params) { p.FastRecoveryTimes = -1 }},
		{"rate_ai", func(p *Params) { p.RateAI = -1 }},
		{"rate_hai", func(p *Params) { p.RateHAI = -1 }},
		{"min_rate", func(p *Params) { p.MinRate = 0 }},
		{"rate_on_first_cnp", func(p *Params) { p.RateOnFirstCNP = 0 }},
		{"rate_on_first_cnp", func(p *Params) { p.RateOnFirstCNP = 1.01 }},
	}
	for _, tt := range tests {
		p := DefaultParams(env100.LineRate)
		tt.mut(&p)
		err := p.Validate()
		if cctest.ParamField(err) != tt.field {
			t.Errorf("%s: Validate() = %v, want a cc.ParamError for %s", tt.field, err, tt.field)
		}
	}
}

func BenchmarkOnAck(b *testing.B) {
	q := New(DefaultParams(env100.LineRate), env100)
	fb := cc.Feedback{AckSeq: 1000, SndNxt: 100_000}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		fb.Now = engine.Time(i) * 80 * engine.Nanosecond
		fb.AckSeq += 1000
		fb.SndNxt += 1000
		fb.ECE = i%16 == 0
		for next := q.NextTimer(); next <= fb.Now; next = q.NextTimer() {
			q.OnTimer(next)
		}
		q.OnAck(&fb)
	}
}

// TestYAMLKeys pins the parameter names: every docs/model.md §5.2 parameter,
// snake_case, in documentation order.
func TestYAMLKeys(t *testing.T) {
	want := []string{"alpha_resume_interval", "rate_decrease_interval", "rp_timer", "ewma_gain", "fast_recovery_times", "rate_ai", "rate_hai", "min_rate", "clamp_target_rate", "rate_on_first_cnp", "has_win", "var_win", "ack_high_prio"}
	if got := cctest.YAMLKeys(Params{}); !slices.Equal(got, want) {
		t.Errorf("yaml keys = %v, want %v", got, want)
	}
}

// TestNS3AlphaTieOrder: a CNP-carrying ACK that arrives on the ns of an
// alpha update. ns-3 runs same-ns events in scheduling order; the ACK's
// Receive was scheduled at its last hop's transmit start (here 1,003 ns
// earlier), before the alpha update (1 µs earlier), so that update sees
// the CNP: alpha = (1-g)^2 + g at 2 µs. dcsim's default applies the
// update first: (1-g)^2, with the CNP left for the next one.
func TestNS3AlphaTieOrder(t *testing.T) {
	p := DefaultParams(env100.LineRate)
	g := p.EWMAGain
	for _, c := range []struct {
		ns3       bool
		scheduled engine.Time
		want      float64
	}{
		{true, 2*us - 1003*engine.Nanosecond, (1-g)*(1-g) + g},
		{true, 2*us - 1000*engine.Nanosecond, (1 - g) * (1 - g)}, // scheduled with the update: not before it
		{false, 0, (1 - g) * (1 - g)},
	} {
		env := env100
		env.NS3Arith = c.ns3
		q := New(p, env)
		q.OnCNP(0) // alpha = 1, updates every 1 µs from 1 µs
		q.OnAck(&cc.Feedback{Now: 2 * us, ECE: true, Scheduled: c.scheduled})
		if got := q.Alpha(); got != c.want {
			t.Errorf("ns3 %v, scheduled %v: alpha after the tie = %v, want %v", c.ns3, c.scheduled, got, c.want)
		}
	}
}

// TestReset: a state machine driven through CNPs, decreases and timers is,
// after Reset, what New builds (every field, unexported ones included).
func TestReset(t *testing.T) {
	p := DefaultParams(100 * engine.Gbps)
	q := New(p, env100)
	now := engine.Time(0)
	for i := 0; i < 50; i++ {
		now += 3 * us
		q.OnAck(&cc.Feedback{Now: now, AckSeq: int64(i) * 1000, ECE: i%3 == 0})
		if at := q.NextTimer(); at != engine.Never {
			q.OnTimer(at)
		}
	}
	if q.Rate() == env100.LineRate {
		t.Fatalf("rate %v after 17 CNPs, want below line rate (the test must change the state)", q.Rate())
	}
	q.Reset()
	if want := New(p, env100); !reflect.DeepEqual(q, want) {
		t.Errorf("after Reset got %+v, want %+v", *q, *want)
	}
}
