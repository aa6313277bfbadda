package fabric

import (
	"fmt"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// TestIngressModes: Build picks the flow-control mode from the
// configuration, credits before PFC before lossy.
func TestIngressModes(t *testing.T) {
	for _, c := range []struct {
		pfc     bool
		credits int64
		want    string
	}{
		{true, 0, "*fabric.pfc"},
		{false, 0, "*fabric.lossy"},
		{false, 64_000, "*fabric.creditLinks"},
		{true, 64_000, "*fabric.creditLinks"},
	} {
		topo, err := Star(2, 100*engine.Gbps, engine.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.PFC, cfg.Credits, cfg.MaxFrame = c.pfc, c.credits, 1048
		n, err := Build(engine.NewSim(1), topo, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%T", n.ingress); got != c.want {
			t.Errorf("pfc %v, credits %d: mode %s, want %s", c.pfc, c.credits, got, c.want)
		}
	}
}

// counting is a test-only flow-control mode: it admits everything and
// counts what it admitted and released.
type counting struct{ admitted, released *int64 }

func (m counting) admit(_ engine.Time, s *Switch, p *Packet, _ int, _ *Port) bool {
	s.mmu.used += int64(p.Size)
	*m.admitted += int64(p.Size)
	return true
}

func (m counting) release(_ engine.Time, _ *Switch, p *Packet) { *m.released += int64(p.Size) }

func (counting) check(*Switch) error { return nil }

// TestIngressModePlugin: a mode is its type and one line in ingressModes.
// A test-only one that every configuration selects sees every data
// packet's admission and release, and the switch holds exactly their
// difference.
func TestIngressModePlugin(t *testing.T) {
	var admitted, released int64
	defer func(m []ingressMode) { ingressModes = m }(ingressModes)
	ingressModes = append([]ingressMode{{"counting", func(*Config) bool { return true },
		func(*Network) ingress { return counting{&admitted, &released} }}}, ingressModes...)
	sim, n, pt := pumpStar(t)
	pt.Kick(0)
	sim.Run(10 * engine.Microsecond)
	if admitted == 0 || released == 0 {
		t.Fatalf("admitted %d B, released %d B: the mode saw no traffic", admitted, released)
	}
	if held := n.Switches[0].BufferUsed(); admitted-released != held {
		t.Errorf("admitted %d B - released %d B = %d, want the %d B the switch holds", admitted, released, admitted-released, held)
	}
	if err := n.Check(); err != nil {
		t.Error(err)
	}
}

// TestSwitchDraws: the default draws take nothing for a packet RED does
// not judge or for a PFC frame; NS3Rand takes a stream for each, as
// ns-3's ShouldSendCN and SendPfc create a random variable each.
func TestSwitchDraws(t *testing.T) {
	r := NewNS3Rand(1, 1)
	var d switchDraws = r
	d.redPass()
	d.pfcFrame()
	if r.Streams != 2 {
		t.Errorf("NS3Rand took %d streams for a pass and a PFC frame, want 2", r.Streams)
	}
	if u := d.red(); r.Streams != 3 || u < 0 || u >= 1 {
		t.Errorf("a draw: %v, streams %d; want in [0, 1) and 3 streams", u, r.Streams)
	}
	calls := 0
	s := streamDraws(func() float64 { calls++; return 0.5 })
	s.redPass()
	s.pfcFrame()
	if calls != 0 {
		t.Errorf("the stream was drawn %d times for a pass and a PFC frame, want 0", calls)
	}
	if s.red() != 0.5 || calls != 1 {
		t.Errorf("a draw took %d draws from the stream, want 1", calls)
	}
}
