package isolation

import (
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// sink counts the data packets delivered per class and obeys PFC.
type sink struct {
	pool    *fabric.Pool
	byClass [fabric.NumClasses]int
}

func (s *sink) Receive(now engine.Time, p *fabric.Packet, in *fabric.Port) {
	switch p.Kind {
	case fabric.PFC:
		in.SetPaused(now, uint8(p.Arg), p.Pause)
	case fabric.Data:
		s.byClass[p.Class]++
	}
	s.pool.Put(p)
}

// source sends 1048 B data packets of one flow in class 3 at line rate
// while class 3 is not paused.
type source struct {
	pool     *fabric.Pool
	pt       *fabric.Port
	src, dst int32
	sport    uint16
	until    engine.Time // 0 = forever
}

func (s *source) Next(now engine.Time) *fabric.Packet {
	if s.pt.Paused(3) || s.until > 0 && now >= s.until {
		return nil
	}
	p := s.pool.Get()
	p.Kind, p.Class, p.Size, p.Payload, p.Src, p.Dst, p.SPort = fabric.Data, 3, 1048, 1000, s.src, s.dst, s.sport
	return p
}
func (s *source) HasMore() bool { return s.until == 0 || s.pt.FreeAt() < s.until }

func testConfig() Config {
	return Config{Thresholds: Thresholds{HCDTh: 32000, LCDTh: 16000, FCTh: 32000, CRT: engine.Microsecond},
		VCBuffer: 64000, ARN: true, AFC: 7, EntryLifetime: 100 * engine.Microsecond, ClearOnNormal: true}
}

// build makes a k = 4 fat-tree with 100 Gbps, 1 us links, adaptive
// routing under the ARN router, and isolation installed.
func build(t *testing.T, cfg Config) (*engine.Sim, *fabric.Network, *Isolation) {
	return buildNet(t, 0, &cfg)
}

// buildNet is build with a switch buffer (0: the default) and, with a
// nil cfg, adaptive routing alone.
func buildNet(t *testing.T, buffer int64, cfg *Config) (*engine.Sim, *fabric.Network, *Isolation) {
	t.Helper()
	return buildWith(t, buffer, cfg, NewRouter(&fabric.Adaptive{FlowletGap: 5 * engine.Microsecond}))
}

// buildWith is buildNet with r (and r.Base alone when cfg is nil) as
// the router.
func buildWith(t *testing.T, buffer int64, cfg *Config, r *Router) (*engine.Sim, *fabric.Network, *Isolation) {
	t.Helper()
	return buildCredits(t, buffer, 0, cfg, r)
}

// buildCredits is buildWith with credit-based links of credits bytes
// per class (0: PFC).
func buildCredits(t *testing.T, buffer, credits int64, cfg *Config, r *Router) (*engine.Sim, *fabric.Network, *Isolation) {
	t.Helper()
	topo, err := fabric.FatTree(4, 100*engine.Gbps, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	sim := engine.NewSim(1)
	fc := fabric.DefaultConfig()
	if buffer > 0 {
		fc.Buffer = buffer
	}
	fc.Router = r.Base
	if cfg != nil {
		fc.Router = r
	}
	if credits > 0 {
		fc.Credits, fc.MaxFrame = credits, 1048
	}
	n, err := fabric.Build(sim, topo, fc)
	if err != nil {
		t.Fatal(err)
	}
	if cfg == nil {
		return sim, n, nil
	}
	iso, err := Install(n, *cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.Bind(iso)
	return sim, n, iso
}

// hotSpot starts hosts 2 and 3 sending to host 0 at line rate until
// stop (0 = forever) and returns host 0's sink.
func hotSpot(n *fabric.Network, stop engine.Time) *sink {
	dst := &sink{pool: n.Pool}
	n.Attach(0, dst, nil)
	for h := 2; h <= 3; h++ {
		s := &source{pool: n.Pool, src: int32(h), dst: 0, sport: uint16(h), until: stop}
		s.pt = n.Attach(h, &sink{pool: n.Pool}, s)
		s.pt.Kick(0)
	}
	return dst
}

// Hosts 2 and 3 (edge1, pod 0) send to host 0 (edge0) at line rate. The
// edge1 uplinks split the two flows over agg0 and agg1, so the only
// queue is edge0's port to host 0: it passes HCDTh, its downstream (a
// host) has all its credits, and after CRT it is a root, the only one.
// Its ARN goes up to agg0 and agg1 (2 frames); each, with one next hop
// to host 0, forwards it to its two cores and to edge1 (6 frames); edge1
// consumes the first copy (2 up ports) and drops the second as a
// duplicate; each of the 4 cores forwards to the aggregation switch of
// each other pod (12 frames), and those 6 switches consume one copy each
// and drop the other: 20 frames, 7 consumed, 7 forwarded (the root's own
// handling included), 7 duplicates. From then on edge1 puts both flows in
// the AFC (class 7) on one deterministic up port, host 0 mod 2 = the
// first: agg1 carries no more of them.
func TestARNOneRoot(t *testing.T) {
	cfg := testConfig()
	var changes []string
	cfg.OnChange = func(now engine.Time, sw *fabric.Switch, port int, class uint8, from, to State) {
		changes = append(changes, sw.Name+" "+from.String()+"->"+to.String())
	}
	sim, n, iso := build(t, cfg)
	dst := hotSpot(n, 0)
	agg1 := n.Switches[9]
	sim.Run(20 * engine.Microsecond)
	if err := iso.Check(); err != nil {
		t.Fatal(err)
	}
	agg1At20 := agg1.Ports[agg1.DownPorts[0]].TxPackets
	sim.Run(50 * engine.Microsecond)
	if err := iso.Check(); err != nil {
		t.Fatal(err)
	}
	if tx := agg1.Ports[agg1.DownPorts[0]].TxPackets; tx != agg1At20 || tx == 0 {
		t.Errorf("agg1 sent %d packets to edge0 by 20 us and %d by 50 us, want the same, > 0: adapted flows pinned to agg0", agg1At20, tx)
	}
	got := iso.Counts()
	want := Counters{Roots: 1, Branches: 1, Generated: 1, Sent: 20, Received: 20, Consumed: 7, Forwarded: 7, Duplicates: 7,
		Adapted: got.Adapted}
	if got != want {
		t.Errorf("got counters %+v,\nwant %+v", got, want)
	}
	if len(changes) != 2 || changes[0] != "edge0 normal->branch" || changes[1] != "edge0 branch->root" {
		t.Errorf("got state changes %q, want edge0 normal->branch, branch->root", changes)
	}
	edge0 := n.Switches[0]
	if s := iso.State(edge0, int(edge0.DownPorts[0]), 3); s != Root {
		t.Errorf("edge0 port to host 0: got %v, want root", s)
	}
	if got.Adapted == 0 || dst.byClass[7] == 0 {
		t.Errorf("adapted %d packets, host 0 got %d in the AFC: want both > 0", got.Adapted, dst.byClass[7])
	}
	for i, sw := range n.Switches {
		want := 0
		if sw.Tier == fabric.TierAggregation && i != 8 && i != 9 || sw.Name == "edge1" {
			want = 1
		}
		if e := iso.Entries(sw); e != want {
			t.Errorf("%s: %d ARN entries, want %d", sw.Name, e, want)
		}
	}
}

// The hot spot of TestARNOneRoot ends at 30 us. With arn_clear_on_normal
// the root, once its port (its class and the AFC) is below LCDTh, sends a
// clearing ARN along the same 20 frames, which removes the 7 entries;
// without it the entries stay until their lifetime (100 us after they
// were last renewed).
func TestARNClearAndLifetime(t *testing.T) {
	for _, clear := range []bool{true, false} {
		cfg := testConfig()
		cfg.ClearOnNormal = clear
		sim, n, iso := build(t, cfg)
		hotSpot(n, 30*engine.Microsecond)
		sim.Run(80 * engine.Microsecond)
		if err := iso.Check(); err != nil {
			t.Fatal(err)
		}
		got := iso.Counts()
		want := Counters{Roots: 1, Branches: 1, Normals: 1, Generated: 1, Sent: 20, Received: 20, Consumed: 7, Forwarded: 7,
			Duplicates: 7, Adapted: got.Adapted}
		entries := 7
		// The root's backlog outlasts the hot spot by more than half a
		// lifetime: one refresh (20 more frames), which renews the 7
		// entries; with clear, the clearing ARN (20 more) removes them.
		want.Generated, want.Refreshes, want.Sent, want.Received = 2, 1, 40, 40
		want.Consumed, want.Forwarded, want.Duplicates = 14, 14, 14
		if clear {
			want.Generated, want.Clears, want.Sent, want.Received = 3, 1, 60, 60
			want.Consumed, want.Forwarded, want.Duplicates, want.Removed = 21, 21, 21, 7
			entries = 0
		}
		if got != want {
			t.Errorf("clear %v: got counters %+v,\nwant %+v", clear, got, want)
		}
		total := 0
		for _, sw := range n.Switches {
			total += iso.Entries(sw)
		}
		if total != entries {
			t.Errorf("clear %v: %d entries at 80 us, want %d", clear, total, entries)
		}
		if !clear {
			sim.At(200*engine.Microsecond, nop{}, 0) // the clock stops at the last event
			sim.Run(200 * engine.Microsecond)
			total = 0
			for _, sw := range n.Switches {
				total += iso.Entries(sw)
			}
			if total != 0 {
				t.Errorf("lifetime: %d entries at 200 us, want 0", total)
			}
		}
	}
}

type nop struct{}

func (nop) Fire(engine.Time, uint8) {}

// With AdaptGap, a flow moves into the AFC only after a silence that
// long: the two line-rate flows of TestARNOneRoot never pause, so the
// same ARN and entries adapt none of their packets.
func TestAdaptGapWaitsForFlowlet(t *testing.T) {
	cfg := testConfig()
	cfg.AdaptGap = 5 * engine.Microsecond
	sim, n, iso := build(t, cfg)
	dst := hotSpot(n, 0)
	sim.Run(50 * engine.Microsecond)
	if err := iso.Check(); err != nil {
		t.Fatal(err)
	}
	if k := iso.Counts(); k.Roots != 1 || k.Consumed != 7 || k.Adapted != 0 || dst.byClass[7] != 0 {
		t.Errorf("got %d roots, %d consumed, %d adapted, %d AFC packets at host 0; want 1, 7, 0, 0",
			k.Roots, k.Consumed, k.Adapted, dst.byClass[7])
	}
}

// paced sends 1048 B data packets of one flow in class 3 at rate, or at
// line rate while unpaused when rate is 0.
type paced struct {
	sim      *engine.Sim
	pool     *fabric.Pool
	pt       *fabric.Port
	src, dst int32
	gap      engine.Time // between packet starts; 0 = back to back
	nextAt   engine.Time
	armed    bool
}

func (s *paced) Next(now engine.Time) *fabric.Packet {
	if s.pt.Paused(3) {
		return nil
	}
	if now < s.nextAt {
		if !s.armed {
			s.armed = true
			s.sim.At(s.nextAt, s, 0)
		}
		return nil
	}
	s.nextAt = max(s.nextAt, now) + s.gap
	p := s.pool.Get()
	p.Kind, p.Class, p.Size, p.Payload, p.Src, p.Dst, p.SPort = fabric.Data, 3, 1048, 1000, s.src, s.dst, uint16(s.src)
	return p
}
func (s *paced) HasMore() bool { return true }
func (s *paced) Fire(now engine.Time, _ uint8) {
	s.armed = false
	s.pt.Kick(now)
}

// counter counts data packets from one source delivered in [from, to).
type counter struct {
	pool     *fabric.Pool
	from, to engine.Time
	n        int
}

func (c *counter) Receive(now engine.Time, p *fabric.Packet, in *fabric.Port) {
	if p.Kind == fabric.PFC {
		in.SetPaused(now, uint8(p.Arg), p.Pause)
	} else if p.Kind == fabric.Data && now >= c.from && now < c.to {
		c.n++
	}
	c.pool.Put(p)
}

// victimRun is a k = 4 fat-tree where host 6 (pod 1) sends to host 1
// (edge0) at 40 Gbps and, with hot, hosts 4, 5, 8, 9, 12 and 13 send to
// host 0 (edge0's other host) at line rate: a congestion tree whose
// traffic shares agg->edge0 links with the victim. It returns the victim
// packets delivered in [200 us, 300 us). Links into switches have
// credits bytes per class (0: PFC).
func victimRun(t *testing.T, hot, isolate bool, credits int64) int {
	t.Helper()
	var cfg *Config
	if isolate {
		c := testConfig()
		cfg = &c
	}
	// PFC within the run: the tree forms.
	sim, n, iso := buildCredits(t, 2*engine.MiB, credits, cfg, NewRouter(&fabric.Adaptive{FlowletGap: 5 * engine.Microsecond}))
	victim := &counter{pool: n.Pool, from: 200 * engine.Microsecond, to: 300 * engine.Microsecond}
	n.Attach(1, victim, nil)
	n.Attach(0, &counter{pool: n.Pool}, nil)
	start := func(h int32, dst int32, gap engine.Time) {
		s := &paced{sim: sim, pool: n.Pool, src: h, dst: dst, gap: gap}
		s.pt = n.Attach(int(h), &counter{pool: n.Pool}, s)
		s.pt.Kick(0)
	}
	start(6, 1, (40 * engine.Gbps).TxTime(1048)) // 209.6 ns
	if hot {
		for _, h := range []int32{4, 5, 8, 9, 12, 13} {
			start(h, 0, 0)
		}
	}
	sim.Run(300 * engine.Microsecond)
	if iso != nil {
		if err := iso.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.Check(); err != nil {
		t.Fatal(err)
	}
	if err := n.CheckCredits(); err != nil {
		t.Fatal(err)
	}
	if credits > 0 && n.PauseFrames != 0 {
		t.Fatalf("%d PFC frames on credit-based links, want none", n.PauseFrames)
	}
	return victim.n
}

// docs/model.md §11.2: with isolation, non-hot-spot traffic keeps its
// no-incast throughput. The victim (40 Gbps, 1048 B packets every
// 209.6 ns) delivers 477 packets in the window [200, 300) us alone
// (100 us / 209.6 ns = 477.1). Under the hot spot without isolation its
// packets wait behind the tree's at the PAUSEd agg->edge0 class: 157.
// With ARN+AFI the tree's flows are in the AFC from a few microseconds
// on, PFC pauses only the AFC, and the victim delivers what it delivers
// alone, to the packet (+-1 for the window's edges). The window starts
// late so that the victim's packets held up before the ARN arrived have
// drained (in [100, 200) us it delivers 482: 5 of them).
func TestIsolationKeepsVictimThroughput(t *testing.T) { checkVictimThroughput(t, 0) }

// checkVictimThroughput runs the victim alone, under the hot spot and
// under the hot spot with ARN+AFI, on links with credits bytes per class
// (0: PFC), and checks the three counts.
func checkVictimThroughput(t *testing.T, credits int64) {
	t.Helper()
	alone := victimRun(t, false, false, credits)
	blocked := victimRun(t, true, false, credits)
	isolated := victimRun(t, true, true, credits)
	t.Logf("credits %d B: victim packets in 100 us: alone %d, hot spot %d, hot spot with ARN+AFI %d", credits, alone, blocked, isolated)
	if alone != 477 && alone != 478 {
		t.Errorf("alone: got %d packets, want 477 or 478", alone)
	}
	if d := isolated - alone; d < -1 || d > 1 {
		t.Errorf("isolated: got %d packets, want %d +- 1 (no-incast throughput)", isolated, alone)
	}
	if blocked >= alone*9/10 {
		t.Errorf("without isolation: got %d packets, want fewer than 90%% of %d (head-of-line blocking)", blocked, alone)
	}
}

// The same with credit-based links of 64 KB per class (the paper's
// InfiniBand-like network, docs/model.md §10.2) instead of PFC: credits
// also make the tree (the victim's class runs out of credits behind the
// tree's packets), and isolation keeps the victim's no-incast throughput.
func TestIsolationKeepsVictimThroughputWithCredits(t *testing.T) { checkVictimThroughput(t, 64_000) }

// Each queueing scheme's class for packets of a k = 4 fat-tree, 2 VCs
// from class 3: DBBM by destination, vFtree by the destination's leaf
// (two hosts per leaf), Flow2SL by a hash of the pair, the same at every
// switch.
func TestQueueMapClasses(t *testing.T) {
	topo, err := fabric.FatTree(4, 100*engine.Gbps, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		scheme string
		want   [4]uint8 // class for destinations 0..3 from host 8
	}{
		{QueueDBBM, [4]uint8{3, 4, 3, 4}},
		{QueueVFtree, [4]uint8{3, 3, 4, 4}},
	} {
		q, err := NewQueueMap(tc.scheme, fabric.ECMP{}, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		fc := fabric.DefaultConfig()
		fc.Router = q
		n, err := fabric.Build(engine.NewSim(1), topo, fc)
		if err != nil {
			t.Fatal(err)
		}
		q.Bind(n)
		for d := range 4 {
			p := &fabric.Packet{Kind: fabric.Data, Class: 3, Src: 8, Dst: int32(d)}
			for _, sw := range n.Switches[:3] {
				q.Route(sw, p, 0)
				if p.Class != tc.want[d] {
					t.Errorf("%s: destination %d at %s: got class %d, want %d", tc.scheme, d, sw.Name, p.Class, tc.want[d])
				}
			}
		}
	}
	if _, err := NewQueueMap(QueueDBBM, fabric.ECMP{}, 6, 3); err == nil {
		t.Error("3 VCs from class 6: got no error")
	}
}

// buildWorld builds a fat-tree k=4 with cfg on a World of two threads.
func buildWorld(t *testing.T, cfg fabric.Config) (*fabric.Network, error) {
	t.Helper()
	topo, err := fabric.FatTree(4, 100*engine.Gbps, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	unitOf, units, _ := fabric.Units(topo, fabric.GrainSwitch)
	w, err := engine.NewWorld(1, units, 2, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	return fabric.BuildWorld(w, unitOf, topo, cfg)
}

// Isolation installs on a World (its state is per switch) with the
// delayed view of the downstream's buffer, and refuses the instant's: its
// router runs on every switch when its base can, and is refused, naming
// it, when its base cannot. wiring's TestParallelSameForEveryThreadCount
// runs it on every thread count.
func TestInstallOnWorld(t *testing.T) {
	for _, c := range []struct {
		base fabric.Router
		ok   bool
	}{{&fabric.Adaptive{FlowletGap: 5 * engine.Microsecond}, true}, {fabric.ECMP{}, true}, {&pick{}, false}} {
		r := NewRouter(c.base)
		cfg := fabric.DefaultConfig()
		cfg.Router = r
		n, err := buildWorld(t, cfg)
		if (err == nil) != c.ok {
			t.Fatalf("base %T: error %v, want ok %v", c.base, err, c.ok)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "base router") {
				t.Errorf("base %T: error %q does not name the base router", c.base, err)
			}
			continue
		}
		if _, err := Install(n, testConfig()); err == nil || !strings.Contains(err.Error(), "DelayedView") {
			t.Errorf("the instant's view on a World: error %v, want one naming DelayedView", err)
		}
		delayed := testConfig()
		delayed.DelayedView = true
		iso, err := Install(n, delayed)
		if err != nil {
			t.Fatal(err)
		}
		r.Bind(iso)
		// A data packet enters switch 0 from host 0 and is routed.
		p := n.Pool.Get()
		p.Kind, p.Class, p.Size, p.Src, p.Dst = fabric.Data, 3, 1048, 0, 15
		sw := n.Switches[0]
		sw.Receive(0, p, sw.Ports[0])
		if k := iso.Counts(); k != (Counters{}) {
			t.Errorf("base %T: counters %+v after one packet, want none", c.base, k)
		}
	}
}

// A queueing map runs on a World when its base router can, and is
// refused, naming it, when its base cannot.
func TestQueueMapOnWorld(t *testing.T) {
	for _, c := range []struct {
		base fabric.Router
		ok   bool
	}{{fabric.ECMP{}, true}, {fabric.Spray{}, true}, {&pick{}, false}} {
		q, err := NewQueueMap(QueueVFtree, c.base, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		cfg := fabric.DefaultConfig()
		cfg.Router = q
		n, err := buildWorld(t, cfg)
		if (err == nil) != c.ok {
			t.Fatalf("base %T: error %v, want ok %v", c.base, err, c.ok)
		}
		if err != nil {
			continue
		}
		q.Bind(n)
		// A data packet from host 0 to host 15 enters switch 0 and
		// leaves it in the class of host 15's leaf (vFtree).
		p := n.Pool.Get()
		p.Kind, p.Class, p.Size, p.Src, p.Dst = fabric.Data, 3, 1048, 0, 15
		sw := n.Switches[0]
		sw.Receive(0, p, sw.Ports[0])
		if want := 1 + uint8(n.HostPorts[15].Peer.Owner.(*fabric.Switch).Index()%2); p.Class != want {
			t.Errorf("base %T: class %d, want %d", c.base, p.Class, want)
		}
	}
}
