package none

import (
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/cc/cctest"
	"github.com/dcsim/dcsim/engine"
)

var env100 = cc.Env{LineRate: 100 * engine.Gbps, MinRate: engine.Gbps,
	BaseRTT: 8 * engine.Microsecond, BDP: 100_000, MTU: 1000}

func TestConformance(t *testing.T) {
	cctest.Run(t, Spec(DefaultParams(env100.LineRate)), env100)
}

func TestLineRateAlways(t *testing.T) {
	q := New(env100)
	q.OnAck(&cc.Feedback{Now: engine.Microsecond, AckSeq: 1000, SndNxt: 5000, ECE: true, RTT: engine.Millisecond})
	q.OnCNP(2 * engine.Microsecond)
	if got, want := q.Rate(), env100.LineRate; got != want {
		t.Errorf("Rate() = %v, want %v", got, want)
	}
	if got := q.Window(); got != 0 {
		t.Errorf("Window() = %d, want 0", got)
	}
	if got := q.NextTimer(); got != engine.Never {
		t.Errorf("NextTimer() = %v, want never", got)
	}
	if err := DefaultParams(env100.LineRate).Validate(); err != nil {
		t.Errorf("Validate() = %v, want nil", err)
	}
}

func BenchmarkOnAck(b *testing.B) {
	q := New(env100)
	fb := cc.Feedback{AckSeq: 1000, SndNxt: 100_000}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		fb.Now = engine.Time(i) * 80 * engine.Nanosecond
		fb.AckSeq += 1000
		fb.SndNxt += 1000
		q.OnAck(&fb)
	}
}
