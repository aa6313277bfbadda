package fabric

import (
	"fmt"
	"slices"

	"github.com/dcsim/dcsim/engine"
)

// A network on an engine.World (docs/parallel.md): its nodes are cut into
// units, each unit's ports and switches run on the thread (the *Sim) that
// runs the unit, and units meet only through the engine.
//
//   - Every thread has a view of the Network: a shallow copy sharing the
//     switches, tables and configuration, with the thread's own Sim, Pool,
//     ring arena and counters. Each port's and switch's net points at its
//     thread's view, so the packet path reaches the right event queue
//     with the loads it always had.
//   - A link within a unit runs as on a plain network. A link between
//     units (Port.cross) keeps its sending side: the port pushes onto its
//     wire and, at the window's first packet, hands the link's courier
//     (crossLink) to the receiving unit. At the window's end, while the
//     sender is stopped, the courier moves the window's packets into the
//     receiving side's own ring and schedules their deliveries there, one
//     at a time as a plain link does. The link's delay, at least the
//     lookahead, puts every delivery at or after the window's end.
//   - Credit returns across units travel the same way (crossCredits):
//     the downstream switch collects the window's returns and hands them
//     to the upstream port's unit, which schedules them as before. PAUSE
//     frames are packets and take the link.
//   - Per-switch random streams (ECN, spray) and eagerly filled route
//     tables leave no state shared by two units but the pools, whose
//     indices are global (Pool) and whose order of reuse decides no
//     result.

// Grain is how coarse a World's units are (Units).
type Grain uint8

const (
	// GrainPod puts a pod in one unit: the switches below the top tier
	// that links among themselves join (on a fat-tree an edge and
	// aggregation layer of k/2 + k/2 switches), with their hosts; each
	// top-tier switch is a unit of its own. On a fabric of two tiers
	// (spine-leaf) or without tiers it is GrainSwitch. The default: a
	// packet between pods crosses units twice (aggregation to core,
	// core to aggregation) instead of four times, and one within a pod
	// never, so fewer packets take the barrier's copy (docs/parallel.md,
	// "Units").
	GrainPod Grain = iota
	// GrainSwitch makes a unit of each switch with the hosts attached to
	// it: the finest cut, the most parallelism, the most crossings.
	GrainSwitch
)

// ParseGrain reads "pod" or "switch".
func ParseGrain(s string) (Grain, error) {
	switch s {
	case "pod":
		return GrainPod, nil
	case "switch":
		return GrainSwitch, nil
	}
	return 0, fmt.Errorf("unknown unit grain %q (want pod or switch)", s)
}

func (g Grain) String() string {
	if g == GrainSwitch {
		return "switch"
	}
	return "pod"
}

// Units partitions t's nodes (hosts 0..Hosts-1, then switch s as node
// Hosts+s) into units for a World, at grain g. A unit is a group of
// switches (one at GrainSwitch) with the hosts attached to them. Units
// are numbered in the order of their lowest switch, so at GrainSwitch
// unit s is switch s's. weight[u] estimates unit u's work for
// engine.NewWorldWeighted: the ports of its switches and hosts, a host's
// counted double (a NIC's transport fires more events per packet than a
// switch port).
func Units(t *Topology, g Grain) (unitOf []int32, units int, weight []float64) {
	group := switchGroups(t, g)
	unitOf = make([]int32, t.Nodes())
	for s := range t.Switches {
		unitOf[t.Hosts+s] = -1
	}
	for s := range t.Switches { // number the groups by their lowest switch
		if r := group[s]; unitOf[t.Hosts+r] < 0 {
			unitOf[t.Hosts+r] = int32(units)
			units++
		}
		unitOf[t.Hosts+s] = unitOf[t.Hosts+group[s]]
	}
	weight = make([]float64, units)
	for _, l := range t.Links {
		a, b := l.A, l.B
		if b < t.Hosts {
			a, b = b, a
		}
		if a < t.Hosts && b >= t.Hosts { // a host and its switch
			unitOf[a] = unitOf[b]
			weight[unitOf[b]] += 1 + 2
			continue
		}
		for _, v := range [2]int{a, b} {
			if v >= t.Hosts {
				weight[unitOf[v]]++
			}
		}
	}
	return unitOf, units, weight
}

// switchGroups gives each switch its group's lowest switch: itself at
// GrainSwitch; at GrainPod, the union of the switches below the top tier
// joined by links among them (a fabric of fewer than three tiers, or
// without tiers, keeps a group per switch).
func switchGroups(t *Topology, g Grain) []int {
	root := make([]int, t.Switches)
	for s := range root {
		root[s] = s
	}
	top := TierUnknown
	for _, tier := range t.Tiers {
		top = max(top, tier)
	}
	if g == GrainSwitch || top < TierCore {
		return root
	}
	find := func(s int) int {
		for root[s] != s {
			root[s] = root[root[s]]
			s = root[s]
		}
		return s
	}
	for _, l := range t.Links {
		a, b := l.A-t.Hosts, l.B-t.Hosts
		if a < 0 || b < 0 || t.Tiers[a] == top || t.Tiers[b] == top {
			continue
		}
		ra, rb := find(a), find(b)
		root[max(ra, rb)] = min(ra, rb)
	}
	for s := range root {
		root[s] = find(s)
	}
	return root
}

// Lookahead is the smallest delay of a link whose ends are in different
// units, or an error that names the link (its two node names and its
// delay) when that delay is 0: a zero-delay link between units cannot run
// in parallel (docs/parallel.md). With no link between units it is
// engine.Never.
func Lookahead(t *Topology, unitOf []int32) (engine.Time, error) {
	if len(unitOf) != t.Nodes() {
		return 0, fmt.Errorf("fabric: a unit map of %d nodes for topology %s of %d", len(unitOf), t.Name, t.Nodes())
	}
	la := engine.Never
	for _, l := range t.Links {
		if unitOf[l.A] == unitOf[l.B] {
			continue
		}
		if l.Delay <= 0 {
			return 0, fmt.Errorf("fabric: link %s-%s (delay %v) joins units %d and %d: a zero-delay link between units cannot run in parallel",
				t.nodeName(l.A), t.nodeName(l.B), l.Delay, unitOf[l.A], unitOf[l.B])
		}
		la = min(la, l.Delay)
	}
	return la, nil
}

// switchName is switch s's name: from SwitchNames, else sw<s>.
func (t *Topology) switchName(s int) string {
	if s < len(t.SwitchNames) {
		return t.SwitchNames[s]
	}
	return fmt.Sprintf("sw%d", s)
}

// nodeName is node v's name: host<v>, or its switch's.
func (t *Topology) nodeName(v int) string {
	if v < t.Hosts {
		return fmt.Sprintf("host%d", v)
	}
	return t.switchName(v - t.Hosts)
}

// ParallelRouter is a Router of another package that can run on a World
// (fabric's own routers are known to BuildWorld: ECMP and NS3ECMP are
// stateless, Spray and Adaptive are made per switch). BuildWorld calls
// ForSwitch once per switch, before the run, and routes the switch's
// packets with the router it returns, which must touch no state that the
// router of a switch in another unit touches (a stateless router returns
// itself), or nil if it cannot run on a World after all (a wrapper whose
// base cannot: RouterForSwitch). s is the switch's thread, for its random
// streams (Sim.Rand). A router that embeds a ParallelRouter must define
// its own ForSwitch, or the embedded one's would replace it.
type ParallelRouter interface {
	Router
	ForSwitch(sw *Switch, s *engine.Sim) Router
}

// RouterForSwitch is the router switch sw runs on a World, on s, in place
// of r, or nil if r cannot run on a World: for a wrapping ParallelRouter's
// ForSwitch to derive its base's.
func RouterForSwitch(r Router, sw *Switch, s *engine.Sim) Router {
	switch r := r.(type) {
	case ECMP, *NS3ECMP: // stateless
		return r
	case Spray:
		// Every switch sprays from its own stream, "spray/<switch
		// index>" of the world's seed, instead of the one stream Rand
		// draws from on a plain network.
		return Spray{Rand: s.Rand(fmt.Sprintf("spray/%d", sw.index)).Uint32}
	case *Adaptive:
		// The flowlet tables are per switch; allocate them now rather
		// than on first use, so that no switch grows the table of
		// tables while another reads it.
		if r.FlowletGap > 0 {
			r.table(sw)
		}
		return r
	case ParallelRouter:
		return r.ForSwitch(sw, s)
	}
	return nil
}

// parallelRouter reports whether r may run on a World (RouterForSwitch
// may still refuse a wrapper's base).
func parallelRouter(r Router) bool {
	switch r.(type) {
	case ECMP, *NS3ECMP, Spray, *Adaptive, ParallelRouter:
		return true
	}
	return false
}

// NetCounters are the network-wide counters, summed over the threads.
type NetCounters struct {
	DroppedBytes, DroppedPayload, PauseFrames int64
	// PacketsLive are the packets in use (Pool.Live) and PacketsAllocated
	// the packet structs ever created (Pool.Allocated), over all pools.
	PacketsLive, PacketsAllocated int64
}

// Counters sums the network-wide counters over the threads' views: on a
// plain network, the Network's own fields and Pool.
func (n *Network) Counters() NetCounters {
	views := n.views
	if views == nil {
		views = []*Network{n}
	}
	var c NetCounters
	for _, v := range views {
		c.DroppedBytes += v.DroppedBytes
		c.DroppedPayload += v.DroppedPayload
		c.PauseFrames += v.PauseFrames
		c.PacketsLive += v.Pool.live
		c.PacketsAllocated += v.Pool.allocated
	}
	return c
}

// World is the engine.World the network runs on, or nil for a plain one.
func (n *Network) World() *engine.World { return n.world }

// HostSim is the Sim that runs host h's unit (n.Sim on a plain network):
// the host's NIC schedules there.
func (n *Network) HostSim(h int) *engine.Sim { return n.HostPorts[h].net.Sim }

// HostUnit is host h's unit (0 on a plain network).
func (n *Network) HostUnit(h int) int32 {
	if n.unitOf == nil {
		return 0
	}
	return n.unitOf[h]
}

// HostPool is the packet pool of host h's thread (n.Pool on a plain
// network): the host's NIC takes and frees its packets there.
func (n *Network) HostPool(h int) *Pool { return n.HostPorts[h].net.Pool }

// BuildWorld is Build on a World: node v's state (its ports, its switch,
// its queues) runs on w.Sim(int(unitOf[v])). w has at least as many units
// as unitOf names; the caller may add units of its own after them. w's
// lookahead must not exceed Lookahead(t, unitOf).
//
// It refuses what it cannot run in parallel: the ns-3 compatibility
// settings (Config.NS3Rand, NS3EventOrder, WholeNs: the compat profile
// replays ns-3's global event order and its one generator) and routers
// that do not implement ParallelRouter. fabric/isolation runs on it,
// reading a downstream switch in another unit through DelayIngressView.
func BuildWorld(w *engine.World, unitOf []int32, t *Topology, cfg Config) (*Network, error) {
	switch {
	case cfg.NS3Rand != nil:
		return nil, fmt.Errorf("fabric: ns-3's random draws (compat: hpcc-ns3) need the single-threaded engine")
	case cfg.NS3EventOrder:
		return nil, fmt.Errorf("fabric: ns-3's event order (compat: hpcc-ns3) needs the single-threaded engine")
	case cfg.WholeNs:
		return nil, fmt.Errorf("fabric: ns-3's whole-ns serialization (compat: hpcc-ns3) needs the single-threaded engine")
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	la, err := Lookahead(t, unitOf)
	if err != nil {
		return nil, err
	}
	for v, u := range unitOf {
		if u < 0 || int(u) >= w.Units() {
			return nil, fmt.Errorf("fabric: node %s in unit %d, but the world has %d units", t.nodeName(v), u, w.Units())
		}
	}
	if w.Lookahead() > la {
		return nil, fmt.Errorf("fabric: the world's lookahead %v is above the smallest delay between units, %v", w.Lookahead(), la)
	}
	if w.Threads() > maxWorldPools {
		return nil, fmt.Errorf("fabric: %d threads, at most %d", w.Threads(), maxWorldPools)
	}
	if r := cfg.Router; r != nil && !parallelRouter(r) {
		return nil, fmt.Errorf("fabric: router %T cannot run on several threads (it is not a fabric.ParallelRouter)", r)
	}
	return build(w.Sim(0), t, cfg, w, unitOf)
}

// parallelize readies a network built on a World (build): routers per
// switch, route tables filled, the threads' views, and the links between
// units.
func (n *Network) parallelize() error {
	w, t := n.world, n.Topo
	if !n.upDown {
		// Shortest-path tables are filled on first use with shared
		// scratch; fill them all now.
		for _, a := range n.attach {
			if sw := n.Switches[a]; sw.routes == nil || sw.routes[a] == nil {
				n.shortestPaths(a)
			}
		}
	}
	// One view per thread, thread i's pool a range of the shared index
	// space; the thread of unit 0 is the network itself.
	thread := map[*engine.Sim]int{}
	var sims []*engine.Sim
	for u := range w.Units() {
		if s := w.Sim(u); !slices.Contains(sims, s) {
			thread[s] = len(sims)
			sims = append(sims, s)
		}
	}
	pools := newWorldPools(len(sims))
	n.Pool = pools[0]
	n.views = make([]*Network, len(sims))
	for i, s := range sims {
		if i == 0 {
			n.views[0] = n
			continue
		}
		v := *n
		v.Sim, v.Pool, v.views = s, pools[i], nil
		if n.rings != nil {
			v.rings = &ringArena{}
		}
		n.views[i] = &v
	}
	view := func(node int) *Network { return n.views[thread[w.Sim(int(n.unitOf[node]))]] }
	for _, sw := range n.Switches {
		v := view(sw.ID)
		sw.net = v
		for _, pt := range sw.Ports {
			pt.net = v
		}
		if sw.router = RouterForSwitch(n.cfg.Router, sw, v.Sim); sw.router == nil {
			return fmt.Errorf("fabric: router %T cannot run on several threads (its base router is not a fabric.ParallelRouter)", n.cfg.Router)
		}
	}
	for h, pt := range n.HostPorts {
		pt.net = view(h)
	}
	// Links between units.
	hostOf := make(map[*Port]int, len(n.HostPorts))
	for h, pt := range n.HostPorts {
		hostOf[pt] = h
	}
	node := func(pt *Port) int {
		if pt.sw != nil {
			return pt.sw.ID
		}
		return hostOf[pt]
	}
	var err error
	n.allPorts(func(pt *Port) {
		a, b := node(pt), node(pt.Peer)
		ua, ub := n.unitOf[a], n.unitOf[b]
		if ua == ub {
			return
		}
		pt.cross = true
		pt.xl = &crossLink{from: pt, net: view(b), src: ua, dst: ub}
		if pt.cr != nil {
			pt.cr.x = &crossCredits{cr: pt.cr, src: ub, dst: ua}
		}
		if pt.Delay < w.Lookahead() { // Lookahead checked this; defensive
			err = fmt.Errorf("fabric: link %s-%s is shorter than the lookahead", t.nodeName(a), t.nodeName(b))
		}
	})
	return err
}

// crossLink is the receiving side of a link direction between units, and
// the courier that brings it the window's packets: from is the sending
// port (in the sending unit, which alone pushes onto its wire), in the
// packets taken from that wire at windows' ends, in the receiving unit,
// which alone pops them. Its event is the delivery of in's head.
type crossLink struct {
	from     *Port
	net      *Network // the receiving unit's thread's view
	in       wire
	src, dst int32 // the sending and the receiving unit

	// What a delivery reads of from (peerOwner, peerIdx, Peer,
	// Observer), copied at every window's end: from's first lines are
	// written by the sending thread at every transmission, and reading
	// them at every delivery would bounce them between cores.
	owner    Node
	observer Observer
	peer     *Port
	peerIdx  uint16
}

// Arrive implements engine.Courier: at the window's end, on the receiving
// thread, it moves the packets sent in the window to the receiving side,
// and schedules the first delivery if none is pending.
func (cl *crossLink) Arrive(s *engine.Sim) {
	pt := cl.from
	cl.owner, cl.observer, cl.peer, cl.peerIdx = pt.peerOwner, pt.Observer, pt.Peer, pt.peerIdx
	w := &pt.wire
	idle := cl.in.n == 0
	for w.n > 0 {
		at := w.hat
		cl.in.push(at, w.pop(), cl.net.rings)
	}
	if idle && cl.in.n > 0 {
		s.At(cl.in.next(), cl, 0)
	}
}

// Fire delivers in's head to the sending port's peer, as Port.Fire's
// evDeliver does on a link within a unit. The sending port's Observer is
// told of the delivery here, on the receiving unit's thread.
func (cl *crossLink) Fire(now engine.Time, _ uint8) {
	p := cl.in.pop()
	cl.in.touchNext()
	if cl.in.n > 0 {
		cl.net.Sim.At(cl.in.next(), cl, 0)
	}
	if cl.observer != nil {
		cl.observer.Deliver(now, cl.from, p)
	}
	p.inPort = cl.peerIdx
	cl.owner.Receive(now, p, cl.peer)
}

// crossCredits carries credit returns from a downstream switch to an
// upstream port in another unit: the switch collects a window's returns
// in rets and hands the courier over at the first; at the window's end
// the upstream port's unit takes them into its credits' schedule.
type crossCredits struct {
	cr       *credits
	rets     []creditReturn
	src, dst int32 // the downstream switch's unit, the upstream port's
}

// send queues r, from a handler of the downstream switch running on s.
func (x *crossCredits) send(s *engine.Sim, r creditReturn) {
	if len(x.rets) == 0 {
		s.Hand(x.src, x.dst, x)
	}
	x.rets = append(x.rets, r)
}

// Arrive implements engine.Courier.
func (x *crossCredits) Arrive(s *engine.Sim) {
	cr := x.cr
	cr.rets = append(cr.rets, x.rets...)
	x.rets = x.rets[:0]
	if !cr.pushed {
		cr.pushed = true
		s.At(cr.rets[cr.head].at, cr, 0)
	}
}
