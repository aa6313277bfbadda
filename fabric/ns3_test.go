package fabric

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

func TestNS3NodeIP(t *testing.T) {
	// third.cc node_id_to_ip; fct-dcqcn.txt names host 13 0b000d01.
	for _, c := range []struct {
		id   int
		want uint32
	}{{0, 0x0b000001}, {13, 0x0b000d01}, {127, 0x0b007f01}, {300, 0x0b012c01}} {
		if got := NS3NodeIP(c.id); got != c.want {
			t.Errorf("NS3NodeIP(%d) = %#x, want %#x", c.id, got, c.want)
		}
	}
}

// TestNS3ECMP checks the reference hash's inputs on the reference
// topology (8 leaves x 16 hosts, 8 spines; leaves are nodes 128..135, and
// a leaf's spine ports follow its 16 host ports in spine order): the
// chosen spine is EcmpHash over the 12 bytes (sip, dip, sport|dport<<16),
// seeded with the leaf's node id, modulo 8, counted from spine 143 down
// (the reference lists next hops by decreasing node id; NS3ECMP doc), for
// data and for its ACK. In the reference's packet trace, 13->79 leaves leaf
// 128 for spine 136 and 125->34 leaves leaf 135 for spine 136.
func TestNS3ECMP(t *testing.T) {
	topo, err := SpineLeaf(SpineLeafConfig{Leaves: 8, HostsPerLeaf: 16, Spines: 8,
		HostLink: 100 * engine.Gbps, FabricLink: 100 * engine.Gbps, Delay: engine.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	r := NewNS3ECMP(topo)
	n, err := Build(engine.NewSim(1), topo, Config{Buffer: 1 << 20, PFC: true, Reserve: 4096, ResumeOffset: 3072,
		Weights: [NumClasses]int32{1, 1, 1, 1, 1, 1, 1, 1}, Router: r})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ src, dst, sport, dport int }{
		{13, 79, 10000, 100}, {79, 13, 100, 10000}, {91, 20, 10000, 100}, {125, 34, 10001, 100},
	} {
		leaf := n.Switches[c.src/16]
		var key [12]byte
		binary.LittleEndian.PutUint32(key[0:], 0x0b000001+uint32(c.src)<<8)
		binary.LittleEndian.PutUint32(key[4:], 0x0b000001+uint32(c.dst)<<8)
		binary.LittleEndian.PutUint32(key[8:], uint32(c.sport)|uint32(c.dport)<<16)
		want := 23 - int(murmurBytes(key[:], uint32(128+c.src/16))%8)
		p := &Packet{Src: int32(c.src), Dst: int32(c.dst), SPort: uint16(c.sport), DPort: uint16(c.dport)}
		if got := r.Route(leaf, p, 0); got != want {
			t.Errorf("%d->%d ports %d/%d at leaf %d: port %d, want %d", c.src, c.dst, c.sport, c.dport, leaf.ID, got, want)
		}
	}
}

// TestReadTopologyFileNodeIDs: hosts and switches keep their file ids.
func TestReadTopologyFileNodeIDs(t *testing.T) {
	// Node 1 is a switch between hosts 0 and 2: dcsim hosts 0, 1 are file
	// nodes 0, 2 and dcsim switch 2 is file node 1.
	topo, err := ReadTopologyFile("t", strings.NewReader("3 1 2\n1\n0 1 100Gbps 1000ns 0\n2 1 100Gbps 1000ns 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range []int{0, 2, 1} {
		if got := topo.NodeID(v); got != want {
			t.Errorf("NodeID(%d) = %d, want %d", v, got, want)
		}
	}
}

// ns3Star is a 2-host 100G star, with the profile's switch settings
// (WholeNs, NS3EventOrder) when ns3.
func ns3Star(t *testing.T, ns3 bool) (*engine.Sim, *Network) {
	t.Helper()
	topo, err := Star(2, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.WholeNs, cfg.NS3EventOrder = ns3, ns3
	sim := engine.NewSim(1)
	n, err := Build(sim, topo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim, n
}

// TestWholeNsTransmit: with Config.WholeNs a 1048 B packet takes 83 ns at
// 100 Gbps (ns-3), not 83.84; exact otherwise.
func TestWholeNsTransmit(t *testing.T) {
	for _, c := range []struct {
		wholeNs bool
		want    engine.Time
	}{{false, 83840}, {true, 83000}} {
		_, n := ns3Star(t, c.wholeNs)
		pt := n.HostPorts[0]
		if got := pt.TxTime(1048); got != c.want {
			t.Errorf("wholeNs %v: TxTime(1048) = %d ps, want %d", c.wholeNs, got, c.want)
		}
		if got, want := pt.TxTime(60), map[bool]engine.Time{false: 4800, true: 4000}[c.wholeNs]; got != want {
			t.Errorf("wholeNs %v: TxTime(60) = %d ps, want %d", c.wholeNs, got, want)
		}
	}
}

// oneShot sends n 1048 B packets to host 1, then nothing.
type oneShot struct {
	pool *Pool
	n    int
}

func (s *oneShot) Next(engine.Time) *Packet {
	if s.n == 0 {
		return nil
	}
	s.n--
	p := s.pool.Get()
	p.Kind, p.Class, p.Size, p.Payload, p.Src, p.Dst = Data, 3, 1048, 1000, 0, 1
	return p
}
func (s *oneShot) HasMore() bool { return s.n > 0 }

type arrivals struct {
	pool *Pool
	at   []engine.Time
}

func (a *arrivals) Receive(now engine.Time, p *Packet, _ *Port) {
	a.at = append(a.at, now)
	a.pool.Put(p)
}

// TestWholeNsDelivery: three back-to-back packets through one switch
// arrive 2 x (serialization + 1 us) after they start, then one
// serialization apart: 83 ns per hop with the profile's settings (one
// delivery event per packet, as ns-3's channel), 83.84 ns without.
func TestWholeNsDelivery(t *testing.T) {
	for _, c := range []struct {
		ns3 bool
		tx  engine.Time
	}{{false, 83840}, {true, 83000}} {
		sim, n := ns3Star(t, c.ns3)
		rx := &arrivals{pool: n.Pool}
		pt := n.Attach(0, rx, &oneShot{pool: n.Pool, n: 3})
		n.Attach(1, rx, nil)
		pt.Kick(0)
		sim.Run(engine.Millisecond)
		if len(rx.at) != 3 {
			t.Fatalf("ns3 %v: %d arrivals, want 3", c.ns3, len(rx.at))
		}
		for i, got := range rx.at {
			if want := 2*(c.tx+engine.Microsecond) + engine.Time(i)*c.tx; got != want {
				t.Errorf("ns3 %v: packet %d arrived at %d ps, want %d", c.ns3, i, got, want)
			}
		}
	}
}

// TestNS3Rand: the reference run's first ECN draws, as its instrumented
// build printed them (switch 138, port 7, at 84.1 µs and the next two
// packets), are the first outputs of MRG32k3a streams 866, 867 and 868 at
// RngSeed 1 and RngRun 1: third.cc's set-up takes 866 streams (6 per node
// of the 144, and 2) before the first draw.
func TestNS3Rand(t *testing.T) {
	r := NewNS3Rand(1, 1)
	r.Skip(6*144 + 2)
	for i, want := range []float64{0.50365334254687077, 0.74045159295525675, 0.43280376890282707} {
		if got := r.Float64(); got != want {
			t.Errorf("draw %d: got %.17g, want %.17g", i, got, want)
		}
	}
	if r.Streams != 869 {
		t.Errorf("got %d streams taken, want 869", r.Streams)
	}
	// A different RngRun is a different substream: other draws.
	if u := NewNS3Rand(1, 2).Float64(); u == NewNS3Rand(1, 1).Float64() || u < 0 || u >= 1 {
		t.Errorf("RngRun 2: first draw %v", u)
	}
}
