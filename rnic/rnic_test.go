package rnic_test

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

func star(t testing.TB, n int) *fabric.Topology {
	t.Helper()
	topo, err := fabric.Star(n, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// One packet host -> switch -> host: each hop costs serialization of the
// 1048 B frame (83.84 ns at 100 Gbps) plus 1 us propagation; the 60 B ACK
// comes back the same way (4.8 ns per hop). Exact to the picosecond.
func TestOnePacketTiming(t *testing.T) {
	r := newRig(t, star(t, 2), fabric.DefaultConfig(), nil)
	m := r.postAt(0, 0, 1, 1000)
	r.sim.Run(engine.Second)
	if !m.Done {
		t.Fatal("message not done")
	}
	data := 2 * (engine.Time(1048*80) + engine.Microsecond)
	ack := 2 * (engine.Time(60*80) + engine.Microsecond)
	if got, want := m.FCT(), data+ack; got != want {
		t.Fatalf("fct = %v, want %v", got, want)
	}
}

// A long single flow's goodput is line rate * payload/(payload+48).
func TestLongFlowGoodput(t *testing.T) {
	r := newRig(t, star(t, 2), fabric.DefaultConfig(), nil)
	const size = 100_000_000
	m := r.postAt(0, 0, 1, size)
	r.sim.Run(engine.Second)
	if !m.Done {
		t.Fatal("message not done")
	}
	want := 100e9 * 1000.0 / 1048.0
	got := float64(size*8) / m.FCT().Seconds()
	if d := (got - want) / want; d > 0.005 || d < -0.005 {
		t.Fatalf("goodput %.4g b/s, want %.4g within 0.5%%", got, want)
	}
	t.Logf("goodput %.6g b/s (%.4f%% of the header-limited rate), %d events", got, 100*got/want, r.sim.Events())
}
