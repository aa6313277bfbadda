package fabric

import (
	"fmt"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// tieredTopologies are the generated topologies that route by up/down
// tables, small and odd shapes included.
func tieredTopologies(t *testing.T) []*Topology {
	t.Helper()
	var topos []*Topology
	for _, c := range []SpineLeafConfig{{Leaves: 8, HostsPerLeaf: 16, Spines: 4}, {Leaves: 1, HostsPerLeaf: 2, Spines: 1},
		{Leaves: 2, HostsPerLeaf: 1, Spines: 3}, {Leaves: 5, HostsPerLeaf: 3, Spines: 7}} {
		c.HostLink, c.FabricLink, c.Delay = 100*engine.Gbps, 400*engine.Gbps, engine.Microsecond
		topo, err := SpineLeaf(c)
		if err != nil {
			t.Fatal(err)
		}
		topos = append(topos, topo)
	}
	for _, k := range []int{2, 4, 6, 8, 12} {
		topo, err := FatTree(k, 100*engine.Gbps, 400*engine.Gbps, engine.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		topos = append(topos, topo)
	}
	return topos
}

// The up/down tables give exactly the next hops, in the same order, that
// the shortest-path tables give (the same topology without its tiers), so
// ECMP, the reference hash and spraying pick the same ports.
func TestUpDownMatchesShortestPaths(t *testing.T) {
	for _, topo := range tieredTopologies(t) {
		t.Run(fmt.Sprintf("%s-%d", topo.Name, topo.Hosts), func(t *testing.T) {
			ud, err := Build(engine.NewSim(1), topo, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			if !ud.UpDownRouting() {
				t.Fatalf("%s: routes by shortest paths, want up/down", topo.Name)
			}
			flat := *topo
			flat.Tiers = nil
			sp, err := Build(engine.NewSim(1), &flat, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			if sp.UpDownRouting() {
				t.Fatalf("without tiers: routes by up/down, want shortest paths")
			}
			for i, sw := range ud.Switches {
				for h := int32(0); h < int32(topo.Hosts); h++ {
					got, want := sw.Routes(h), sp.Switches[i].Routes(h)
					if !slices.Equal(got, want) {
						t.Fatalf("switch %s to host %d: next hops %v, want %v", sw.Name, h, got, want)
					}
					// ECMP takes a single next hop from nextHops: the
					// same port as hashing over Routes.
					p := &Packet{Src: (h + 1) % int32(topo.Hosts), Dst: h, SPort: uint16(h), DPort: 100}
					e := ECMP{Salt: 7}
					for _, n := range []*Network{ud, sp} {
						hops := n.Switches[i].Routes(h)
						want := hops[Murmur3(uint32(p.Src), uint32(p.Dst), uint32(p.SPort)|uint32(p.DPort)<<16, uint32(sw.ID)^e.Salt)%uint32(len(hops))]
						if got := e.Route(n.Switches[i], p, 0); got != int(want) {
							t.Fatalf("switch %s to host %d: ECMP port %d, want %d", sw.Name, h, got, want)
						}
					}
				}
			}
			r1, b1 := ud.MaxRTTBDP(1000)
			r2, b2 := sp.MaxRTTBDP(1000)
			if r1 != r2 || b1 != b2 {
				t.Errorf("maxRtt %v maxBdp %d, want %v and %d", r1, b1, r2, b2)
			}
		})
	}
}

func TestFatTreeTiers(t *testing.T) {
	const k = 8
	topo, err := FatTree(k, 100*engine.Gbps, 400*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Build(engine.NewSim(1), topo, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	count := map[Tier]int{}
	for _, sw := range n.Switches {
		count[sw.Tier]++
		up, down := k/2, k/2
		if sw.Tier == TierCore {
			up, down = 0, k
		}
		if len(sw.UpPorts) != up || len(sw.DownPorts) != down {
			t.Errorf("%s (%v): %d up and %d down ports, want %d and %d", sw.Name, sw.Tier, len(sw.UpPorts), len(sw.DownPorts), up, down)
		}
		for _, pi := range sw.UpPorts {
			if peer := sw.Ports[pi].Peer.sw; peer == nil || peer.Tier != sw.Tier+1 {
				t.Errorf("%s: up port %d does not lead one tier up", sw.Name, pi)
			}
		}
	}
	if count[TierLeaf] != k*k/2 || count[TierAggregation] != k*k/2 || count[TierCore] != k*k/4 {
		t.Errorf("switches per tier %v, want %d leaves, %d aggregation, %d core", count, k*k/2, k*k/2, k*k/4)
	}
	// A core reaches each of the k pods' k/2 leaves through one port.
	core := n.Switches[len(n.Switches)-1]
	if got := len(core.updown.down); got != k*k/2 {
		t.Errorf("core's down table has %d leaves, want %d", got, k*k/2)
	}
}

// A tiered topology whose tiers break the up/down rules falls back to
// shortest paths: a dumbbell's two leaves linked to each other.
func TestUpDownFallback(t *testing.T) {
	topo, err := Dumbbell(2, 100*engine.Gbps, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	topo.Tiers = []Tier{TierLeaf, TierLeaf}
	n, err := Build(engine.NewSim(1), topo, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if n.UpDownRouting() {
		t.Fatal("dumbbell with two leaf tiers routes up/down, want shortest paths")
	}
	if got := n.Switches[0].Routes(3); len(got) != 1 || n.Switches[0].Ports[got[0]].Peer.sw != n.Switches[1] {
		t.Errorf("left switch to host 3: next hops %v, want the bottleneck port", got)
	}
}
