package isolation

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// pick is a base router that returns a set port (the adaptive decision
// under test) and counts its calls.
type pick struct {
	port  int
	calls int
}

func (b *pick) Route(sw *fabric.Switch, _ *fabric.Packet, _ int) int { b.calls++; return b.port }

// buildAFI is a k = 4 fat-tree under AFI alone with adapt gap gap, its
// base router a pick.
func buildAFI(t *testing.T, gap engine.Time) (*engine.Sim, *fabric.Network, *Isolation, *Router, *pick) {
	t.Helper()
	base := &pick{}
	r := NewRouter(base)
	cfg := testConfig()
	cfg.ARN, cfg.AFI, cfg.AdaptGap = false, true, gap
	sim, n, iso := buildWith(t, 0, &cfg, r)
	return sim, n, iso, r, base
}

// AFI alone on a k = 4 fat-tree, the base router's decision set by hand.
// edge0 has two up ports towards host 4 (pod 1); e is the one ECMP's hash
// (and idle adaptive routing) gives flow 0 -> 4, o the other. A packet is
// adapted (class 3 -> 7, Adapted and Diverted counted) exactly when the
// decision is o while e's detector for class 3 is a branch or a root;
// it then leaves on o. In the AFC, at agg, it is routed D-mod-k without
// asking the base router. edge0's port to host 0 is its only next hop:
// never adapted.
func TestAFIDivertsFromCongestedPort(t *testing.T) {
	_, n, iso, r, base := buildAFI(t, 0)
	edge0 := n.Switches[0]
	hops := edge0.Routes(4)
	if len(hops) != 2 {
		t.Fatalf("edge0 has %d next hops to host 4, want 2", len(hops))
	}
	pk := &fabric.Packet{Kind: fabric.Data, Class: 3, Src: 0, Dst: 4, SPort: 9}
	h := fabric.Murmur3(0, 4, 9, uint32(edge0.ID))
	e, o := int(hops[h%2]), int(hops[1-h%2])
	det := &iso.det[edge0.Index()][e*fabric.NumClasses+3]
	for _, c := range []struct {
		name     string
		state    State
		decision int
		adapted  bool
	}{
		{"decision e, e normal", Normal, e, false},
		{"decision o, e normal", Normal, o, false},
		{"decision e, e branch", Branch, e, false},
		{"decision o, e branch", Branch, o, true},
		{"decision o, e root", Root, o, true},
	} {
		det.state = c.state
		base.port = c.decision
		p := *pk
		before := iso.Counts()
		got := r.Route(edge0, &p, 0)
		adapted := p.Class == 7
		if got != c.decision || adapted != c.adapted {
			t.Errorf("%s: got port %d adapted %v, want port %d adapted %v", c.name, got, adapted, c.decision, c.adapted)
		}
		want := int64(0)
		if c.adapted {
			want = 1
		}
		k := iso.Counts()
		if d, a := k.Diverted-before.Diverted, k.Adapted-before.Adapted; d != want || a != want {
			t.Errorf("%s: got Diverted +%d Adapted +%d, want +%d each", c.name, d, a, want)
		}
	}
	// In the AFC at agg0: D-mod-k (host 4 mod 2 = the first next hop), no
	// base decision.
	agg0 := n.Switches[8]
	calls := base.calls
	p := *pk
	p.Class = 7
	ah := agg0.Routes(4)
	if got, want := r.Route(agg0, &p, 0), int(ah[4%len(ah)]); got != want || base.calls != calls {
		t.Errorf("adapted packet at agg0: got port %d with %d base calls, want port %d with none", got, base.calls-calls, want)
	}
	// One next hop: the decision stands, never adapted.
	down := int(edge0.Routes(0)[0])
	for c := range iso.det[edge0.Index()] {
		iso.det[edge0.Index()][c].state = Root
	}
	base.port = down
	p = fabric.Packet{Kind: fabric.Data, Class: 3, Src: 4, Dst: 0}
	if got := r.Route(edge0, &p, e); got != down || p.Class != 3 {
		t.Errorf("edge0 to host 0: got port %d class %d, want port %d class 3", got, p.Class, down)
	}
}

// With AdaptGap the AFI decision is taken at a flowlet's first packet
// and holds: a packet 1 us after an adapted one stays adapted though e
// is normal again, and one AdaptGap after the last packet the flow is
// decided afresh (not adapted). Diverted counts the one decision,
// Adapted both adapted packets.
func TestAFIHoldsPerFlowlet(t *testing.T) {
	sim, n, iso, r, base := buildAFI(t, 5*engine.Microsecond)
	edge0 := n.Switches[0]
	hops := edge0.Routes(4)
	h := fabric.Murmur3(0, 4, 9, uint32(edge0.ID))
	e, o := int(hops[h%2]), int(hops[1-h%2])
	det := &iso.det[edge0.Index()][e*fabric.NumClasses+3]
	base.port = o
	sim.At(engine.Millisecond, nop{}, 0) // so that Run advances the clock
	var classes []uint8
	for _, step := range []struct {
		at    engine.Time
		state State
	}{{10 * engine.Microsecond, Branch}, {11 * engine.Microsecond, Normal}, {17 * engine.Microsecond, Normal}} {
		sim.Run(step.at)
		det.state = step.state
		p := fabric.Packet{Kind: fabric.Data, Class: 3, Src: 0, Dst: 4, SPort: 9}
		r.Route(edge0, &p, 0)
		classes = append(classes, p.Class)
	}
	if classes[0] != 7 || classes[1] != 7 || classes[2] != 3 {
		t.Errorf("got classes %v at 10, 11, 17 us, want [7 7 3]", classes)
	}
	if k := iso.Counts(); k.Diverted != 1 || k.Adapted != 2 {
		t.Errorf("got Diverted %d Adapted %d, want 1 and 2", k.Diverted, k.Adapted)
	}
}
