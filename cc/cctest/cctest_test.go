package cctest

import (
	"errors"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

var env = cc.Env{LineRate: 100 * engine.Gbps, MinRate: engine.Gbps,
	BaseRTT: 8 * engine.Microsecond, BDP: 100_000, MTU: 1000}

// toy is a small, correct algorithm: it halves its rate on ECE (at most
// once per 10 us), adds 1 Gbps every 10 us otherwise, and uses a timer to
// do so. The broken variants below each violate one property.
type toy struct {
	env   cc.Env
	rate  engine.Rate
	next  engine.Time
	last  engine.Time
	fault string
	kept  []fabric.INTHop
	count *int
}

func (a *toy) OnAck(fb *cc.Feedback) {
	if a.fault == "retain" && fb.INT != nil {
		if len(a.kept) > 0 {
			a.rate = min(a.env.LineRate, a.env.MinRate+engine.Rate(a.kept[0].QLen%1000)*engine.Mbps)
		}
		a.kept = fb.INT
	}
	if a.fault == "modify" && len(fb.INT) > 0 {
		fb.INT[0].QLen++
	}
	if a.fault == "alloc" {
		a.kept = make([]fabric.INTHop, 1)
	}
	if a.fault == "global" {
		*a.count++
		if *a.count%7 == 0 {
			a.rate = max(a.env.MinRate, a.rate-engine.Gbps)
		}
	}
	if fb.ECE && fb.Now >= a.last+10*engine.Microsecond {
		a.last = fb.Now
		switch a.fault {
		case "below":
			a.rate = a.env.MinRate / 2
		case "deaf":
		default:
			a.rate = max(a.env.MinRate, a.rate/2)
		}
	}
	if a.next == engine.Never {
		a.next = fb.Now + 10*engine.Microsecond
	}
}
func (a *toy) OnCNP(now engine.Time) {
	if a.fault == "above" {
		a.rate += engine.Gbps
	}
}
func (a *toy) OnTimer(now engine.Time) {
	if a.fault == "stuck" && a.next <= now {
		return // never moves its timer
	}
	for a.next <= now {
		a.next += 10 * engine.Microsecond
		if a.fault != "sticky" {
			a.rate = min(a.env.LineRate, a.rate+engine.Gbps)
		}
	}
}
func (a *toy) NextTimer() engine.Time { return a.next }
func (a *toy) Rate() engine.Rate      { return a.rate }
func (a *toy) Window() int64 {
	if a.fault == "negwin" {
		return -1
	}
	return 0
}

func toySpec(fault string) cc.Spec {
	count := new(int)
	return cc.Spec{Name: "toy-" + fault, New: func(env cc.Env) cc.Algorithm {
		return &toy{env: env, rate: env.LineRate, next: engine.Never, fault: fault, count: count}
	}}
}

func eceEveryAck() Signal { return func(fb *cc.Feedback, _ Packet) { fb.ECE = true } }

func TestRunCorrectToy(t *testing.T) {
	Run(t, toySpec(""), env, Congest(eceEveryAck), Sequences(50, 300))
}

// TestChecksCatchFaults runs each check on an algorithm with one fault and
// wants an error mentioning what broke.
func TestChecksCatchFaults(t *testing.T) {
	bounds := func(s cc.Spec) error { return CheckBounds(s, env, 1, 50, 300) }
	tests := []struct {
		fault string
		check func(cc.Spec) error
		want  string
	}{
		{"below", bounds, "Rate()"},
		{"above", bounds, "Rate()"},
		{"negwin", bounds, "Window()"},
		{"stuck", bounds, "NextTimer()"},
		{"modify", func(s cc.Spec) error { return CheckBounds(s, env, 1, 5, 300) }, "modified Feedback.INT"},
		{"retain", func(s cc.Spec) error { return CheckINT(s, env, 1, 300) }, "scribbled INT"},
		{"global", func(s cc.Spec) error { return CheckDeterministic(s, env, 1, 300) }, "second run"},
		{"alloc", func(s cc.Spec) error { return CheckNoAllocs(s, env, 1) }, "allocations"},
		{"deaf", func(s cc.Spec) error {
			_, err := CheckCongestion(s, env, eceEveryAck, nil, engine.Millisecond, engine.Millisecond, 0.9)
			return err
		}, "congestion signals"},
		{"sticky", func(s cc.Spec) error {
			_, err := CheckCongestion(s, env, eceEveryAck, nil, engine.Millisecond, 5*engine.Millisecond, 0.9)
			return err
		}, "after congestion stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			err := tt.check(toySpec(tt.fault))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestCheckStart(t *testing.T) {
	s := toySpec("")
	slow := cc.Spec{Name: "slow", New: func(e cc.Env) cc.Algorithm {
		a := s.New(e).(*toy)
		a.rate = e.LineRate / 2
		return a
	}}
	if err := CheckStart(slow, env); err == nil || !strings.Contains(err.Error(), "initial Rate()") {
		t.Errorf("got %v, want an initial-rate error", err)
	}
	if err := CheckStart(s, env); err != nil {
		t.Errorf("got %v, want nil", err)
	}
}

// TestLoopPacing checks the toy loop itself: at a fixed rate and no
// window it sends one packet per serialization time and ACKs each one
// BaseRTT later.
func TestLoopPacing(t *testing.T) {
	spec := toySpec("")
	a := spec.New(env)
	l := NewLoop(spec, env, a)
	var sent []engine.Time
	sig := func(fb *cc.Feedback, p Packet) { sent = append(sent, fb.Now-p.SentAt) }
	if err := l.Run(100*engine.Microsecond, sig, nil); err != nil {
		t.Fatal(err)
	}
	// 100 us at 100 Gbps with 1000 B packets: 1250 packets sent; those sent
	// in the last 8 us are not yet ACKed (the one at exactly 92 us is).
	if got, want := l.Acks(), 1151; got != want {
		t.Errorf("Acks() = %d, want %d", got, want)
	}
	for i, d := range sent {
		if d != env.BaseRTT {
			t.Fatalf("ACK %d came %v after its packet, want %v", i, d, env.BaseRTT)
		}
	}
}

func TestYAMLKeysAndParamField(t *testing.T) {
	type params struct {
		RateAI  engine.Rate `yaml:"rate_ai"`
		Timer   engine.Time `yaml:"timer,omitempty"`
		NoTag   int
		Bad     bool `yaml:"hasWin"`
		private int
	}
	got := YAMLKeys(&params{private: 1})
	want := []string{"rate_ai", "timer", "!NoTag", "!hasWin"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("YAMLKeys = %v, want %v", got, want)
	}
	if f := ParamField(cc.ParamErrorf("x", "rate_ai", "bad")); f != "rate_ai" {
		t.Errorf("ParamField = %q, want rate_ai", f)
	}
	if f := ParamField(errors.New("plain")); f != "" {
		t.Errorf("ParamField(plain error) = %q, want empty", f)
	}
}
