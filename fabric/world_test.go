package fabric

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// trainHost sends a fixed train of data packets, alternating between its
// destinations, while its class is neither paused nor out of credits, and
// records what it receives: it obeys PFC and returns packets to its
// thread's pool.
type trainHost struct {
	n      *Network
	h      int32
	pt     *Port
	dsts   []int32
	left   int
	sent   int64
	got    []string // (time, source, sequence, CE) of each packet received
	inINTs int      // INT hops seen on received packets
	quiet  bool     // record nothing (benchmarks)
}

func (s *trainHost) Next(engine.Time) *Packet {
	if s.left == 0 || s.pt.Paused(3) {
		return nil
	}
	s.left--
	p := s.n.HostPool(int(s.h)).Get()
	p.Kind, p.Class, p.ECT, p.Size, p.Payload = Data, 3, true, 1048, 1000
	p.Src, p.Dst, p.Seq = s.h, s.dsts[s.sent%int64(len(s.dsts))], s.sent
	p.SPort = uint16(s.sent % 7)
	s.sent++
	return p
}

func (s *trainHost) HasMore() bool { return s.left > 0 }

func (s *trainHost) Receive(now engine.Time, p *Packet, in *Port) {
	if p.Kind == PFC {
		in.SetPaused(now, uint8(p.Arg), p.Pause)
	} else if !s.quiet {
		s.inINTs += len(s.n.HostPool(int(s.h)).Hops(p))
		s.got = append(s.got, fmt.Sprintf("%d:%d:%d:%v", now, p.Src, p.Seq, p.CE))
	}
	s.n.HostPool(int(s.h)).Put(p)
}

// worldCase is one configuration of TestWorldSameForEveryThreadCount.
type worldCase struct {
	name string
	cfg  func(*Config)
	topo func(testing.TB) *Topology
	pods bool // units by pod (GrainPod), not by switch
}

func (wc worldCase) grain() Grain {
	if wc.pods {
		return GrainPod
	}
	return GrainSwitch
}

func fatTree4(tb testing.TB) *Topology {
	t, err := FatTree(4, 100*engine.Gbps, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// ring6 is six switches in a ring with two hosts each, no tiers: routed by
// shortest-path tables.
func ring6(tb testing.TB) *Topology {
	t := &Topology{Name: "ring6", Hosts: 12, Switches: 6}
	for s := range 6 {
		t.Links = append(t.Links, Link{A: 12 + s, B: 12 + (s+1)%6, Rate: 100 * engine.Gbps, Delay: engine.Microsecond},
			Link{A: 2 * s, B: 12 + s, Rate: 100 * engine.Gbps, Delay: engine.Microsecond},
			Link{A: 2*s + 1, B: 12 + s, Rate: 100 * engine.Gbps, Delay: engine.Microsecond})
	}
	return t
}

var worldCases = []worldCase{
	{"pfc-ecn", func(c *Config) {}, fatTree4, false},
	{"pfc-ecn-int", func(c *Config) { c.INT = true }, fatTree4, false},
	{"lossy", func(c *Config) { c.PFC = false }, fatTree4, false},
	{"credits", func(c *Config) { c.Credits, c.MaxFrame = 20000, 1048 }, fatTree4, false},
	{"spray", func(c *Config) { c.Router = Spray{Rand: engine.NewStream(1, "spray").Uint32} }, fatTree4, false},
	{"adaptive", func(c *Config) { c.Router = &Adaptive{FlowletGap: 2 * engine.Microsecond} }, fatTree4, false},
	// Lossy: under PFC the ring's cyclic buffer dependencies deadlock this
	// traffic (on a plain network too).
	{"shortest-paths", func(c *Config) { c.PFC, c.LossyQueueLimit = false, 30*engine.KB }, ring6, false},
	// Units by pod: links within a unit between switches, and the
	// crossings left between pods and cores.
	{"pods-pfc-ecn-int", func(c *Config) { c.INT = true }, fatTree4, true},
	{"pods-credits", func(c *Config) { c.Credits, c.MaxFrame = 20000, 1048 }, fatTree4, true},
	{"pods-adaptive", func(c *Config) { c.Router = &Adaptive{FlowletGap: 2 * engine.Microsecond} }, fatTree4, true},
}

// startTrains attaches a trainHost of 120 packets to every host of n and
// starts them: every host sends to host 0 (an incast that fills buffers
// and pauses) and to two others across the fabric.
func startTrains(n *Network, quiet bool) []*trainHost {
	hosts := make([]*trainHost, len(n.HostPorts))
	for h := range hosts {
		s := &trainHost{n: n, h: int32(h), left: 120, quiet: quiet,
			dsts: []int32{0, int32((h + 5) % len(hosts)), int32((h + len(hosts)/2) % len(hosts))}}
		if h == 0 {
			s.dsts = s.dsts[1:]
		}
		s.pt = n.Attach(h, s, s)
		hosts[h] = s
	}
	for _, s := range hosts {
		s.pt.Kick(0)
	}
	return hosts
}

// runWorld runs a case on a World split by first (nil: weighted over
// threads) and returns everything it can observe: every port's counters,
// every switch's, the network's, and every host's receive sequence.
func runWorld(t *testing.T, wc worldCase, threads int, first []int32) string {
	t.Helper()
	topo := wc.topo(t)
	cfg := DefaultConfig()
	cfg.Buffer = 400 * engine.KB
	cfg.ECNKmin, cfg.ECNKmax, cfg.ECNPmax = 10*engine.KB, 80*engine.KB, 0.3
	wc.cfg(&cfg)
	unitOf, units, weight := Units(topo, wc.grain())
	la, err := Lookahead(topo, unitOf)
	if err != nil {
		t.Fatal(err)
	}
	var w *engine.World
	if first != nil {
		w, err = engine.NewWorldSplit(7, first, la)
	} else {
		w, err = engine.NewWorldWeighted(7, weight, threads, la)
	}
	if err != nil {
		t.Fatal(err)
	}
	if w.Units() != units {
		t.Fatalf("world of %d units, want %d", w.Units(), units)
	}
	n, err := BuildWorld(w, unitOf, topo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hosts := startTrains(n, false)
	if !w.Run(engine.Second) {
		t.Fatalf("%s: the run did not drain", wc.name)
	}
	if err := n.Check(); err != nil {
		t.Errorf("%s: %v", wc.name, err)
	}
	if err := n.CheckQuiescent(); err != nil {
		t.Errorf("%s: %v", wc.name, err)
	}
	var b strings.Builder
	port := func(pt *Port) {
		fmt.Fprintf(&b, "tx %d %d mark %d pauserx %d paused %v peak %d\n",
			pt.TxBytes, pt.TxPackets, pt.MarkedPkts, pt.PauseRx, pt.PausedTime, pt.queuedPeakB)
		if pt.cr != nil {
			fmt.Fprintf(&b, "  credits %v stalls %v\n", pt.cr.avail, pt.cr.Stalls)
		}
	}
	for _, sw := range n.Switches {
		fmt.Fprintf(&b, "%s drops %d %d pause %d resume %d\n", sw.Name, sw.Drops, sw.DroppedBytes, sw.PauseSent, sw.ResumeSent)
		for _, pt := range sw.Ports {
			port(pt)
		}
	}
	var received int
	for h, s := range hosts {
		port(n.HostPorts[h])
		hash := fnv.New64a()
		for _, r := range s.got {
			hash.Write([]byte(r))
		}
		received += len(s.got)
		fmt.Fprintf(&b, "host %d got %d %x ints %d\n", h, len(s.got), hash.Sum64(), s.inINTs)
	}
	c := n.Counters()
	fmt.Fprintf(&b, "net %d %d %d\n", c.DroppedBytes, c.DroppedPayload, c.PauseFrames)
	if c.PacketsLive != 0 {
		t.Errorf("%s: %d packets live after the run", wc.name, c.PacketsLive)
	}
	var drops int64
	for _, sw := range n.Switches {
		drops += sw.Drops
	}
	if int64(received)+drops != int64(120*topo.Hosts) {
		t.Errorf("%s: %d received + %d dropped, want the %d sent", wc.name, received, drops, 120*topo.Hosts)
	}
	if threads == 1 && first == nil {
		// What the case is for happened.
		var marks, pauses, stalls int64
		var ints int
		n.allPorts(func(pt *Port) {
			marks += pt.MarkedPkts
			pauses += pt.PauseRx
			if pt.cr != nil {
				for _, s := range pt.cr.Stalls {
					stalls += s
				}
			}
		})
		for _, s := range hosts {
			ints += s.inINTs
		}
		for what, ok := range map[string]bool{
			"ECN marks":     marks > 0,
			"PAUSE frames":  (pauses > 0) == (cfg.PFC && cfg.Credits == 0),
			"drops":         (drops > 0) == !cfg.PFC,
			"credit stalls": (stalls > 0) == (cfg.Credits > 0),
			"INT hops":      (ints > 0) == cfg.INT,
		} {
			if !ok {
				t.Errorf("%s: %s not as the case wants (marks %d, pauses %d, drops %d, stalls %d, INT hops %d)", wc.name, what, marks, pauses, drops, stalls, ints)
			}
		}
	}
	return b.String()
}

// A network on a World fires the same events in the same order for any
// number of threads and any split of its units: every port's, switch's
// and host's observations are identical for 1 to 4 threads and uneven
// splits, with PFC pausing, ECN marking, drops, credits, spraying,
// adaptive routing and shortest-path tables. Run it under -race too.
func TestWorldSameForEveryThreadCount(t *testing.T) {
	for _, wc := range worldCases {
		want := runWorld(t, wc, 1, nil)
		// Uneven splits: one unit against the rest, and most units on one
		// thread.
		_, units, _ := Units(wc.topo(t), wc.grain())
		u := int32(units)
		splits := map[string][]int32{"one-many-one": {0, 1, u - 1, u}, "most-one": {0, u - 2, u}}
		for threads := 2; threads <= 4; threads++ {
			if got := runWorld(t, wc, threads, nil); got != want {
				t.Errorf("%s: %d threads differ from 1:\n%s", wc.name, threads, firstDiff(want, got))
			}
		}
		for name, first := range splits {
			if got := runWorld(t, wc, 0, first); got != want {
				t.Errorf("%s: split %s %v differs from 1 thread:\n%s", wc.name, name, first, firstDiff(want, got))
			}
		}
	}
}

// firstDiff shows the first line where two reports differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  1 thread: %s\n  now:      %s", i, la[i], lb[i])
		}
	}
	return "lengths differ"
}

// Units puts each host with its switch, every switch in a unit of its
// own numbered as the switch, and weighs a unit by its ports, a host's
// counted double.
func TestUnits(t *testing.T) {
	topo := fatTree4(t) // 16 hosts; edges 0-7 with 2 hosts each, then aggregations and cores
	unitOf, units, weight := Units(topo, GrainSwitch)
	if units != 20 || len(weight) != 20 || len(unitOf) != 36 {
		t.Fatalf("%d units, %d weights, %d nodes; want 20, 20, 36", units, len(weight), len(unitOf))
	}
	for s := range 20 {
		if unitOf[16+s] != int32(s) {
			t.Errorf("switch %d in unit %d", s, unitOf[16+s])
		}
	}
	for h := range 16 {
		if sw := topo.Links[linkOf(topo, h)].B - 16; unitOf[h] != int32(sw) {
			t.Errorf("host %d in unit %d, its switch is %d", h, unitOf[h], sw)
		}
	}
	// An edge: 2 up ports and 2 hosts (3 each); an aggregation or core: 4 ports.
	if weight[0] != 8 || weight[19] != 4 {
		t.Errorf("weights %v, want 8 for an edge and 4 for a core", weight)
	}

	// By pod: pod p's two edges, two aggregations and four hosts are unit
	// p; each core is a unit of its own, after the pods.
	unitOf, units, weight = Units(topo, GrainPod)
	if units != 8 || len(weight) != 8 {
		t.Fatalf("by pod: %d units, %d weights; want 8", units, len(weight))
	}
	for v := range topo.Nodes() {
		want := int32(-1)
		switch s := v - 16; {
		case v < 16:
			want = int32(v / 4)
		case s < 8: // edges, two per pod
			want = int32(s / 2)
		case s < 16: // aggregations, two per pod
			want = int32((s - 8) / 2)
		default:
			want = int32(4 + s - 16)
		}
		if unitOf[v] != want {
			t.Errorf("by pod: node %d in unit %d, want %d", v, unitOf[v], want)
		}
	}
	// A pod: two edges (8 each) and two aggregations (4 each); a core 4.
	if weight[0] != 24 || weight[7] != 4 {
		t.Errorf("by pod: weights %v, want 24 for a pod and 4 for a core", weight)
	}
	// A spine-leaf has no pods: by pod is by switch.
	sl, err := SpineLeaf(SpineLeafConfig{Leaves: 4, HostsPerLeaf: 2, Spines: 2, HostLink: 100 * engine.Gbps, FabricLink: 100 * engine.Gbps, Delay: engine.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	a, _, _ := Units(sl, GrainPod)
	b, _, _ := Units(sl, GrainSwitch)
	if !slices.Equal(a, b) {
		t.Errorf("spine-leaf by pod %v, by switch %v", a, b)
	}
}

// linkOf is the index of host h's link.
func linkOf(t *Topology, h int) int {
	for i, l := range t.Links {
		if l.A == h || l.B == h {
			return i
		}
	}
	return -1
}

// A zero-delay link between units cannot run in parallel: Lookahead names
// it; within a unit it is fine, and the lookahead is the smallest delay
// between units.
func TestLookahead(t *testing.T) {
	topo := fatTree4(t)
	unitOf, _, _ := Units(topo, GrainSwitch)
	if la, err := Lookahead(topo, unitOf); err != nil || la != engine.Microsecond {
		t.Fatalf("lookahead %v, %v; want 1us", la, err)
	}
	topo.Links[linkOf(topo, 3)].Delay = 0 // a host link: within its unit
	topo.Links[len(topo.Links)-1].Delay = 300 * engine.Nanosecond
	if la, err := Lookahead(topo, unitOf); err != nil || la != 300*engine.Nanosecond {
		t.Fatalf("lookahead %v, %v; want 300ns", la, err)
	}
	l := &topo.Links[len(topo.Links)-1]
	l.Delay = 0
	_, err := Lookahead(topo, unitOf)
	want := fmt.Sprintf("link %s-%s (delay 0s) joins units", topo.nodeName(l.A), topo.nodeName(l.B))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one naming %q", err, want)
	}
	w, _ := engine.NewWorld(1, 20, 2, engine.Microsecond)
	if _, err := BuildWorld(w, unitOf, topo, DefaultConfig()); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("BuildWorld: %v, want the zero-delay link named", err)
	}
}

// BuildWorld refuses what it cannot run in parallel, with an error, and
// fabric/isolation's refusal is tested there.
func TestBuildWorldRefuses(t *testing.T) {
	topo := fatTree4(t)
	unitOf, _, _ := Units(topo, GrainSwitch)
	for _, c := range []struct {
		name string
		cfg  func(*Config)
		w    func() *engine.World
		want string
	}{
		{"ns3rand", func(c *Config) { c.NS3Rand = NewNS3Rand(1, 1) }, nil, "random draws"},
		{"ns3order", func(c *Config) { c.NS3EventOrder = true }, nil, "event order"},
		{"wholens", func(c *Config) { c.WholeNs = true }, nil, "whole-ns"},
		{"router", func(c *Config) { c.Router = toClass7{} }, nil, "router fabric.toClass7 cannot run on several threads"},
		{"lookahead", func(*Config) {}, func() *engine.World {
			w, _ := engine.NewWorld(1, 20, 2, 2*engine.Microsecond)
			return w
		}, "the world's lookahead 2us is above the smallest delay between units, 1us"},
		{"units", func(*Config) {}, func() *engine.World {
			w, _ := engine.NewWorld(1, 19, 2, engine.Microsecond)
			return w
		}, "in unit 19, but the world has 19 units"},
	} {
		cfg := DefaultConfig()
		c.cfg(&cfg)
		w, _ := engine.NewWorld(1, 20, 2, engine.Microsecond)
		if c.w != nil {
			w = c.w()
		}
		if _, err := BuildWorld(w, unitOf, topo, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// BenchmarkWorldFatTree runs a fat-tree k=8 (128 hosts) whose hosts each
// send 400 packets to three destinations (PFC, ECN), on a plain network
// and on Worlds of 1 and 2 threads: the cost of the World's path (views,
// couriers, barriers) and what a second thread gives back.
func BenchmarkWorldFatTree(b *testing.B) {
	for _, threads := range []int{0, 1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			var events uint64
			var st engine.WorldStats
			for range b.N {
				topo, err := FatTree(8, 100*engine.Gbps, 100*engine.Gbps, engine.Microsecond)
				if err != nil {
					b.Fatal(err)
				}
				cfg := DefaultConfig()
				cfg.ECNKmin, cfg.ECNKmax = 10*engine.KB, 80*engine.KB
				var n *Network
				var w *engine.World
				var sim *engine.Sim
				if threads == 0 {
					sim = engine.NewSim(7)
					n, err = Build(sim, topo, cfg)
				} else {
					unitOf, _, weight := Units(topo, GrainSwitch)
					w, err = engine.NewWorldWeighted(7, weight, threads, engine.Microsecond)
					if err == nil {
						n, err = BuildWorld(w, unitOf, topo, cfg)
					}
				}
				if err != nil {
					b.Fatal(err)
				}
				hosts := make([]*trainHost, topo.Hosts)
				for h := range hosts {
					s := &trainHost{n: n, h: int32(h), left: 400, quiet: true,
						dsts: []int32{int32((h + 17) % 128), int32((h + 64) % 128), int32((h + 33) % 128)}}
					s.pt = n.Attach(h, s, s)
					hosts[h] = s
				}
				for _, s := range hosts {
					s.pt.Kick(0)
				}
				if w != nil {
					w.Run(engine.Second)
					events += w.Events()
					st = w.Stats()
				} else {
					sim.Run(engine.Second)
					events += sim.Events()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			if threads > 0 {
				b.ReportMetric(float64(st.Events)/float64(st.Windows), "events/window")
				b.ReportMetric(float64(st.Events)/float64(st.CriticalEvents), "parallelism")
				b.ReportMetric(float64(st.Exchange.Nanoseconds())/float64(st.Windows), "ns-exchange/window")
				b.ReportMetric(float64(st.Wait.Nanoseconds())/float64(st.Windows), "ns-wait/window")
			}
		})
	}
}

// On a plain network Counters are the Network's own counters and Pool's,
// and every host runs on n.Sim in unit 0 with n.Pool; on a World a host
// runs on its unit's Sim.
func TestCountersAndHostThreads(t *testing.T) {
	sim, n, pt := pumpStar(t)
	n.DroppedBytes, n.DroppedPayload, n.PauseFrames = 7, 5, 3
	pt.Kick(0)
	sim.Run(5 * engine.Microsecond)
	c := n.Counters()
	if c.DroppedBytes != 7 || c.DroppedPayload != 5 || c.PauseFrames != 3 ||
		c.PacketsLive != n.Pool.Live() || c.PacketsAllocated != n.Pool.Allocated() || c.PacketsLive == 0 {
		t.Errorf("counters %+v, want the network's (live %d, allocated %d)", c, n.Pool.Live(), n.Pool.Allocated())
	}
	if n.HostSim(1) != sim || n.HostUnit(1) != 0 || n.HostPool(1) != n.Pool || n.World() != nil {
		t.Error("a plain network's host is not on n.Sim, unit 0, n.Pool")
	}
	topo := fatTree4(t)
	unitOf, units, _ := Units(topo, GrainSwitch)
	w, err := engine.NewWorld(1, units, 3, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	wn, err := BuildWorld(w, unitOf, topo, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if wn.Sim != w.Sim(0) || wn.World() != w {
		t.Error("a World network's Sim is not the first thread's")
	}
	for h := range topo.Hosts {
		if wn.HostSim(h) != w.Sim(int(unitOf[h])) || wn.HostUnit(h) != unitOf[h] {
			t.Errorf("host %d on another unit's Sim", h)
		}
		if (wn.HostPool(h) == wn.Pool) != (w.Sim(int(unitOf[h])) == w.Sim(0)) {
			t.Errorf("host %d: pool shared across threads", h)
		}
	}
}
