package dctcp

import (
	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
)

// Name is the algorithm's name in scenarios (cc.algorithm: dctcp).
const Name = "dctcp"

// Params are rate-based DCTCP's settings (docs/model.md §5.5). Rates are
// bit/s.
type Params struct {
	EWMAGain     float64     `yaml:"ewma_gain"`  // g
	AlphaInit    float64     `yaml:"alpha_init"` // alpha of a new QP
	RateAI       engine.Rate `yaml:"rate_ai"`    // DCTCP_RATE_AI: increase per window
	MinRate      engine.Rate `yaml:"min_rate"`   // floor of every decrease
	cc.NICParams `yaml:",inline"`
}

// DefaultParams are `run.py --cc dctcp`: g = 1/16, alpha starts at 1,
// DCTCP_RATE_AI 615 Mb/s (one 1 KB MTU per 13 us RTT; the launch script
// does not scale it with the NIC rate), MIN_RATE 1000 Mb/s, HAS_WIN 1,
// VAR_WIN 1, ACKs at normal priority. lineRate is accepted for uniformity.
func DefaultParams(lineRate engine.Rate) Params {
	return Params{
		EWMAGain:  1.0 / 16,
		AlphaInit: 1,
		RateAI:    615 * engine.Mbps,
		MinRate:   1000 * engine.Mbps,
		NICParams: cc.NICParams{HasWin: true, VarWin: true},
	}
}

// Validate reports the first unusable setting, naming it as in YAML.
func (p Params) Validate() error {
	c := cc.CheckParams(Name)
	cc.Fraction(c, "ewma_gain", p.EWMAGain)
	cc.Weight(c, "alpha_init", p.AlphaInit)
	cc.NonNegative(c, "rate_ai", p.RateAI)
	cc.Positive(c, "min_rate", p.MinRate)
	return c.Err()
}

// Spec describes rate-based DCTCP: no extra header, no INT, no timestamps.
func Spec(p Params) cc.Spec {
	return p.NICParams.Spec(Name, func(env cc.Env) cc.Algorithm { return New(p, env) })
}

// State is one queue pair's DCTCP state machine.
type State struct {
	p     Params
	env   cc.Env
	floor engine.Rate
	mtu   int64

	rate          engine.Rate
	alpha         float64
	ecnCnt        int64 // marked ACKs in the current window
	batch         int64 // packets in the current window
	lastUpdateSeq int64
	cwr           bool // congestion window reduced: no cut, no increase
	highSeq       int64
	sndNxt        int64 // latest snd_nxt seen, for standalone CNPs
}

// New builds the state machine for one QP. p must be valid.
func New(p Params, env cc.Env) *State {
	return &State{p: p, env: env, floor: cc.RateFloor(env, p.MinRate),
		mtu: max(env.MTU, 1), rate: env.LineRate, alpha: p.AlphaInit}
}

// OnAck is HandleAckDctcp; the ECN echo is the ACK's CNP flag (ECE).
func (q *State) OnAck(fb *cc.Feedback) {
	q.sndNxt = fb.SndNxt
	if fb.ECE {
		q.ecnCnt++
	}
	newBatch := false
	if fb.AckSeq > q.lastUpdateSeq { // a new window: update alpha
		newBatch = true
		if q.lastUpdateSeq == 0 {
			q.lastUpdateSeq = fb.SndNxt
			q.batch = fb.SndNxt/q.mtu + 1
		} else {
			frac := min(1, float64(q.ecnCnt)/float64(q.batch))
			q.alpha = (1-q.p.EWMAGain)*q.alpha + q.p.EWMAGain*frac
			q.lastUpdateSeq = fb.SndNxt
			q.ecnCnt = 0
			q.batch = max(0, fb.SndNxt-fb.AckSeq)/q.mtu + 1
		}
	}
	if q.cwr && fb.AckSeq > q.highSeq {
		q.cwr = false
	}
	if fb.ECE && !q.cwr {
		q.cut()
	}
	if !q.cwr && newBatch {
		q.rate = min(q.env.LineRate, cc.AddRate(q.rate, q.p.RateAI))
	}
}

// OnCNP treats a standalone CNP packet (cnp = packet) as one marked ACK
// that acknowledges nothing: it counts toward alpha and cuts the rate
// unless a cut is already in force. A dcsim extension: the reference
// model's CNP packets never reach DCTCP.
func (q *State) OnCNP(engine.Time) {
	q.ecnCnt++
	if !q.cwr {
		q.cut()
	}
}

// cut is R = max(min_rate, R*(1 - alpha/2)) and entering CWR until
// everything sent so far is ACKed.
func (q *State) cut() {
	q.rate = cc.ClampRate(cc.ScaleRate(q.rate, 1-q.alpha/2), q.floor, q.env.LineRate)
	q.cwr = true
	q.highSeq = q.sndNxt
}

// OnTimer does nothing: rate-based DCTCP has no timers.
func (q *State) OnTimer(engine.Time) {}

// NextTimer is always Never.
func (q *State) NextTimer() engine.Time { return engine.Never }

// Rate is the current rate.
func (q *State) Rate() engine.Rate { return q.rate }

// Alpha is the current alpha, for tests and traces.
func (q *State) Alpha() float64 { return q.alpha }

// Window is the reference window for the current rate (0: none).
func (q *State) Window() int64 { return cc.Window(q.env, q.p.HasWin, q.p.VarWin, q.rate) }
