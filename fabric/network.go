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
	// linearly with each port's rate (REFERENCE 3.4). ClassECN overrides
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

	Router Router // nil: ECMP with salt 0
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
	Sim      *engine.Sim
	Pool     *Pool
	Topo     *Topology
	Switches []*Switch
	// HostPorts[h] is host h's NIC-side port (its Owner is set by Attach).
	HostPorts []*Port

	cfg      Config
	attach   []int32 // host -> index in Switches of its switch
	hostPort []int32 // host -> index of the port facing it on that switch

	// Network-wide counters.
	DroppedBytes   int64
	DroppedPayload int64
	PauseFrames    int64
}

// Build instantiates t. NICRate (for the PFC alpha shift) is the lowest
// host link rate.
func Build(sim *engine.Sim, t *Topology, cfg Config) (*Network, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if !cfg.PFC && cfg.LossyAlpha <= 0 {
		return nil, fmt.Errorf("lossy mode needs a positive dynamic-threshold alpha")
	}
	if cfg.Buffer <= 0 {
		return nil, fmt.Errorf("switch buffer must be positive")
	}
	for c := 1; c < NumClasses; c++ {
		if cfg.Weights[c] < 1 {
			return nil, fmt.Errorf("wrr weight of class %d must be >= 1", c)
		}
	}
	if cfg.ECN && (cfg.ECNKmin < 0 || cfg.ECNKmax < cfg.ECNKmin || cfg.ECNPmax < 0 || cfg.ECNPmax > 1) {
		return nil, fmt.Errorf("ecn: need 0 <= kmin <= kmax and pmax in [0, 1]")
	}
	for c, e := range cfg.ClassECN {
		if e != nil && !e.Off && (e.Kmin < 0 || e.Kmax < e.Kmin || e.Pmax < 0 || e.Pmax > 1) {
			return nil, fmt.Errorf("ecn of class %d: need 0 <= kmin <= kmax and pmax in [0, 1]", c)
		}
	}
	n := &Network{Sim: sim, Pool: &Pool{}, Topo: t, cfg: cfg}
	if n.cfg.Router == nil {
		n.cfg.Router = ECMP{}
	}
	n.cfg.Strict |= 1
	ecnRand := sim.Rand("ecn")
	for s := 0; s < t.Switches; s++ {
		name := fmt.Sprintf("sw%d", s)
		if s < len(t.SwitchNames) {
			name = t.SwitchNames[s]
		}
		n.Switches = append(n.Switches, &Switch{net: n, ID: t.Hosts + s, index: s, Name: name, router: n.cfg.Router})
	}
	n.HostPorts = make([]*Port, t.Hosts)
	n.attach = make([]int32, t.Hosts)
	n.hostPort = make([]int32, t.Hosts)
	nicRate := engine.Rate(0)
	// All ports in one allocation of at least 32 KiB: Go page-aligns such
	// large objects (smaller ones holding pointers start 8 bytes into
	// their slot), so every port, a multiple of 64 bytes, starts a line.
	ports := make([]Port, max(2*len(t.Links), 32<<10/int(unsafe.Sizeof(Port{}))+1))
	newPort := func(owner int, rate engine.Rate, delay engine.Time) *Port {
		pt := &ports[0]
		ports = ports[1:]
		*pt = Port{net: n, sim: sim, Rate: rate, psPerByte: rate.PsPerByte(), Delay: delay, strict: n.cfg.Strict,
			wholeNs: cfg.WholeNs, eventPerPkt: cfg.NS3EventOrder}
		if cfg.WholeNs {
			pt.psPerByte = 0 // transmit takes the slow path, TxTime
		}
		for c := range pt.cls {
			pt.cls[c].weight = n.cfg.Weights[c]
			pt.cls[c].ecnKmin = math.MaxInt64
		}
		if owner >= t.Hosts {
			sw := n.Switches[owner-t.Hosts]
			pt.sw, pt.Owner, pt.Index = sw, sw, len(sw.Ports)
			sw.Ports = append(sw.Ports, pt)
			for c := 1; c < NumClasses; c++ {
				th := ECNThresholds{Off: !cfg.ECN, Kmin: cfg.ECNKmin, Kmax: cfg.ECNKmax, Pmax: cfg.ECNPmax}
				if o := cfg.ClassECN[c]; o != nil {
					th = *o
				}
				if !th.Off {
					pt.cls[c].ecn = &ECN{Kmin: scaleBytes(th.Kmin, rate), Kmax: scaleBytes(th.Kmax, rate),
						Pmax: th.Pmax, rand: ecnRand.Float64}
					pt.cls[c].ecnKmin = pt.cls[c].ecn.Kmin
				}
			}
			pt.stampIN = cfg.INT
		} else {
			n.HostPorts[owner] = pt
			if nicRate == 0 || rate < nicRate {
				nicRate = rate
			}
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
		sw.mmu.init(cfg.Buffer, cfg.Reserve, cfg.ResumeOffset, sw.Ports, nicRate)
	}
	if err := n.computeRoutes(); err != nil {
		return nil, err
	}
	return n, nil
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

// computeRoutes fills every switch's shortest-path next hops towards every
// other switch, by BFS over the switch graph (hosts never carry transit).
func (n *Network) computeRoutes() error {
	S := len(n.Switches)
	idx := func(pt *Port) int { // switch index of the peer, or -1 for a host
		if pt.Peer.sw == nil {
			return -1
		}
		return pt.Peer.sw.ID - n.Topo.Hosts
	}
	dist := make([]int32, S)
	queue := make([]int, 0, S)
	for _, sw := range n.Switches {
		sw.routes = make([][]int32, S)
	}
	for dst := 0; dst < S; dst++ {
		for i := range dist {
			dist[i] = -1
		}
		dist[dst] = 0
		queue = append(queue[:0], dst)
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for _, pt := range n.Switches[u].Ports {
				v := idx(pt)
				if v >= 0 && dist[v] < 0 {
					dist[v] = dist[u] + 1
					queue = append(queue, v)
				}
			}
		}
		for u, sw := range n.Switches {
			if u == dst || dist[u] < 0 {
				continue
			}
			for _, pt := range sw.Ports {
				if v := idx(pt); v >= 0 && dist[v] == dist[u]-1 {
					sw.routes[dst] = append(sw.routes[dst], int32(pt.Index))
				}
			}
		}
	}
	// Every pair of host switches must be connected.
	for h := 0; h < n.Topo.Hosts; h++ {
		a, b := n.attach[0], n.attach[h]
		if a != b && len(n.Switches[a].routes[b]) == 0 {
			return fmt.Errorf("topology %s: host %d is unreachable from host 0", n.Topo.Name, h)
		}
	}
	return nil
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

// BaseRTT is the reference model's base RTT (REFERENCE 8.1): twice the
// propagation delay plus one payload-sized serialization per hop, with the
// per-hop serialization computed in integer nanoseconds.
func (p Path) BaseRTT(payload int64) engine.Time {
	var ns int64
	for i, r := range p.Rates {
		ns += 2*p.Delays[i].Nanoseconds() + payload*8*1e9/int64(r)
	}
	return engine.Time(ns) * engine.Nanosecond
}

// PathBetween returns the path from host src to host dst.
func (n *Network) PathBetween(src, dst int) Path {
	var p Path
	pt := n.HostPorts[src]
	p.Rates = append(p.Rates, pt.Rate)
	p.Delays = append(p.Delays, pt.Delay)
	sw := pt.Peer.sw
	for hops := 0; ; hops++ {
		if hops > len(n.Switches) {
			panic("fabric: routing loop")
		}
		out := sw.Ports[sw.Routes(int32(dst))[0]]
		p.Rates = append(p.Rates, out.Rate)
		p.Delays = append(p.Delays, out.Delay)
		if out.Peer.sw == nil {
			return p
		}
		sw = out.Peer.sw
	}
}

// MaxRTTBDP is maxRtt and maxBdp (REFERENCE 2.1) over host pairs for a
// payload size: the largest base RTT, and the largest rtt*bottleneck in
// bytes. It evaluates one pair per pair of attachment switches (plus a
// same-switch pair where a switch has two hosts), which is exact when the
// hosts of one switch share a link type, as in every built-in topology.
func (n *Network) MaxRTTBDP(payload int64) (maxRTT engine.Time, maxBDP int64) {
	first := map[int32]int{}
	second := map[int32]int{}
	var order []int32
	for h := 0; h < n.Topo.Hosts; h++ {
		a := n.attach[h]
		if _, ok := first[a]; !ok {
			first[a] = h
			order = append(order, a)
		} else if _, ok := second[a]; !ok {
			second[a] = h
		}
	}
	for _, a := range order {
		for _, b := range order {
			src, dst := first[a], first[b]
			if a == b {
				s, ok := second[a]
				if !ok {
					continue
				}
				dst = s
			}
			p := n.PathBetween(src, dst)
			rtt := p.BaseRTT(payload)
			maxRTT = max(maxRTT, rtt)
			maxBDP = max(maxBDP, rtt.Nanoseconds()*int64(p.Bottleneck())/1e9/8)
		}
	}
	return maxRTT, maxBDP
}
