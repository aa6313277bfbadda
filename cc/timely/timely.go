package timely

import (
	"fmt"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
)

// Name is the algorithm's name in scenarios (cc.algorithm: timely).
const Name = "timely"

// HeaderBytes is the send timestamp carried by every data packet and
// echoed in its ACK.
const HeaderBytes = 8

// haiStages is how many consecutive increases use rate_ai before rate_hai
// takes over; fixed in the reference (m_incStage < 5).
const haiStages = 5

// Params are TIMELY's settings (docs/model.md §5.4). Rates are bit/s,
// times ps.
type Params struct {
	Alpha        float64     `yaml:"alpha"`    // EWMA weight of the newest RTT difference
	Beta         float64     `yaml:"beta"`     // multiplicative decrease factor
	TLow         engine.Time `yaml:"t_low"`    // below: always increase
	THigh        engine.Time `yaml:"t_high"`   // above: always decrease
	MinRTT       engine.Time `yaml:"min_rtt"`  // normalises the gradient
	RateAI       engine.Rate `yaml:"rate_ai"`  // additive step
	RateHAI      engine.Rate `yaml:"rate_hai"` // step after 5 increases in a row
	MinRate      engine.Rate `yaml:"min_rate"` // floor of every decrease
	cc.NICParams `yaml:",inline"`
}

// DefaultParams are `run.py --cc timely` at NIC rate lineRate: a 0.875,
// b 0.8, T_low 50 us, T_high 500 us, minRTT 20 us, RATE_AI = 10*bw/10 Mb/s
// and RATE_HAI = 50*bw/10 Mb/s with bw in Gbps (100 and 500 Mb/s at
// 100 Gbps), MIN_RATE 1000 Mb/s, no window, ACKs at high priority.
func DefaultParams(lineRate engine.Rate) Params {
	return Params{
		Alpha:     0.875,
		Beta:      0.8,
		TLow:      50 * engine.Microsecond,
		THigh:     500 * engine.Microsecond,
		MinRTT:    20 * engine.Microsecond,
		RateAI:    lineRate / 1000, // 10*bw/10 Mb/s
		RateHAI:   lineRate / 200,  // 50*bw/10 Mb/s
		MinRate:   1000 * engine.Mbps,
		NICParams: cc.NICParams{AckHighPrio: true},
	}
}

// Preset returns "timely" (the default) or "timely_vwin" (HAS_WIN 1,
// VAR_WIN 1) at NIC rate lineRate.
func Preset(name string, lineRate engine.Rate) (Params, error) {
	p := DefaultParams(lineRate)
	switch name {
	case "timely":
	case "timely_vwin":
		p.HasWin, p.VarWin = true, true
	default:
		return Params{}, fmt.Errorf("timely: unknown preset %q (want timely or timely_vwin)", name)
	}
	return p, nil
}

// Validate reports the first unusable setting, naming it as in YAML.
func (p Params) Validate() error {
	c := cc.CheckParams(Name)
	cc.Weight(c, "alpha", p.Alpha)
	cc.Weight(c, "beta", p.Beta)
	cc.NonNegative(c, "t_low", p.TLow)
	cc.Positive(c, "t_high", p.THigh)
	c.Require(p.TLow <= p.THigh, "t_low", "must not exceed t_high (%v), got %v", p.THigh, p.TLow)
	cc.Positive(c, "min_rtt", p.MinRTT)
	cc.NonNegative(c, "rate_ai", p.RateAI)
	cc.NonNegative(c, "rate_hai", p.RateHAI)
	cc.Positive(c, "min_rate", p.MinRate)
	return c.Err()
}

// Spec describes TIMELY: an 8 B timestamp header and RTT samples.
func Spec(p Params) cc.Spec {
	s := p.NICParams.Spec(Name, func(env cc.Env) cc.Algorithm { return New(p, env) })
	s.HeaderBytes = HeaderBytes
	s.NeedsTimestamp = true
	return s
}

// State is one queue pair's TIMELY state machine.
type State struct {
	p     Params
	env   cc.Env
	floor engine.Rate

	rate          engine.Rate // R, which is also R_c after every update
	incStage      int
	prevRTT       engine.Time
	rttDiff       float64 // ps
	lastUpdateSeq int64
}

// New builds the state machine for one QP. p must be valid.
func New(p Params, env cc.Env) *State {
	return &State{p: p, env: env, floor: cc.RateFloor(env, p.MinRate), rate: env.LineRate}
}

// OnAck runs the update on the first ACK of each RTT (ack_seq >
// last_update_seq); other ACKs do nothing. NACKs count as ACKs.
func (q *State) OnAck(fb *cc.Feedback) {
	if fb.AckSeq <= q.lastUpdateSeq {
		return
	}
	rtt := fb.RTT
	if q.lastUpdateSeq != 0 {
		q.react(rtt)
	}
	if fb.SndNxt > q.lastUpdateSeq {
		q.lastUpdateSeq = fb.SndNxt
		q.prevRTT = rtt
	}
}

// react is the body of UpdateRateTimely for one RTT sample.
func (q *State) react(rtt engine.Time) {
	newDiff := float64(int64(rtt) - int64(q.prevRTT))
	q.rttDiff = (1-q.p.Alpha)*q.rttDiff + q.p.Alpha*newDiff
	gradient := q.rttDiff / float64(q.p.MinRTT)
	switch {
	case rtt < q.p.TLow:
		q.increase()
	case rtt > q.p.THigh:
		q.decrease(1 - q.p.Beta*(1-float64(q.p.THigh)/float64(rtt)))
	case gradient <= 0:
		q.increase()
	default:
		q.decrease(max(0, 1-q.p.Beta*gradient))
	}
}

func (q *State) increase() {
	step := q.p.RateAI
	if q.incStage >= haiStages {
		step = q.p.RateHAI
	}
	q.rate = min(q.env.LineRate, cc.AddRate(q.rate, step))
	q.incStage++
}

func (q *State) decrease(c float64) {
	q.rate = cc.ClampRate(cc.ScaleRate(q.rate, c), q.floor, q.env.LineRate)
	q.incStage = 0
}

// OnCNP does nothing: TIMELY does not use ECN.
func (q *State) OnCNP(engine.Time) {}

// OnTimer does nothing: TIMELY has no timers.
func (q *State) OnTimer(engine.Time) {}

// NextTimer is always Never.
func (q *State) NextTimer() engine.Time { return engine.Never }

// Rate is the current rate.
func (q *State) Rate() engine.Rate { return q.rate }

// Window is the reference window for the current rate (0: none).
func (q *State) Window() int64 { return cc.Window(q.env, q.p.HasWin, q.p.VarWin, q.rate) }
