package fabric

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// countingSink counts the data packets delivered per source host.
type countingSink struct {
	pool *Pool
	got  map[int32]int
}

func (s *countingSink) Receive(now engine.Time, p *Packet, in *Port) {
	if p.Kind == PFC {
		in.SetPaused(now, uint8(p.Arg), p.Pause)
	} else if p.Kind == Data {
		s.got[p.Src]++
	}
	s.pool.Put(p)
}

// flowSource sends 1048 B data packets of one flow (src, dst, sport) at
// line rate while class 3 is not paused.
type flowSource struct {
	pool     *Pool
	pt       *Port
	src, dst int32
	sport    uint16
}

func (s *flowSource) Next(engine.Time) *Packet {
	if s.pt.Paused(3) {
		return nil
	}
	p := s.pool.Get()
	p.Kind, p.Class, p.Size, p.Payload, p.Src, p.Dst, p.SPort = Data, 3, 1048, 1000, s.src, s.dst, s.sport
	return p
}
func (s *flowSource) HasMore() bool { return true }

// collidingPorts finds UDP source ports for flows 0->2 and 1->3 that ECMP
// (salt 0) hashes onto the same up port of leaf 0 in a 2-leaf, 2-spine
// spine-leaf (leaf 0 is switch id 4).
func collidingPorts() (uint16, uint16) {
	for a := uint16(1); ; a++ {
		ha := Murmur3(0, 2, uint32(a), 4) % 2
		for b := uint16(1); b < 64; b++ {
			if Murmur3(1, 3, uint32(b), 4)%2 == ha {
				return a, b
			}
		}
	}
}

// Two line-rate flows from leaf 0 to two hosts of leaf 1 through two
// spines, every link 100 Gbps and 1 us. ECMP puts both on one up port, so
// each gets half of it; adaptive routing (per packet, and per flowlet with
// back-to-back packets, where the first decision sticks) puts them on
// different spines and each gets the full line. Expected counts by
// time T: a packet takes 83.84 ns per hop to serialise plus 1 us, four
// hops, so the first arrives at 4 x 1083.84 = 4335.36 ns; at full rate one
// follows every 83.84 ns, at half rate every 167.68 ns (the shared up
// port's FIFO alternates the flows, the second flow one packet behind).
func TestAdaptiveBalancesCollision(t *testing.T) {
	const T = 100 * engine.Microsecond
	first := 4 * (engine.Time(1048)*80 + engine.Microsecond)
	tx := engine.Time(1048) * 80
	full := int((T-first)/tx) + 1
	half0 := int((T-first)/(2*tx)) + 1
	half1 := int((T-first-tx)/(2*tx)) + 1
	sa, sb := collidingPorts()
	for _, tc := range []struct {
		name        string
		router      Router
		want0, wnt1 int
	}{
		{"ecmp", ECMP{}, half0, half1},
		{"adaptive per packet", &Adaptive{}, full, full},
		{"adaptive per flowlet", &Adaptive{FlowletGap: engine.Microsecond}, full, full},
	} {
		topo, err := SpineLeaf(SpineLeafConfig{Leaves: 2, HostsPerLeaf: 2, Spines: 2,
			HostLink: 100 * engine.Gbps, FabricLink: 100 * engine.Gbps, Delay: engine.Microsecond})
		if err != nil {
			t.Fatal(err)
		}
		sim := engine.NewSim(1)
		cfg := DefaultConfig()
		cfg.Router = tc.router
		n, err := Build(sim, topo, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if n.Switches[0].ID != 4 {
			t.Fatalf("leaf 0 has id %d, want 4", n.Switches[0].ID)
		}
		sinkA := &countingSink{pool: n.Pool, got: map[int32]int{}}
		sinkB := &countingSink{pool: n.Pool, got: map[int32]int{}}
		srcA := &flowSource{pool: n.Pool, src: 0, dst: 2, sport: sa}
		srcB := &flowSource{pool: n.Pool, src: 1, dst: 3, sport: sb}
		srcA.pt = n.Attach(0, pfcSink{n.Pool}, srcA)
		srcB.pt = n.Attach(1, pfcSink{n.Pool}, srcB)
		n.Attach(2, sinkA, nil)
		n.Attach(3, sinkB, nil)
		srcA.pt.Kick(0)
		srcB.pt.Kick(0)
		sim.Run(T)
		if got0, got1 := sinkA.got[0], sinkB.got[1]; got0 != tc.want0 || got1 != tc.wnt1 {
			t.Errorf("%s: got %d and %d packets by %v, want %d and %d", tc.name, got0, got1, T, tc.want0, tc.wnt1)
		}
		if err := n.Check(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// With the flowlet gap longer than a flow's pauses, a flow keeps its port
// even when another port empties; with a gap of 0 it follows the queues.
// Here one flow's packets go back to back, so its flowlet never ends.
func TestAdaptiveFlowletSticks(t *testing.T) {
	topo, err := SpineLeaf(SpineLeafConfig{Leaves: 2, HostsPerLeaf: 2, Spines: 2,
		HostLink: 100 * engine.Gbps, FabricLink: 100 * engine.Gbps, Delay: engine.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	a := &Adaptive{FlowletGap: engine.Microsecond, FlowletSlots: 8}
	cfg := DefaultConfig()
	cfg.Router = a
	n, err := Build(engine.NewSim(1), topo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	leaf := n.Switches[0]
	p := &Packet{Kind: Data, Class: 3, Size: 1048, Src: 0, Dst: 2, SPort: 7}
	first := a.Route(leaf, p, 0)
	// Fill the chosen port's queue: per packet the other port wins, per
	// flowlet the flow stays.
	leaf.Ports[first].qTotal = 10000
	if got := a.Route(leaf, p, 0); got != first {
		t.Errorf("flowlet: got port %d, want %d (the flowlet's)", got, first)
	}
	per := &Adaptive{}
	if got := per.Route(leaf, p, 0); got == first {
		t.Errorf("per packet: got port %d, the full one", got)
	}
	if len(a.flowlets[0]) != 8 {
		t.Errorf("flowlet table of %d slots, want 8", len(a.flowlets[0]))
	}
}
