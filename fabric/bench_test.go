package fabric

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// sink is a Node that returns every packet to the pool.
type sink struct{ pool *Pool }

func (s sink) Receive(_ engine.Time, p *Packet, _ *Port) { s.pool.Put(p) }

// pump is a Source that always has a 1048 B data packet for host 1.
type pump struct{ pool *Pool }

func (s pump) Next(engine.Time) *Packet {
	p := s.pool.Get()
	p.Kind, p.Class, p.Size, p.Payload, p.Src, p.Dst = Data, 3, 1048, 1000, 0, 1
	return p
}
func (pump) HasMore() bool { return true }

// pumpStar builds a 2-host 100G star with host 0 pumping packets at line
// rate and host 1 a sink; the pumping port is returned unkicked.
func pumpStar(tb testing.TB) (*engine.Sim, *Network, *Port) {
	tb.Helper()
	topo, err := Star(2, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		tb.Fatal(err)
	}
	sim := engine.NewSim(1)
	n, err := Build(sim, topo, DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	pt := n.Attach(0, sink{n.Pool}, pump{n.Pool})
	n.Attach(1, sink{n.Pool}, nil)
	return sim, n, pt
}

// benchPackets warms up for 10 us, then runs until pt has sent b.N more
// packets.
func benchPackets(b *testing.B, sim *engine.Sim, pt *Port) {
	sim.Run(10 * engine.Microsecond)
	b.ReportAllocs()
	b.ResetTimer()
	start := pt.TxPackets
	for pt.TxPackets-start < int64(b.N) {
		sim.Run(sim.Now() + engine.Microsecond)
	}
}

// BenchmarkSwitchPath drives host 0 -> switch -> host 1 at line rate: per
// packet one NIC transmission, one wire delivery into the switch
// (admission, routing, enqueue), one dequeue (ECN, buffer release) and
// transmission, and one delivery to the sink. It measures link transmit
// and switch enqueue/dequeue with no transport on top.
func BenchmarkSwitchPath(b *testing.B) {
	sim, _, pt := pumpStar(b)
	pt.Kick(0)
	benchPackets(b, sim, pt)
}

func TestSwitchPathNoAllocs(t *testing.T) {
	sim, _, pt := pumpStar(t)
	pt.Kick(0)
	sim.Run(10 * engine.Microsecond)
	if a := testing.AllocsPerRun(50, func() { sim.Run(sim.Now() + engine.Microsecond) }); a != 0 {
		t.Fatalf("%.1f allocations per simulated microsecond, want 0", a)
	}
}

// BenchmarkLinkTransmit is one link alone: host 0's port sends at line rate
// and its far end hands each packet straight to a sink (the switch is cut
// out), so per packet it costs one transmission (serialization, wire
// push, transmit-done event), one delivery event and the pool's get and
// put.
func BenchmarkLinkTransmit(b *testing.B) {
	sim, n, pt := pumpStar(b)
	pt.peerOwner = sink{n.Pool} // deliver to a sink instead of the switch
	pt.Kick(0)
	benchPackets(b, sim, pt)
}
