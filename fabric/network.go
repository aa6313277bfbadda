package fabric

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/dcsim/dcsim/engine"
)

// Config holds the switch-wide settings of a network.
type Config struct {
	Buffer          int64   // shared buffer per switch, bytes
	PFC             bool    // lossless: per-class PFC; false = lossy tail drop
	Reserve         int64   // PFC reserve per (port, class), bytes (4096)
	ResumeOffset    int64   // PFC resume offset, bytes (3072)
	LossyQueueLimit int64   // lossy mode: static per egress queue limit, bytes; 0 = none
	LossyAlpha      float64 // lossy mode: dynamic threshold, queue <= alpha * free buffer

	// Strict is the set of classes served by strict priority (bit c =
	// class c); class 0 is always strict. The other classes share by
	// weighted round robin with Weights (packets per turn, >= 1).
	Strict  uint8
	Weights [NumClasses]int32

	// ECN marking; thresholds are given for a 100 Gbps port and scaled
	// linearly with each port's rate (docs/model.md §3.4). ClassECN overrides
	// them for single classes (a nil entry keeps the default; an entry
	// with Off set disables marking in that class). Class 0 is never marked.
	ECN      bool
	ECNKmin  int64
	ECNKmax  int64
	ECNPmax  float64
	ClassECN [NumClasses]*ECNThresholds

	INT bool // stamp INT hop records on data packets at every switch egress
	// INTBytesUnit and INTQLenUnit, when positive, quantise the INT byte
	// counter and queue length down to multiples of these units, as the
	// reference's fixed-width fields do (int-header.h IntHop::Set:
	// byteUnit 128 and qlenUnit 80 times INT_MULTI). 0 keeps them exact.
	INTBytesUnit, INTQLenUnit int64

	// WholeNs truncates every serialization time to whole ns the way the
	// reference model does (engine.Rate.TxTimeWholeNs; qbb-net-device.cc
	// QbbNetDevice::TransmitStart). Off, times are exact in ps.
	WholeNs bool
	// NS3EventOrder schedules each packet's delivery and the end of its
	// transmission when the transmission starts, as ns-3 does
	// (QbbNetDevice::TransmitStart schedules TransmitComplete, then
	// QbbChannel::TransmitStart the peer's Receive), so that events due at
	// the same ns run in the reference's order. Off, a link keeps only its
	// next delivery in the event queue, and a port whose queue emptied
	// schedules its transmitter only when a packet arrives (same times,
	// fewer events).
	NS3EventOrder bool
	// NS3Rand, when set, supplies every ECN draw as the reference does
	// (NS3Rand doc) and takes a stream for each dequeue ns-3 would draw
	// for without dcsim marking (a non-data packet in a data class
	// between kmin and kmax) and for each PFC frame; a switch then also
	// releases a dequeued packet's buffer after its marking decision, as
	// SwitchNode::SwitchNotifyDequeue orders them. nil: dcsim's own stream.
	NS3Rand *NS3Rand

	// Headroom chooses how each ingress port's PFC headroom is sized:
	// HeadroomReference (the zero value) is the reference model's
	// rate*delay*3; HeadroomSized holds everything that can arrive after
	// the PAUSE decision (Config.SizedHeadroom), from MaxFrame, the largest
	// frame in a data class (bytes, headers included), and PFCResponse, the
	// upstream's reaction time beyond finishing the frame it is sending.
	Headroom    HeadroomRule
	MaxFrame    int64
	PFCResponse engine.Time

	// Credits, when positive, replaces PFC by credit-based flow control
	// (credit.go): per data class, the bytes of each switch input buffer
	// its upstream port may fill; a class stalls below MaxFrame credits.
	Credits int64

	Router Router // nil: ECMP with salt 0
}

// HeadroomRule is a way of sizing PFC headroom (Config.Headroom).
type HeadroomRule uint8

const (
	// HeadroomReference is rate_bps * prop_delay_ns / 8 / 10^9 * 3
	// (docs/model.md §3.3; third.cc's ConfigHdrm), independent of the MTU.
	HeadroomReference HeadroomRule = iota
	// HeadroomSized is Config.SizedHeadroom.
	HeadroomSized
	// HeadroomCovering is the larger of the two: the reference's number
	// wherever it suffices (100 Gbps, 1 us, MTU 1000: 37,500 B against
	// 28,187 sized), so PFC thresholds equal the reference's there, and
	// the sized number wherever the reference's would drop (MTU 9000:
	// 52,187 B against 37,500).
	HeadroomCovering
)

// SizedHeadroom is the headroom that an ingress port on a link of rate r
// and propagation delay d needs so that a lossless fabric never drops,
// counted from the admission that makes the switch send PAUSE:
//
//	2*r*d        what the upstream sends during the PAUSE's trip and is
//	             on the wire behind it (the link's round trip)
//	+ MaxFrame   the frame the switch is sending upstream when it queues
//	             the PAUSE (class 0 goes next, but a frame is not cut)
//	+ 43 B       the PAUSE frame's own serialization
//	+ r*PFCResponse  the upstream's reaction time
//	+ MaxFrame   the frame the upstream has started when the PAUSE lands
//	+ MaxFrame   the arrival that triggered the PAUSE: when the dynamic
//	             threshold has fallen below the port's share (other ports
//	             took shared buffer), that arrival is itself charged to
//	             headroom
//
// in bytes, r*t rounded down. It is docs/model.md §3.3's intent (in-flight
// bytes over the round trip, a frame on each side, the response time)
// spelled out for dcsim's switch, where a frame counts on arrival of its
// last bit. The reference's rate*delay*3 is 37,500 B at 100 Gbps and 1 us
// whatever the MTU: 25,000 B of round trip leaves room for 12,500 B of
// frames, which three 9048 B frames overflow (issue #19: a k = 16
// fat-tree without CC at MTU 9000 dropped 93k packets at headroom).
func (c *Config) SizedHeadroom(r engine.Rate, d engine.Time) int64 {
	return r.BytesIn(2*d+c.PFCResponse) + 3*c.MaxFrame + PFCFrameBytes
}

// ECNThresholds are one class's RED parameters at 100 Gbps.
type ECNThresholds struct {
	Off        bool
	Kmin, Kmax int64
	Pmax       float64
}

// DefaultConfig is the reference model's switch at 100 Gbps: 32 MiB
// shared buffer, PFC with 4096 B reserve and 3072 B resume offset, RED ECN
// 400 KB / 1600 KB / 0.2, round robin over data classes.
func DefaultConfig() Config {
	c := Config{Buffer: 32 * engine.MiB, PFC: true, Reserve: 4096, ResumeOffset: 3072,
		LossyAlpha: 1, Strict: 1, ECN: true, ECNKmin: 400 * engine.KB, ECNKmax: 1600 * engine.KB, ECNPmax: 0.2}
	for i := range c.Weights {
		c.Weights[i] = 1
	}
	return c
}

// Network is an instantiated topology: switches with ports, and one port
// per host waiting for a NIC to attach.
type Network struct {
	// Sim and Pool are the network's simulation and packet pool; on a
	// World (BuildWorld) the first thread's, and a host's NIC uses its
	// own thread's (HostSim, HostPool).
	Sim      *engine.Sim
	Pool     *Pool
	Topo     *Topology
	Switches []*Switch
	// HostPorts[h] is host h's NIC-side port (its Owner is set by Attach).
	HostPorts []*Port

	cfg      Config
	attach   []int32 // host -> index in Switches of its switch
	hostPort []int32 // host -> index of the port facing it on that switch

	// Network-wide counters. On a World network each thread's view
	// (world.go) keeps its own; Counters sums them.
	DroppedBytes   int64
	DroppedPayload int64
	PauseFrames    int64

	// On a World (BuildWorld; nil otherwise): the world, each node's
	// unit, and the network's view for each thread, views[0] being the
	// network itself.
	world  *engine.World
	unitOf []int32
	views  []*Network
	// ingressViews are the delayed views of DelayIngressView (ingressview.go),
	// the same in every view.
	ingressViews ingressViews

	upDown   bool    // routing by the switches' up/down tables
	bfsDist  []int32 // scratch for shortestPaths
	bfsQueue []int32
	rings    *ringArena // nil below arenaMinPorts ports

	// The policies Build picks once from the configuration, so that no
	// packet's path asks which mode or profile runs.
	ingress ingress     // flow control: lossy, PFC or credits (ingressModes)
	draws   switchDraws // RED's and PFC's draws: the "ecn" stream or NS3Rand
}

// Build instantiates t. NICRate (for the PFC alpha shift) is the lowest
// host link rate.
func Build(sim *engine.Sim, t *Topology, cfg Config) (*Network, error) {
	return build(sim, t, cfg, nil, nil)
}

// build is Build, and BuildWorld's common part when w is not nil.
func build(sim *engine.Sim, t *Topology, cfg Config, w *engine.World, unitOf []int32) (*Network, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	n := &Network{Sim: sim, Pool: &Pool{}, Topo: t, cfg: cfg, world: w, unitOf: unitOf}
	if n.cfg.Router == nil {
		n.cfg.Router = ECMP{}
	}
	n.cfg.Strict |= 1
	n.draws = streamDraws(sim.Rand("ecn").Float64)
	if cfg.NS3Rand != nil {
		n.draws = cfg.NS3Rand
	}
	ports, next := n.layOut()
	n.wire(ports, next)
	n.setECN()
	n.initBuffers()
	if err := n.buildRoutes(); err != nil {
		return nil, err
	}
	n.ingress = newIngress(n)
	if w != nil {
		if err := n.parallelize(); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// check rejects a configuration Build cannot use.
func (cfg *Config) check() error {
	if !cfg.PFC && cfg.LossyAlpha <= 0 {
		return fmt.Errorf("lossy mode needs a positive dynamic-threshold alpha")
	}
	if cfg.Buffer <= 0 {
		return fmt.Errorf("switch buffer must be positive")
	}
	if cfg.Credits > 0 && (cfg.MaxFrame <= 0 || cfg.Credits < cfg.MaxFrame) {
		return fmt.Errorf("credit-based flow control needs a positive maximum frame and at least that many credits (credits %d, frame %d)", cfg.Credits, cfg.MaxFrame)
	}
	if cfg.PFC && cfg.Headroom != HeadroomReference && (cfg.MaxFrame <= 0 || cfg.PFCResponse < 0) {
		return fmt.Errorf("sized PFC headroom needs a positive maximum frame and a non-negative response time")
	}
	for c := 1; c < NumClasses; c++ {
		if cfg.Weights[c] < 1 {
			return fmt.Errorf("wrr weight of class %d must be >= 1", c)
		}
	}
	if cfg.ECN && (cfg.ECNKmin < 0 || cfg.ECNKmax < cfg.ECNKmin || cfg.ECNPmax < 0 || cfg.ECNPmax > 1) {
		return fmt.Errorf("ecn: need 0 <= kmin <= kmax and pmax in [0, 1]")
	}
	for c, e := range cfg.ClassECN {
		if e != nil && !e.Off && (e.Kmin < 0 || e.Kmax < e.Kmin || e.Pmax < 0 || e.Pmax > 1) {
			return fmt.Errorf("ecn of class %d: need 0 <= kmin <= kmax and pmax in [0, 1]", c)
		}
	}
	return nil
}

// layOut places the switches and their ports in memory: every switch in
// one block, every port in another, each node's ports contiguous in link
// order (Switch.ports). The ports are not yet initialised (wire does);
// next[node] is the slot of the node's first port.
func (n *Network) layOut() (ports []Port, next []int32) {
	t := n.Topo
	// All switches in one block, each a multiple of 128 bytes: a large
	// block is page-aligned, so a switch's hot lines start a 128-byte pair.
	switches := make([]Switch, max(t.Switches, 32<<10/int(unsafe.Sizeof(Switch{}))+1))
	n.Switches = make([]*Switch, t.Switches)
	for s := range n.Switches {
		sw := &switches[s]
		*sw = Switch{net: n, ID: t.Hosts + s, index: int32(s), Name: t.switchName(s), router: n.cfg.Router}
		n.Switches[s] = sw
	}
	// All ports in one allocation of at least 32 KiB: Go page-aligns such
	// large objects (smaller ones holding pointers start 8 bytes into
	// their slot), so every port, a multiple of 128 bytes, starts a
	// 128-byte pair of lines. Each node's ports are contiguous, in link
	// order, so that a switch finds its egress port by its index
	// (Switch.ports) without loading a pointer.
	ports = make([]Port, max(2*len(t.Links), 32<<10/int(unsafe.Sizeof(Port{}))+1))
	if 2*len(t.Links) >= arenaMinPorts {
		n.rings = &ringArena{}
	}
	adviseHugePages(unsafe.Pointer(&ports[0]), uintptr(len(ports))*unsafe.Sizeof(Port{}))
	next = make([]int32, t.Hosts+t.Switches+1) // next[node]: its next port's slot
	for _, l := range t.Links {
		next[l.A+1]++
		next[l.B+1]++
	}
	for i := 1; i < len(next); i++ {
		next[i] += next[i-1]
	}
	for s, sw := range n.Switches {
		lo, hi := next[t.Hosts+s], next[t.Hosts+s+1]
		sw.ports = ports[lo:hi:hi]
	}
	return ports, next
}

// wire initialises the ports of every link in link order and connects
// them. ports and next are layOut's.
func (n *Network) wire(ports []Port, next []int32) {
	t, cfg := n.Topo, &n.cfg
	n.HostPorts = make([]*Port, t.Hosts)
	n.attach = make([]int32, t.Hosts)
	n.hostPort = make([]int32, t.Hosts)
	// The serialization clock: exact ps, by the per-byte time where it
	// is whole, or ns-3's whole ns, which every transmission asks of
	// TxTime.
	perByte := engine.Rate.PsPerByte
	if cfg.WholeNs {
		perByte = func(engine.Rate) engine.Time { return 0 }
	}
	newPort := func(owner int, rate engine.Rate, delay engine.Time) *Port {
		pt := &ports[next[owner]]
		next[owner]++
		*pt = Port{net: n, Rate: rate, psPerByte: perByte(rate), Delay: delay, strict: cfg.Strict,
			wholeNs: cfg.WholeNs, eventPerPkt: cfg.NS3EventOrder}
		for c := range pt.cls {
			pt.cls[c].weight = cfg.Weights[c]
			pt.cls[c].ecnKmin = math.MaxInt64
		}
		if owner >= t.Hosts {
			sw := n.Switches[owner-t.Hosts]
			pt.sw, pt.Owner, pt.Index = sw, sw, len(sw.Ports)
			sw.Ports = append(sw.Ports, pt)
			pt.stampIN = cfg.INT
		} else {
			n.HostPorts[owner] = pt
		}
		return pt
	}
	for _, l := range t.Links {
		a := newPort(l.A, l.Rate, l.Delay)
		b := newPort(l.B, l.Rate, l.Delay)
		a.Peer, b.Peer = b, a
		a.peerOwner, a.peerIdx = b.Owner, uint16(b.Index)
		b.peerOwner, b.peerIdx = a.Owner, uint16(a.Index)
		if l.A < t.Hosts {
			n.attach[l.A] = int32(l.B - t.Hosts)
			n.hostPort[l.A] = int32(b.Index)
		}
		if l.B < t.Hosts {
			n.attach[l.B] = int32(l.A - t.Hosts)
			n.hostPort[l.B] = int32(a.Index)
		}
	}
	for _, sw := range n.Switches {
		for i := range sw.Ports {
			sw.portIDs = append(sw.portIDs, int32(i))
		}
	}
}

// setECN gives every switch port's data classes their RED parameters,
// scaled to the port's rate, with n.draws as their random source (on a
// World, a stream per switch). They are stateless but for the draws:
// ports of one rate (and, on a World, one switch) share them per class.
func (n *Network) setECN() {
	cfg := &n.cfg
	type ecnKey struct {
		sw    int // -1 but on a World
		class int
		rate  engine.Rate
	}
	ecns := map[ecnKey]*ECN{}
	for _, sw := range n.Switches {
		draws, key := n.draws, -1
		if n.world != nil {
			// Each switch its own stream, so that no two units share one
			// (docs/parallel.md): "ecn/<switch index>" of the world's seed.
			draws, key = streamDraws(n.world.Sim(int(n.unitOf[sw.ID])).Rand(fmt.Sprintf("ecn/%d", sw.index)).Float64), int(sw.index)
		}
		for _, pt := range sw.Ports {
			for c := 1; c < NumClasses; c++ {
				th := ECNThresholds{Off: !cfg.ECN, Kmin: cfg.ECNKmin, Kmax: cfg.ECNKmax, Pmax: cfg.ECNPmax}
				if o := cfg.ClassECN[c]; o != nil {
					th = *o
				}
				if th.Off {
					continue
				}
				e := ecns[ecnKey{key, c, pt.Rate}]
				if e == nil {
					e = &ECN{Kmin: scaleBytes(th.Kmin, pt.Rate), Kmax: scaleBytes(th.Kmax, pt.Rate),
						Pmax: th.Pmax, draws: draws}
					ecns[ecnKey{key, c, pt.Rate}] = e
				}
				pt.cls[c].ecn, pt.cls[c].ecnKmin = e, e.Kmin
			}
		}
	}
}

// initBuffers sets up every switch's ingress accounting (mmu), all in
// one block advised for huge pages like the ports: on a large fabric it
// spans megabytes (128 B per switch port), touched at every admission
// and departure. The PFC alpha shift counts from the lowest host link
// rate.
func (n *Network) initBuffers() {
	nicRate := engine.Rate(0)
	for _, l := range n.Topo.Links {
		if (l.A < n.Topo.Hosts || l.B < n.Topo.Hosts) && (nicRate == 0 || l.Rate < nicRate) {
			nicRate = l.Rate
		}
	}
	swPorts := 0
	for _, sw := range n.Switches {
		swPorts += len(sw.Ports)
	}
	in := make([]mmuPort, swPorts)
	if swPorts > 0 {
		adviseHugePages(unsafe.Pointer(&in[0]), uintptr(swPorts)*unsafe.Sizeof(mmuPort{}))
	}
	for _, sw := range n.Switches {
		np := len(sw.Ports)
		sw.mmu.init(&n.cfg, sw.Ports, nicRate, in[:np:np])
		in = in[np:]
	}
}

// scaleBytes scales a threshold given at 100 Gbps to rate.
func scaleBytes(b int64, rate engine.Rate) int64 {
	return int64(float64(b) * float64(rate) / float64(100*engine.Gbps))
}

// Config returns the network's switch configuration.
func (n *Network) Config() Config { return n.cfg }

// Attach connects host h's port to a NIC: packets arriving at the host go
// to node, and the port pulls what it sends from src.
func (n *Network) Attach(h int, node Node, src Source) *Port {
	pt := n.HostPorts[h]
	pt.Owner = node
	pt.Index = 0
	pt.Peer.peerOwner, pt.Peer.peerIdx = node, 0
	pt.source = src
	return pt
}

// Path describes the first shortest path between two hosts: the one whose
// every hop takes the lowest-numbered candidate port.
type Path struct {
	Rates  []engine.Rate // per hop, source host link first
	Delays []engine.Time
}

// Bottleneck is the lowest link rate on the path.
func (p Path) Bottleneck() engine.Rate {
	b := p.Rates[0]
	for _, r := range p.Rates {
		b = min(b, r)
	}
	return b
}

// BaseRTT is the path's base RTT (docs/model.md §8.1, the function BaseRTT).
func (p Path) BaseRTT(payload int64) engine.Time { return BaseRTT(p.Delays, p.Rates, payload) }

// PathBetween returns the path from host src to host dst.
func (n *Network) PathBetween(src, dst int) Path {
	var p Path
	n.walkPath(src, dst, func(r engine.Rate, d engine.Time) {
		p.Rates = append(p.Rates, r)
		p.Delays = append(p.Delays, d)
	})
	return p
}

// hopNs is one hop's part of BaseRTT: twice its propagation delay, in
// whole ns, plus one payload's serialization, in whole ns.
func hopNs(payload int64, r engine.Rate, d engine.Time) int64 {
	return (2 * d).Nanoseconds() + engine.MulDiv(payload, 8*1_000_000_000, int64(r))
}

// maxOf folds one path's base RTT (ns) and bottleneck into MaxRTTBDP's
// maxima.
func maxOf(maxRTT engine.Time, maxBDP, ns int64, bottleneck engine.Rate) (engine.Time, int64) {
	rtt := engine.Time(ns) * engine.Nanosecond
	return max(maxRTT, rtt), max(maxBDP, BDP(rtt, bottleneck))
}

// walkPath calls hop with the rate and delay of every link on the first
// shortest path from host src to host dst, the source's host link first.
func (n *Network) walkPath(src, dst int, hop func(engine.Rate, engine.Time)) {
	pt := n.HostPorts[src]
	hop(pt.Rate, pt.Delay)
	n.walkFrom(pt.Peer.sw, dst, hop)
}

// walkFrom is walkPath from switch sw on.
func (n *Network) walkFrom(sw *Switch, dst int, hop func(engine.Rate, engine.Time)) {
	for hops := 0; ; hops++ {
		if hops > len(n.Switches) {
			panic("fabric: routing loop")
		}
		out := sw.Ports[sw.Routes(int32(dst))[0]]
		hop(out.Rate, out.Delay)
		if out.Peer.sw == nil {
			return
		}
		sw = out.Peer.sw
	}
}

// MaxRTTBDP is maxRtt and maxBdp (docs/model.md §2.1) over host pairs for a
// payload size: the largest base RTT, and the largest rtt*bottleneck in
// bytes. It evaluates one pair per pair of attachment switches (plus a
// same-switch pair where a switch has two hosts), which is exact when the
// hosts of one switch share a link type, as in every built-in topology.
// It walks the paths without building them (Path.BaseRTT's arithmetic),
// as a fat-tree has a million pairs of leaves.
func (n *Network) MaxRTTBDP(payload int64) (maxRTT engine.Time, maxBDP int64) {
	first := make([]int32, len(n.Switches))
	second := make([]int32, len(n.Switches))
	for i := range first {
		first[i], second[i] = -1, -1
	}
	var order []int32
	for h := 0; h < n.Topo.Hosts; h++ {
		a := n.attach[h]
		if first[a] < 0 {
			first[a] = int32(h)
			order = append(order, a)
		} else if second[a] < 0 {
			second[a] = int32(h)
		}
	}
	if n.upDown {
		return n.maxRTTBDPUpDown(payload, first, second, order)
	}
	var ns int64
	var bottleneck engine.Rate
	hop := func(r engine.Rate, d engine.Time) {
		ns += hopNs(payload, r, d)
		bottleneck = min(bottleneck, r)
	}
	for _, a := range order {
		for _, b := range order {
			src, dst := first[a], first[b]
			if a == b {
				if dst = second[a]; dst < 0 {
					continue
				}
			}
			ns, bottleneck = 0, engine.Rate(math.MaxInt64)
			n.walkPath(int(src), int(dst), hop)
			maxRTT, maxBDP = maxOf(maxRTT, maxBDP, ns, bottleneck)
		}
	}
	return maxRTT, maxBDP
}
