package hpcc

import (
	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// Name is the algorithm's name in scenarios (cc.algorithm: hpcc).
const Name = "hpcc"

// HeaderBytes is HPCC's INT stack on every data packet and its ACK:
// 5 hop records of 8 B and a 2 B hop count (docs/model.md §3.5).
const HeaderBytes = 42

// Params are HPCC's settings (docs/model.md §5.3). Rates are bit/s.
type Params struct {
	TargetUtil     float64     `yaml:"u_target"`        // eta
	MaxStage       int         `yaml:"mi_thresh"`       // additive steps before a multiplicative one
	RateAI         engine.Rate `yaml:"rate_ai"`         // W_AI as a rate
	INTMulti       int64       `yaml:"int_multi"`       // INT field unit multiplier (recorded only)
	MultiRate      bool        `yaml:"multi_rate"`      // one (U, R_c, stage) per hop
	SampleFeedback bool        `yaml:"sample_feedback"` // skip empty-queue hops on non-RTT ACKs
	FastReact      bool        `yaml:"fast_react"`      // react on every ACK, not once per RTT
	MinRate        engine.Rate `yaml:"min_rate"`        // floor of every rate
	cc.NICParams   `yaml:",inline"`
}

// DefaultParams are `run.py --cc hp` at NIC rate lineRate: eta 0.95,
// MI_THRESH 0, RATE_AI = 10*bw/25 Mb/s (40 Mb/s at 100 Gbps), INT_MULTI =
// bw/25, MULTI_RATE 0, SAMPLE_FEEDBACK 0, FAST_REACT 1, MIN_RATE 1000 Mb/s,
// HAS_WIN 1, VAR_WIN 1, ACK_HIGH_PRIO 0.
func DefaultParams(lineRate engine.Rate) Params {
	return Params{
		TargetUtil:     0.95,
		MaxStage:       0,
		RateAI:         lineRate / 2500, // 10*bw/25 Mb/s
		INTMulti:       max(1, int64(lineRate/(25*engine.Gbps))),
		MultiRate:      false,
		SampleFeedback: false,
		FastReact:      true,
		MinRate:        1000 * engine.Mbps,
		NICParams:      cc.NICParams{HasWin: true, VarWin: true},
	}
}

// Validate reports the first unusable setting, naming it as in YAML.
func (p Params) Validate() error {
	c := cc.CheckParams(Name)
	cc.Fraction(c, "u_target", p.TargetUtil)
	cc.NonNegative(c, "mi_thresh", p.MaxStage)
	cc.NonNegative(c, "rate_ai", p.RateAI)
	c.Require(p.INTMulti >= 1, "int_multi", "must be >= 1, got %d", p.INTMulti)
	cc.Positive(c, "min_rate", p.MinRate)
	return c.Err()
}

// Spec describes HPCC: a 42 B INT header, switches stamp INT.
func Spec(p Params) cc.Spec {
	s := p.NICParams.Spec(Name, func(env cc.Env) cc.Algorithm { return New(p, env) })
	s.HeaderBytes = HeaderBytes
	s.NeedsINT = true
	s.INTMulti = p.INTMulti
	s.ChangeRate = true
	return s
}

// hopState is MULTI_RATE's per-hop controller.
type hopState struct {
	u        float64
	rc       engine.Rate
	incStage int
}

// State is one queue pair's HPCC state machine.
type State struct {
	p     Params
	env   cc.Env
	floor engine.Rate
	t     float64 // T = env.BaseRTT in ps (maxRtt, GLOBAL_T = 1)
	// rmaxPerW is R_max/W (W = env.BDP, maxBdp), the queue term's scale;
	// 0 when W is 0, which drops the term.
	rmaxPerW float64

	rate          engine.Rate // current R, applied per ACK
	rc            engine.Rate // R_c, the reference rate, set once per RTT
	incStage      int
	u             float64 // U, the utilisation EWMA
	lastUpdateSeq int64
	// changed: the last OnAck computed a new rate from some hop's sample,
	// as UpdateRateHp calls ChangeRate (cc.RateChangeReporter).
	changed bool
	hops    [fabric.MaxINTHops]fabric.INTHop // last record per hop index
	perHop  [fabric.MaxINTHops]hopState
}

// New builds the state machine for one QP. p must be valid.
func New(p Params, env cc.Env) *State {
	q := &State{
		p:     p,
		env:   env,
		floor: cc.RateFloor(env, p.MinRate),
		t:     float64(env.BaseRTT),
		rate:  env.LineRate,
		rc:    env.LineRate,
		u:     1,
	}
	if env.BDP > 0 {
		q.rmaxPerW = float64(env.LineRate) / float64(env.BDP)
	}
	for i := range q.perHop {
		q.perHop[i] = hopState{u: 1, rc: env.LineRate}
	}
	return q
}

// OnAck runs the full update on the first ACK of a new RTT and the fast
// reaction (when fast_react) on the others; NACKs count as ACKs.
func (q *State) OnAck(fb *cc.Feedback) {
	q.changed = false
	if fb.AckSeq > q.lastUpdateSeq {
		q.update(fb, false)
	} else if q.p.FastReact {
		q.update(fb, true)
	}
}

// OnCNP does nothing: HPCC does not use ECN.
func (q *State) OnCNP(engine.Time) {}

// OnTimer does nothing: HPCC has no timers.
func (q *State) OnTimer(engine.Time) {}

// NextTimer is always Never.
func (q *State) NextTimer() engine.Time { return engine.Never }

// Rate is the current rate R.
func (q *State) Rate() engine.Rate { return q.rate }

// ChangedRate implements cc.RateChangeReporter: whether the last OnAck
// computed a rate from some hop's sample (UpdateRateHp's updated_any;
// false on a QP's first ACK, which only stores the hops).
func (q *State) ChangedRate() bool { return q.changed }

// RefRate is R_c, for tests and traces.
func (q *State) RefRate() engine.Rate { return q.rc }

// Util is the utilisation estimate U (single-rate mode), for tests and
// traces.
func (q *State) Util() float64 { return q.u }

// Window is max(1, W*R/R_max) with has_win and var_win (0: no window).
func (q *State) Window() int64 { return cc.Window(q.env, q.p.HasWin, q.p.VarWin, q.rate) }

// update is UpdateRateHp; fast is its fast_react argument.
func (q *State) update(fb *cc.Feedback, fast bool) {
	nextSeq := fb.SndNxt
	if q.lastUpdateSeq == 0 { // first RTT: remember the hops only
		q.lastUpdateSeq = nextSeq
		copy(q.hops[:], fb.INT)
		return
	}
	if len(fb.INT) <= fabric.MaxINTHops {
		q.react(fb.INT, fast)
	}
	if !fast && nextSeq > q.lastUpdateSeq {
		q.lastUpdateSeq = nextSeq
	}
}

// react computes each hop's utilisation and the new rate.
func (q *State) react(hops []fabric.INTHop, fast bool) {
	var (
		maxU       float64
		dt         float64
		updated    [fabric.MaxINTHops]bool
		updatedAny bool
	)
	for i := range hops {
		h := &hops[i]
		if q.p.SampleFeedback && h.QLen == 0 && fast {
			continue
		}
		u, tau, ok := q.hopUtil(h, &q.hops[i])
		q.hops[i] = *h
		if !ok {
			continue
		}
		updated[i], updatedAny = true, true
		if !q.p.MultiRate {
			if u > maxU {
				maxU, dt = u, tau
			}
		} else {
			s := &q.perHop[i]
			s.u = q.ewma(s.u, u, tau)
		}
	}
	if !updatedAny {
		return
	}
	q.changed = true

	var (
		newRate  engine.Rate
		newStage int
		hopRate  [fabric.MaxINTHops]engine.Rate
		hopStage [fabric.MaxINTHops]int
	)
	if !q.p.MultiRate {
		q.u = q.ewma(q.u, maxU, dt)
		newRate, newStage = q.target(q.rc, q.incStage, q.u)
	} else {
		newRate = q.env.LineRate
		for i := range hops {
			s := &q.perHop[i]
			if updated[i] {
				hopRate[i], hopStage[i] = q.target(s.rc, s.incStage, s.u)
				newRate = min(newRate, hopRate[i])
			} else {
				newRate = min(newRate, s.rc)
			}
		}
	}
	q.rate = newRate
	if fast {
		return
	}
	if !q.p.MultiRate {
		q.rc, q.incStage = newRate, newStage
		return
	}
	for i := range hops {
		if updated[i] {
			q.perHop[i].rc, q.perHop[i].incStage = hopRate[i], hopStage[i]
		}
	}
}

// hopUtil is u_i = tx_i/B_i + min(qlen_i, qlen_i') * R_max / (B_i * W) for
// a hop record h against the stored one, with tau_i = time_i - time_i'.
// INT records are exact (fabric.INTHop), so deltas are plain differences.
// A record that does not advance (tau <= 0, fewer bytes than before: a
// repeated or re-routed hop) or has no line rate gives no sample; the
// reference's modular arithmetic would turn it into a huge one.
func (q *State) hopUtil(h, old *fabric.INTHop) (u, tau float64, ok bool) {
	d := h.Time - old.Time
	bytes := h.TxBytes - old.TxBytes
	if d <= 0 || bytes < 0 || h.LineRate <= 0 {
		return 0, 0, false
	}
	if q.env.NS3Arith {
		return q.hopUtilNS3(h, old, d, bytes)
	}
	tau = float64(d)
	// (tx rate in bit/s + queue term) / B_i, with tau in ps: two divisions
	// per hop instead of the reference's four.
	x := float64(bytes) * 8e12 / tau
	if qlen := min(h.QLen, old.QLen); qlen > 0 {
		x += float64(qlen) * q.rmaxPerW
	}
	return x / float64(h.LineRate), tau, true
}

// hopUtilNS3 is hopUtil in rdma-hw.cc UpdateRateHp's units and order of
// operations (cc.Env.NS3Arith): tau in whole ns, duration = tau*1e-9 s,
// txRate = bytes*8/duration, u = txRate/B + qlen*R_max/B/W; tau is
// returned in ns, for ewma's ns arithmetic.
func (q *State) hopUtilNS3(h, old *fabric.INTHop, d engine.Time, bytes int64) (u, tau float64, ok bool) {
	tauNs := uint64(d / engine.Nanosecond)
	if tauNs == 0 {
		return 0, 0, false
	}
	duration := float64(tauNs) * 1e-9
	txRate := float64(uint64(bytes)*8) / duration
	u = txRate / float64(h.LineRate)
	if q.env.BDP > 0 {
		u += float64(min(h.QLen, old.QLen)) * float64(q.env.LineRate) / float64(h.LineRate) / float64(q.env.BDP)
	}
	return u, float64(tauNs), true
}

// ewma is U = (U*(T - dt) + u*dt)/T with dt capped at T. A zero T (no base
// RTT given) makes each sample replace U. With NS3Arith, T and dt are
// whole ns as in UpdateRateHp (uint64 m_baseRtt - dt, then doubles).
func (q *State) ewma(old, u, dt float64) float64 {
	if q.t <= 0 {
		return u
	}
	if q.env.NS3Arith {
		t := uint64(q.env.BaseRTT / engine.Nanosecond)
		d := min(uint64(dt), t)
		return (old*float64(t-d) + u*float64(d)) / float64(t)
	}
	dt = min(dt, q.t)
	return (old*(q.t-dt) + u*dt) / q.t
}

// target is HPCC's rate law for reference rate rc, stage and utilisation
// U: multiplicative R_c/k + W_AI when k = U/eta >= 1 or the additive
// stages are used up, else additive R_c + W_AI; clamped to [floor, R_max].
func (q *State) target(rc engine.Rate, stage int, u float64) (engine.Rate, int) {
	k := u / q.p.TargetUtil
	var r engine.Rate
	if k >= 1 || stage >= q.p.MaxStage {
		r, stage = cc.AddRate(cc.DivRate(rc, k), q.p.RateAI), 0
	} else {
		r, stage = cc.AddRate(rc, q.p.RateAI), stage+1
	}
	return cc.ClampRate(r, q.floor, q.env.LineRate), stage
}
