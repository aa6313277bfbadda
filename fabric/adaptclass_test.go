package fabric

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// toClass7 routes as ECMP and moves every class-3 data packet to class 7,
// as congestion isolation moves an adapted packet into the AFC at the
// switch that adapts it.
type toClass7 struct{ ECMP }

func (r toClass7) Route(sw *Switch, p *Packet, in int) int {
	if p.Kind == Data && p.Class == 3 {
		p.Class = 7
	}
	return r.ECMP.Route(sw, p, in)
}

// A packet whose class changes at a switch (adapted there) occupies the
// input buffer of the class it arrived in until it leaves, as in an
// input-buffered switch with per-VC input buffers (the ARN+AFI paper's):
// the AFC begins at the next switch's input. So when its new class is
// held up downstream, the old class's input fills and PAUSEs (or, with
// credits, stalls) that class upstream; the new class upstream is never
// held back.
func TestAdaptedPacketHoldsItsArrivalClass(t *testing.T) {
	for _, credits := range []int64{0, 32 * 1048} {
		topo, err := Star(3, 100*engine.Gbps, engine.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		sim := engine.NewSim(1)
		cfg := DefaultConfig()
		cfg.Buffer, cfg.Headroom, cfg.MaxFrame, cfg.Router = engine.MiB, HeadroomSized, 1048, toClass7{}
		cfg.Credits = credits
		n, err := Build(sim, topo, cfg)
		if err != nil {
			t.Fatal(err)
		}
		src := &obedient{pool: n.Pool, dst: 2}
		src.pt = n.Attach(0, pfcSink{n.Pool}, src)
		n.Attach(1, sink{n.Pool}, nil)
		n.Attach(2, sink{n.Pool}, nil)
		sw := n.Switches[0]
		out := sw.Ports[n.hostPort[2]]
		out.SetPaused(0, 7, true) // the receiver holds class 7
		src.pt.Kick(0)
		sim.Run(100 * engine.Microsecond)
		in := int(n.hostPort[0])
		if got, want := sw.IngressBytes(in, 3), out.QueueBytes(7); got != want || got == 0 {
			t.Errorf("credits %d: input class 3 holds %d B, egress class 7 %d B; want equal and positive", credits, got, want)
		}
		if got := sw.IngressBytes(in, 7); got != 0 {
			t.Errorf("credits %d: input class 7 holds %d B, want 0 (the AFC starts downstream)", credits, got)
		}
		if !src.pt.Paused(3) || src.pt.Paused(7) {
			t.Errorf("credits %d: sender's class 3 held %v, class 7 %v; want true, false", credits, src.pt.Paused(3), src.pt.Paused(7))
		}
		if credits > 0 && (sw.PauseSent != 0 || sw.IngressBytes(in, 3) != credits) {
			t.Errorf("credits %d: %d PAUSEs, input class 3 holds %d B; want none and exactly the credits", credits, sw.PauseSent, sw.IngressBytes(in, 3))
		}
		if credits == 0 && sw.PauseSent == 0 {
			t.Error("PFC: no PAUSE sent, want class 3 paused upstream")
		}
		if err := n.Check(); err != nil {
			t.Errorf("credits %d: %v", credits, err)
		}
	}
}
