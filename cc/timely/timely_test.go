package timely

import (
	"math"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/cc/cctest"
	"github.com/dcsim/dcsim/engine"
)

const us = engine.Microsecond

var env100 = cc.Env{LineRate: 100 * engine.Gbps, MinRate: engine.Gbps,
	BaseRTT: 8 * us, BDP: 100_000, MTU: 1000}

// risingRTT is a queue that grows without end: the RTT starts at 60 us
// (above T_low) and grows by 1 us every 10 us, so every per-RTT sample
// shows a positive gradient.
func risingRTT() cctest.Signal {
	start := engine.Never
	return func(fb *cc.Feedback, _ cctest.Packet) {
		start = min(start, fb.Now)
		fb.RTT = 60*us + (fb.Now-start)/10
	}
}

func TestConformance(t *testing.T) {
	for _, name := range []string{"timely", "timely_vwin"} {
		t.Run(name, func(t *testing.T) {
			p, err := Preset(name, env100.LineRate)
			if err != nil {
				t.Fatal(err)
			}
			// Relief: the loop's own RTT (8 us, below T_low): +100 Mb/s for
			// five RTTs, then +500 Mb/s per RTT, so from 1 Gbps to 90 Gbps
			// in about 180 RTTs = 1.4 ms.
			cctest.Run(t, Spec(p), env100, cctest.Congest(risingRTT),
				cctest.RecoverWithin(3*engine.Millisecond, 0.9))
		})
	}
}

// TestReferenceSequence walks one QP through every branch of docs/model.md
// §5.4 and checks each rate against the formula evaluated here.
func TestReferenceSequence(t *testing.T) {
	p := DefaultParams(env100.LineRate)
	q := New(p, env100)
	q.rate = 50 * engine.Gbps
	seq := int64(0)
	ack := func(rtt engine.Time) {
		seq += 10_000
		q.OnAck(&cc.Feedback{Now: engine.Time(seq), AckSeq: seq + 1, SndNxt: seq + 10_000, RTT: rtt})
	}
	ack(30 * us) // first RTT: remembered only
	if q.rate != 50*engine.Gbps || q.prevRTT != 30*us {
		t.Fatalf("after the first RTT: R %v prev %v, want 50Gbps 30us", q.rate, q.prevRTT)
	}
	// ACKs inside the RTT (ack <= last_update_seq) do nothing.
	q.OnAck(&cc.Feedback{Now: 1, AckSeq: q.lastUpdateSeq, SndNxt: q.lastUpdateSeq + 5000, RTT: 900 * us})
	if q.rate != 50*engine.Gbps || q.prevRTT != 30*us {
		t.Fatalf("after an in-RTT ACK: R %v prev %v, want unchanged", q.rate, q.prevRTT)
	}

	want := 50 * engine.Gbps
	var diff float64
	prev := 30 * us
	step := func(name string, rtt engine.Time, wantStage int) {
		t.Helper()
		diff = 0.125*diff + 0.875*float64(rtt-prev)
		grad := diff / float64(20*us)
		switch {
		case rtt < 50*us, rtt <= 500*us && grad <= 0:
			if q.incStage < 5 {
				want = min(100*engine.Gbps, want+100*engine.Mbps)
			} else {
				want = min(100*engine.Gbps, want+500*engine.Mbps)
			}
		case rtt > 500*us:
			want = max(engine.Gbps, engine.Rate(float64(want)*(1-0.8*(1-float64(500*us)/float64(rtt)))))
		default:
			want = max(engine.Gbps, engine.Rate(float64(want)*max(0, 1-0.8*grad)))
		}
		prev = rtt
		ack(rtt)
		if q.rate != want || q.incStage != wantStage {
			t.Errorf("%s (rtt %v): R %v stage %d, want %v stage %d", name, rtt, q.rate, q.incStage, want, wantStage)
		}
	}
	for i := 1; i <= 5; i++ {
		step("additive increase", 40*us, i) // below T_low
	}
	step("hyper increase", 45*us, 6)
	step("above T_high", 600*us, 0)
	step("falling RTT in band", 100*us, 1) // gradient < 0: increase
	step("rising RTT in band", 300*us, 0)  // gradient > 0: decrease
	step("rising fast", 490*us, 0)         // 1 - b*gradient < 0: R to the floor
	if q.rate != engine.Gbps {
		t.Errorf("after a steep rise: R %v, want the floor 1 Gbps", q.rate)
	}
}

func TestWindowAndSpec(t *testing.T) {
	p, _ := Preset("timely_vwin", env100.LineRate)
	q := New(p, env100)
	q.rate = 20 * engine.Gbps
	if got, want := q.Window(), env100.BDP/5; got != want {
		t.Errorf("Window() at 20 Gbps = %d, want %d", got, want)
	}
	if got := New(DefaultParams(env100.LineRate), env100).Window(); got != 0 {
		t.Errorf("Window() without has_win = %d, want 0", got)
	}
	s := Spec(DefaultParams(env100.LineRate))
	if s.Name != "timely" || s.HeaderBytes != 8 || s.NeedsINT || !s.NeedsTimestamp || s.INTMulti != 0 || s.ChangeRate {
		t.Errorf("Spec = %+v, want timely, 8 B, timestamps, no INT", s)
	}
	if _, err := Preset("timely_fast", env100.LineRate); err == nil {
		t.Error("Preset(timely_fast): got nil error, want one")
	}
}

func TestDefaultParamsScale(t *testing.T) {
	for _, tt := range []struct{ line, ai, hai engine.Rate }{
		{25 * engine.Gbps, 25 * engine.Mbps, 125 * engine.Mbps},
		{100 * engine.Gbps, 100 * engine.Mbps, 500 * engine.Mbps},
		{400 * engine.Gbps, 400 * engine.Mbps, 2000 * engine.Mbps},
	} {
		p := DefaultParams(tt.line)
		if p.RateAI != tt.ai || p.RateHAI != tt.hai {
			t.Errorf("%v: rate_ai %v rate_hai %v, want %v %v", tt.line, p.RateAI, p.RateHAI, tt.ai, tt.hai)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%v: Validate() = %v", tt.line, err)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		field string
		mut   func(*Params)
	}{
		{"alpha", func(p *Params) { p.Alpha = -0.1 }},
		{"alpha", func(p *Params) { p.Alpha = math.NaN() }},
		{"beta", func(p *Params) { p.Beta = 1.5 }},
		{"t_low", func(p *Params) { p.TLow = -1 }},
		{"t_high", func(p *Params) { p.THigh = 0 }},
		{"t_low", func(p *Params) { p.TLow = 600 * us }},
		{"min_rtt", func(p *Params) { p.MinRTT = 0 }},
		{"rate_ai", func(p *Params) { p.RateAI = -1 }},
		{"rate_hai", func(p *Params) { p.RateHAI = -1 }},
		{"min_rate", func(p *Params) { p.MinRate = 0 }},
	}
	for _, tt := range tests {
		p := DefaultParams(env100.LineRate)
		tt.mut(&p)
		if err := p.Validate(); cctest.ParamField(err) != tt.field {
			t.Errorf("%s: Validate() = %v, want a cc.ParamError for %s", tt.field, err, tt.field)
		}
	}
}

// BenchmarkOnAck: every fourth ACK starts a new RTT.
func BenchmarkOnAck(b *testing.B) {
	q := New(DefaultParams(env100.LineRate), env100)
	fb := cc.Feedback{}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		fb.Now = engine.Time(i) * 80 * engine.Nanosecond
		fb.AckSeq = int64(i) * 1000
		fb.SndNxt = int64(i+4) * 1000
		fb.RTT = 40*us + engine.Time(i%64)*us
		q.OnAck(&fb)
	}
}

// TestYAMLKeys pins the parameter names: every docs/model.md §5.4 parameter,
// snake_case, in documentation order.
func TestYAMLKeys(t *testing.T) {
	want := []string{"alpha", "beta", "t_low", "t_high", "min_rtt", "rate_ai", "rate_hai", "min_rate", "has_win", "var_win", "ack_high_prio"}
	if got := cctest.YAMLKeys(Params{}); !slices.Equal(got, want) {
		t.Errorf("yaml keys = %v, want %v", got, want)
	}
}
