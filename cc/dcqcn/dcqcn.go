package dcqcn

import (
	"fmt"
	"math"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
)

// Name is the algorithm's name in scenarios (cc.algorithm: dcqcn).
const Name = "dcqcn"

// maxExactDecays bounds the alpha decays replayed one by one after a quiet
// spell. With g >= 1/4096 alpha reaches 0 (see decayAlpha) well before
// that, so the bound never changes a result at the reference settings.
const maxExactDecays = 1 << 18

// decreaseOffset delays the first rate-decrease check after the first CNP,
// so that it runs after the alpha update due at the same period
// (reference: ScheduleDecreaseRateMlx(q, 1), "add 1 ns").
const decreaseOffset = engine.Nanosecond

// Params are DCQCN's settings (docs/model.md §5.2). Rates are bit/s, times ps.
type Params struct {
	AlphaResumeInterval  engine.Time `yaml:"alpha_resume_interval"`  // alpha timer period
	RateDecreaseInterval engine.Time `yaml:"rate_decrease_interval"` // decrease check period
	RPTimer              engine.Time `yaml:"rp_timer"`               // increase timer period
	EWMAGain             float64     `yaml:"ewma_gain"`              // g
	FastRecoveryTimes    int         `yaml:"fast_recovery_times"`    // F
	RateAI               engine.Rate `yaml:"rate_ai"`                // additive increase step
	RateHAI              engine.Rate `yaml:"rate_hai"`               // hyper increase step
	MinRate              engine.Rate `yaml:"min_rate"`               // floor of every decrease
	ClampTargetRate      bool        `yaml:"clamp_target_rate"`      // R_T = R on every decrease
	RateOnFirstCNP       float64     `yaml:"rate_on_first_cnp"`      // R *= this on the first CNP
	cc.NICParams         `yaml:",inline"`
}

// DefaultParams are `run.py --cc dcqcn` at NIC rate lineRate: periods 1 us,
// 4 us, 300 us; g = 1/256; F = 1; RATE_AI = 5*bw/25 Mb/s and RATE_HAI =
// 50*bw/25 Mb/s with bw in Gbps (20 and 200 Mb/s at 100 Gbps); MIN_RATE
// 1000 Mb/s; no window; ACKs at high priority.
func DefaultParams(lineRate engine.Rate) Params {
	return Params{
		AlphaResumeInterval:  1 * engine.Microsecond,
		RateDecreaseInterval: 4 * engine.Microsecond,
		RPTimer:              300 * engine.Microsecond,
		EWMAGain:             1.0 / 256,
		FastRecoveryTimes:    1,
		RateAI:               lineRate / 5000, // 5*bw/25 Mb/s
		RateHAI:              lineRate / 500,  // 50*bw/25 Mb/s
		MinRate:              1000 * engine.Mbps,
		ClampTargetRate:      false,
		RateOnFirstCNP:       1.0,
		NICParams:            cc.NICParams{AckHighPrio: true},
	}
}

// Preset returns the named variant of the reference launch script at NIC
// rate lineRate: "dcqcn" (the default), "dcqcn_paper" (periods 50 us, 50 us,
// 55 us), "dcqcn_vwin" and "dcqcn_paper_vwin" (with HAS_WIN 1, VAR_WIN 1
// and ACKs at normal priority).
func Preset(name string, lineRate engine.Rate) (Params, error) {
	p := DefaultParams(lineRate)
	switch name {
	case "dcqcn":
	case "dcqcn_paper":
		p.usePaperTimers()
	case "dcqcn_vwin":
		p.useVarWin()
	case "dcqcn_paper_vwin":
		p.usePaperTimers()
		p.useVarWin()
	default:
		return Params{}, fmt.Errorf("dcqcn: unknown preset %q (want dcqcn, dcqcn_paper, dcqcn_vwin or dcqcn_paper_vwin)", name)
	}
	return p, nil
}

func (p *Params) usePaperTimers() {
	p.AlphaResumeInterval = 50 * engine.Microsecond
	p.RateDecreaseInterval = 50 * engine.Microsecond
	p.RPTimer = 55 * engine.Microsecond
}

func (p *Params) useVarWin() {
	p.HasWin, p.VarWin, p.AckHighPrio = true, true, false
}

// MinTimerPeriod bounds DCQCN's three timer periods from below: each
// period is an event per QP, so 1 ps made a 1 ms run take over a minute.
// Below one 1000 B packet's serialisation at 100 Gbps (80 ns) a timer
// cannot see a new packet between two firings, and 100 ns keeps the
// alpha timer's events within 10x the reference's 1 us.
const MinTimerPeriod = 100 * engine.Nanosecond

// Validate reports the first setting that would make the state machine
// meaningless, naming it as in YAML.
func (p Params) Validate() error {
	c := cc.CheckParams(Name)
	cc.AtLeast(c, "alpha_resume_interval", p.AlphaResumeInterval, MinTimerPeriod)
	cc.AtLeast(c, "rate_decrease_interval", p.RateDecreaseInterval, MinTimerPeriod)
	cc.AtLeast(c, "rp_timer", p.RPTimer, MinTimerPeriod)
	cc.Fraction(c, "ewma_gain", p.EWMAGain)
	cc.NonNegative(c, "fast_recovery_times", p.FastRecoveryTimes)
	cc.NonNegative(c, "rate_ai", p.RateAI)
	cc.NonNegative(c, "rate_hai", p.RateHAI)
	cc.Positive(c, "min_rate", p.MinRate)
	cc.Fraction(c, "rate_on_first_cnp", p.RateOnFirstCNP)
	return c.Err()
}

// Spec describes DCQCN to the simulator: no extra header, no INT, no
// timestamps.
func Spec(p Params) cc.Spec {
	return p.NICParams.Spec(Name, func(env cc.Env) cc.Algorithm { return New(p, env) })
}

// timer identifies one of the three DCQCN timers; the order is the
// tie-break between timers armed at the same instant.
type timer int

const (
	alphaTimer timer = iota
	decreaseTimer
	increaseTimer
	numTimers
)

// State is one queue pair's DCQCN state machine.
//
// The three timers run in simulated time exactly as in the reference, but
// a firing that cannot change the rate is not exposed through NextTimer:
// the alpha timer (its value is read only by a decrease), the decrease
// timer while no CNP is pending, and the increase timer once R and R_T sit
// at their fixed point. Such firings are replayed in order, with the same
// floating-point operations, when the state machine is next entered. The
// rates are therefore identical to a QP whose timers all fire as events,
// while a recovered QP costs the event queue nothing.
type State struct {
	p      Params
	env    cc.Env
	floor  engine.Rate
	period [numTimers]engine.Time

	rate, target engine.Rate
	alpha        float64
	stage        int64 // m_rpTimeStage
	cnpAlpha     bool  // a CNP arrived since the last alpha update
	cnpDec       bool  // a CNP arrived since the last decrease check
	started      bool  // the first CNP has arrived

	next  [numTimers]engine.Time // deadline; Never when not armed
	armed [numTimers]engine.Time // when the pending firing was scheduled
	// incIdle: the increase timer's next firings change nothing but the
	// stage counter (hyper stage with R and R_T at their fixed point).
	incIdle bool
	// negligibleAlpha: below this alpha cannot affect any result (see
	// decayAlpha).
	negligibleAlpha float64
}

// New builds the state machine for one QP. p must be valid.
func New(p Params, env cc.Env) *State {
	q := new(State)
	q.init(p, env)
	return q
}

// Reset implements cc.Resetter: q becomes what New built.
func (q *State) Reset() { q.init(q.p, q.env) }

func (q *State) init(p Params, env cc.Env) {
	*q = State{
		p:      p,
		env:    env,
		floor:  cc.RateFloor(env, p.MinRate),
		period: [numTimers]engine.Time{p.AlphaResumeInterval, p.RateDecreaseInterval, p.RPTimer},
		rate:   env.LineRate,
		target: env.LineRate,
		alpha:  1,

		negligibleAlpha: math.Ldexp(p.EWMAGain, -54),
	}
	for i := range q.next {
		q.next[i] = engine.Never
	}
}

// OnAck handles an ACK or NACK: its CNP flag (ECE) is a CNP.
func (q *State) OnAck(fb *cc.Feedback) {
	now := fb.Now
	if fb.ECE && q.env.NS3Arith && q.started && fb.Scheduled < now-q.period[alphaTimer] {
		// ns-3 runs same-ns events in the order they were scheduled. This
		// ACK's Receive was scheduled before an alpha update due now
		// (scheduled one period ago by the previous one), so that update
		// sees this CNP (rdma-hw.cc ReceiveAck, cnp_received_mlx,
		// UpdateAlphaMlx). With the reference's whole-µs periods the
		// decrease and increase checks never fall on this ns: they run
		// 1 ns off the alpha grid.
		q.advance(now - 1)
		if q.next[alphaTimer] == now && q.next[decreaseTimer] != now && q.next[increaseTimer] != now {
			q.cnp(now)
			q.advance(now)
			return
		}
	}
	q.advance(now)
	if fb.ECE {
		q.cnp(now)
	}
}

// OnCNP handles a standalone CNP packet.
func (q *State) OnCNP(now engine.Time) {
	q.advance(now)
	q.cnp(now)
}

// OnTimer runs every timer firing due at or before now.
func (q *State) OnTimer(now engine.Time) { q.advance(now) }

// NextTimer is the next firing that can change the rate. With
// cc.Env.NS3Arith every decrease check is asked for, as ns-3 schedules
// each one at the previous check (CheckRateDecreaseMlx): a decrease due
// on the same ns as a transmission then runs first when ns-3's would,
// and the transmission's pacing gap uses the decreased rate.
func (q *State) NextTimer() engine.Time {
	t := engine.Never
	if q.cnpDec || q.env.NS3Arith && q.started {
		t = q.next[decreaseTimer]
	}
	if !q.incIdle {
		t = min(t, q.next[increaseTimer])
	}
	return t
}

// Rate is the current sending rate R.
func (q *State) Rate() engine.Rate { return q.rate }

// TargetRate is R_T, for tests and traces.
func (q *State) TargetRate() engine.Rate { return q.target }

// Alpha is the current alpha, for tests and traces. Firings of the alpha
// timer after the last call into the QP are not yet applied.
func (q *State) Alpha() float64 { return q.alpha }

// Window is the reference window for the current rate (0: none).
func (q *State) Window() int64 { return cc.Window(q.env, q.p.HasWin, q.p.VarWin, q.rate) }

// cnp is cnp_received_mlx.
func (q *State) cnp(now engine.Time) {
	q.cnpAlpha, q.cnpDec = true, true
	if q.started {
		return
	}
	q.started = true
	q.alpha = 1
	q.cnpAlpha = false
	q.arm(alphaTimer, now, now+q.period[alphaTimer])
	q.arm(decreaseTimer, now, now+q.period[decreaseTimer]+decreaseOffset)
	q.rate = cc.ClampRate(cc.ScaleRate(q.rate, q.p.RateOnFirstCNP), q.floor, q.env.LineRate)
	q.target = q.rate
}

func (q *State) arm(t timer, now, at engine.Time) {
	q.armed[t] = now
	q.next[t] = at
}

// advance fires, in order, every timer firing due at or before now.
func (q *State) advance(now engine.Time) {
	if !q.started || now == engine.Never {
		return
	}
	// While a CNP is pending the timers interact (a decrease reads alpha
	// and the stage), so they fire one by one in order; both flags clear
	// within one period of each timer.
	for q.cnpAlpha || q.cnpDec {
		t := q.earliest()
		if q.next[t] > now {
			return
		}
		q.fire(t)
	}
	q.skipQuiet(now)
}

// earliest is the timer that fires next: the earliest deadline, then the
// one armed first (the engine runs ties in scheduling order), then the
// fixed order alpha, decrease, increase.
func (q *State) earliest() timer {
	best := alphaTimer
	for t := decreaseTimer; t < numTimers; t++ {
		if q.next[t] < q.next[best] || q.next[t] == q.next[best] && q.armed[t] < q.armed[best] {
			best = t
		}
	}
	return best
}

func (q *State) fire(t timer) {
	at := q.next[t]
	q.arm(t, at, at+q.period[t])
	switch t {
	case alphaTimer:
		q.updateAlpha()
	case decreaseTimer:
		if q.cnpDec {
			q.decrease(at)
		}
	case increaseTimer:
		q.increase()
	}
}

// updateAlpha is UpdateAlphaMlx.
func (q *State) updateAlpha() {
	if q.cnpAlpha {
		q.alpha = (1-q.p.EWMAGain)*q.alpha + q.p.EWMAGain
	} else {
		q.decayAlpha()
	}
	q.cnpAlpha = false
}

// decayAlpha is alpha = (1-g)*alpha, with one shortcut: once alpha is below
// g*2^-54 it is set to 0. Below that size alpha can no longer change any
// result: a decrease multiplies R by 1 - alpha/2, which rounds to exactly
// 1, and the next CNP's update (1-g)*alpha + g rounds to exactly g. So the
// rates stay bit-identical to the reference while a quiet QP stops paying
// for the decay after about 11 ms (g = 1/256) instead of 190 ms.
func (q *State) decayAlpha() {
	q.alpha = (1 - q.p.EWMAGain) * q.alpha
	if q.alpha < q.negligibleAlpha {
		q.alpha = 0
	}
}

// decrease is the body of CheckRateDecreaseMlx when a CNP is pending.
func (q *State) decrease(now engine.Time) {
	if q.p.ClampTargetRate || q.stage > 0 {
		q.target = q.rate
	}
	q.rate = max(q.floor, cc.ScaleRate(q.rate, 1-q.alpha/2))
	q.stage = 0
	q.cnpDec = false
	q.arm(increaseTimer, now, now+q.period[increaseTimer])
	q.incIdle = false
}

// increase is RateIncEventTimerMlx: fast recovery, additive or hyper
// increase by stage, then stage += 1.
func (q *State) increase() {
	f := int64(q.p.FastRecoveryTimes)
	switch {
	case q.stage < f:
	case q.stage == f:
		q.target = min(q.env.LineRate, cc.AddRate(q.target, q.p.RateAI))
	default:
		q.target = min(q.env.LineRate, cc.AddRate(q.target, q.p.RateHAI))
	}
	q.rate = cc.ClampRate(q.rate/2+q.target/2, q.floor, q.env.LineRate)
	q.stage++
	q.incIdle = q.stage > f &&
		min(q.env.LineRate, cc.AddRate(q.target, q.p.RateHAI)) == q.target &&
		cc.ClampRate(q.rate/2+q.target/2, q.floor, q.env.LineRate) == q.rate
}

// skipQuiet fires everything due by now when no CNP is pending. Then the
// timers are independent: alpha only decays and nothing reads it, the
// decrease check does nothing, and the increase timer reads only R, R_T
// and the stage. So alpha and decrease firings are replayed in bulk, the
// increase firings one by one, and, once the increase timer is idle, its
// firings in bulk too.
func (q *State) skipQuiet(now engine.Time) {
	n := q.firingsBy(alphaTimer, now)
	if n > maxExactDecays && q.alpha != 0 {
		// Only with a tiny g can alpha survive this many decays; then
		// one power replaces the loop (not bit-identical, but bounded).
		q.alpha *= math.Pow(1-q.p.EWMAGain, float64(n))
		if q.alpha < q.negligibleAlpha {
			q.alpha = 0
		}
		n = 0
	}
	for ; n > 0 && q.alpha != 0; n-- {
		q.decayAlpha()
	}
	q.firingsBy(decreaseTimer, now)
	for !q.incIdle && q.next[increaseTimer] <= now {
		q.fire(increaseTimer)
	}
	if q.incIdle {
		q.stage += q.firingsBy(increaseTimer, now)
	}
}

// firingsBy moves timer t past now and returns how many firings that was.
func (q *State) firingsBy(t timer, now engine.Time) int64 {
	if q.next[t] > now {
		return 0
	}
	n := int64((now-q.next[t])/q.period[t]) + 1
	last := q.next[t] + engine.Time(n-1)*q.period[t]
	q.arm(t, last, last+q.period[t])
	return n
}
