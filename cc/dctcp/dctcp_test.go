package dctcp

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

func eceEveryAck() cctest.Signal { return func(fb *cc.Feedback, _ cctest.Packet) { fb.ECE = true } }

func TestConformance(t *testing.T) {
	// Recovery: +615 Mb/s per window (one RTT, 8 us in the loop), so from
	// the 1 Gbps floor to 90 Gbps in about 145 RTTs = 1.2 ms.
	cctest.Run(t, Spec(DefaultParams(env100.LineRate)), env100,
		cctest.Congest(eceEveryAck), cctest.RecoverWithin(3*engine.Millisecond, 0.9))
	t.Run("no-window", func(t *testing.T) {
		p := DefaultParams(env100.LineRate)
		p.HasWin, p.VarWin = false, false
		cctest.Run(t, Spec(p), env100,
			cctest.Congest(eceEveryAck), cctest.RecoverWithin(3*engine.Millisecond, 0.9))
	})
}

// TestReferenceSequence follows docs/model.md §5.5 step by step.
func TestReferenceSequence(t *testing.T) {
	q := New(DefaultParams(env100.LineRate), env100)
	q.rate = 50 * engine.Gbps
	const ai = 615 * engine.Mbps
	type step struct {
		name      string
		ack, nxt  int64
		ece       bool
		wantRate  engine.Rate
		wantAlpha float64
		wantCWR   bool
	}
	a1 := 15.0/16*1 + 1.0/16*(2.0/11)  // 2 marks in a first window of 11 packets
	a2 := 15.0/16*a1 + 1.0/16*(1.0/20) // 1 mark in a window of 20
	cut1 := engine.Rate(float64(50*engine.Gbps+ai) * (1 - 1.0/2))
	cut2 := engine.Rate(float64(cut1) * (1 - a2/2))
	steps := []step{
		{"first window: AI", 1000, 10_000, false, 50*engine.Gbps + ai, 1, false},
		{"mark: cut, CWR", 2000, 12_000, true, cut1, 1, true},
		{"mark in CWR: nothing", 3000, 12_000, true, cut1, 1, true},
		{"new window in CWR: alpha, no AI", 10_001, 30_000, false, cut1, a1, true},
		{"leave CWR, no new window", 12_001, 31_000, false, cut1, a1, false},
		{"new window with a mark: alpha, cut", 30_001, 40_000, true, cut2, a2, true},
	}
	for _, s := range steps {
		q.OnAck(&cc.Feedback{AckSeq: s.ack, SndNxt: s.nxt, ECE: s.ece})
		if q.Rate() != s.wantRate || math.Abs(q.Alpha()-s.wantAlpha) > 1e-15 || q.cwr != s.wantCWR {
			t.Errorf("%s: R %v alpha %v CWR %v, want %v %v %v", s.name, q.Rate(), q.Alpha(), q.cwr, s.wantRate, s.wantAlpha, s.wantCWR)
		}
	}
	if q.batch != 10 {
		t.Errorf("batch = %d, want (40000-30001)/1000 + 1 = 10", q.batch)
	}
}

func TestStandaloneCNP(t *testing.T) {
	q := New(DefaultParams(env100.LineRate), env100)
	q.OnAck(&cc.Feedback{AckSeq: 1000, SndNxt: 8000})
	q.OnCNP(us)
	if got, want := q.Rate(), env100.LineRate/2; got != want {
		t.Errorf("R after a CNP at alpha 1 = %v, want %v", got, want)
	}
	q.OnCNP(2 * us) // in CWR until 8000 is ACKed
	if got, want := q.Rate(), env100.LineRate/2; got != want {
		t.Errorf("R after a second CNP in CWR = %v, want %v", got, want)
	}
	if q.ecnCnt != 2 {
		t.Errorf("marks counted = %d, want 2", q.ecnCnt)
	}
}

func TestFloorAndWindow(t *testing.T) {
	q := New(DefaultParams(env100.LineRate), env100)
	for i := int64(1); i < 200; i++ { // a mark on every window
		q.OnAck(&cc.Feedback{AckSeq: i * 10_000, SndNxt: i*10_000 + 5000, ECE: true})
	}
	if got := q.Rate(); got != engine.Gbps {
		t.Errorf("R after 200 marked windows = %v, want the floor 1 Gbps", got)
	}
	if got, want := q.Window(), env100.BDP/100; got != want {
		t.Errorf("Window() at 1 Gbps = %d, want %d", got, want)
	}
}

func TestDefaultsAndValidate(t *testing.T) {
	p := DefaultParams(400 * engine.Gbps)
	if p.RateAI != 615*engine.Mbps || p.EWMAGain != 1.0/16 || p.AlphaInit != 1 || !p.HasWin || !p.VarWin || p.AckHighPrio {
		t.Errorf("DefaultParams = %+v, want 615 Mb/s, g 1/16, alpha 1, var window, low-priority ACKs", p)
	}
	s := Spec(p)
	if s.Name != "dctcp" || s.HeaderBytes != 0 || s.NeedsINT || s.NeedsTimestamp || s.INTMulti != 0 || s.ChangeRate {
		t.Errorf("Spec = %+v, want dctcp with no header, INT or timestamps", s)
	}
	tests := []struct {
		field string
		mut   func(*Params)
	}{
		{"ewma_gain", func(p *Params) { p.EWMAGain = 0 }},
		{"ewma_gain", func(p *Params) { p.EWMAGain = math.Inf(1) }},
		{"alpha_init", func(p *Params) { p.AlphaInit = -1 }},
		{"rate_ai", func(p *Params) { p.RateAI = -1 }},
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

// BenchmarkOnAck: every eighth ACK starts a window, every sixteenth is marked.
func BenchmarkOnAck(b *testing.B) {
	q := New(DefaultParams(env100.LineRate), env100)
	fb := cc.Feedback{}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		fb.Now = engine.Time(i) * 80 * engine.Nanosecond
		fb.AckSeq = int64(i+1) * 1000
		fb.SndNxt = int64(i+8) * 1000
		fb.ECE = i%16 == 0
		q.OnAck(&fb)
	}
}

// TestYAMLKeys pins the parameter names: every docs/model.md §5.5 parameter,
// snake_case, in documentation order.
func TestYAMLKeys(t *testing.T) {
	want := []string{"ewma_gain", "alpha_init", "rate_ai", "min_rate", "has_win", "var_win", "ack_high_prio"}
	if got := cctest.YAMLKeys(Params{}); !slices.Equal(got, want) {
		t.Errorf("yaml keys = %v, want %v", got, want)
	}
}
