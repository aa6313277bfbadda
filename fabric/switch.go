package fabric

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
)

// PFC frame size on the wire (docs/model.md §4.1).
const PFCFrameBytes = 43

// Switch is an output-queued switch with a shared buffer. Ingress
// accounting, PFC and headroom follow the reference model's Broadcom-style
// MMU (docs/model.md §3.3); egress queues, scheduling and ECN live in its Ports.
//
// Field order is deliberate (TestSwitchLayout pins it): what a packet's
// route and admission read fills the first three cache lines (the router,
// the up/down table, the port block, the buffer accounting's summary),
// and Build allocates all switches in one block, so a hop touches three
// lines of its switch; names, tiers' down ports, counters and the
// shortest-path tables follow.
type Switch struct {
	// Line 0.
	net     *Network
	ports   []Port // Ports[i] is &ports[i]: a switch's ports are contiguous
	router  Router
	monitor QueueMonitor // nil: no congestion isolation

	// Line 1. updown is the up/down table when Network.upDown; UpPorts
	// and DownPorts are the indices in Ports of the switch's links to a
	// higher and to a lower tier (hosts included), in port order. A
	// switch of unknown tier (Tier) has neither.
	updown  upDown
	UpPorts []int32
	index   int32 // position in Network.Switches
	Tier    Tier

	// Line 2 (and the start of 3): the buffer's accounting.
	mmu mmu

	ID        int // node id in the topology
	Name      string
	Ports     []*Port
	DownPorts []int32

	// routes[dstSwitch] lists the ports on shortest paths to dstSwitch
	// (topologies without tiers), filled on first use (nil until then).
	routes  [][]int32
	portIDs []int32 // 0, 1, ..., len(Ports)-1

	// Counters.
	Drops        int64 // packets dropped (lossy mode, or headroom overflow)
	DroppedBytes int64

	// HeadroomDrops are drops in lossless mode with headroom full that
	// nothing modelled explains: a sizing error, which Check reports.
	// PauseIgnoredDrops are drops in lossless mode at an ingress (port,
	// class) that, during the current PAUSE, received a packet its sender
	// sent into the paused class: NICs send ACKs while their data class is
	// paused (ack_high_prio, as the reference model's ACK_HIGH_PRIO does),
	// which no headroom bounds; the reference drops them too.
	HeadroomDrops     int64
	PauseIgnoredDrops int64
	PauseSent         int64
	ResumeSent        int64
}

// QueueMonitor watches a switch's data-class egress queues and handles
// the ARN frames that reach it (congestion isolation, package
// fabric/isolation). A switch without one pays one nil comparison per
// packet.
type QueueMonitor interface {
	// Changed follows every enqueue and dequeue of a data-class packet
	// on out's class queue.
	Changed(now engine.Time, sw *Switch, out *Port, class uint8)
	// Receive takes ownership of an ARN frame that arrived on in.
	Receive(now engine.Time, sw *Switch, p *Packet, in *Port)
}

// SetMonitor installs m on the switch.
func (s *Switch) SetMonitor(m QueueMonitor) { s.monitor = m }

// Index is the switch's position in Network.Switches.
func (s *Switch) Index() int { return int(s.index) }

// Network is the network the switch belongs to: on a World, its thread's
// view of it (world.go), which shares all but the Sim, the Pool, the ring
// arena and the network-wide counters.
func (s *Switch) Network() *Network { return s.net }

// IngressBytes is the data the switch holds from ingress port i in class
// c: its input buffer's occupancy for that class.
func (s *Switch) IngressBytes(i int, c uint8) int64 {
	if c == 0 || c >= NumClasses {
		return 0 // control frames are not admitted against the buffer
	}
	cl := s.mmu.in[i].class(c)
	return cl.ingress + cl.hdrm
}

// SendControl queues control frame p (class 0: never paused, not
// admitted against the buffer) on port i.
func (s *Switch) SendControl(now engine.Time, i int, p *Packet) {
	if p.Class != 0 {
		panic("fabric: SendControl of a packet outside class 0")
	}
	s.Ports[i].enqueue(now, p)
}

// Routes returns the candidate egress ports towards host dst.
func (s *Switch) Routes(dst int32) []int32 {
	one, hops := s.nextHops(dst)
	if one >= 0 {
		return s.single(one)
	}
	return hops
}

// nextHops is Routes for the routers: a single next hop as one (then hops
// is nil), or -1 and the candidates. A router that takes the single port
// from one does not load the one-element slice Routes would build for it
// (a cache miss per hop on a large fabric, where portIDs is cold).
func (s *Switch) nextHops(dst int32) (one int32, hops []int32) {
	a := s.net.attach[dst]
	if a == s.index {
		return s.net.hostPort[dst], nil
	}
	if s.net.upDown {
		if i := a - s.updown.lo; uint32(i) < uint32(len(s.updown.down)) {
			if d := s.updown.down[i]; d != noPort {
				return int32(d), nil
			}
		}
		return -1, s.UpPorts
	}
	if s.routes == nil || s.routes[a] == nil {
		s.net.shortestPaths(a)
	}
	return -1, s.routes[a]
}

// single returns the one-element route {pi} without allocating.
func (s *Switch) single(pi int32) []int32 { return s.portIDs[pi : pi+1] }

// Receive implements Node.
func (s *Switch) Receive(now engine.Time, p *Packet, in *Port) {
	switch p.Kind {
	case PFC:
		if s.net.cfg.PFC {
			in.SetPaused(now, uint8(p.Arg), p.Pause)
		}
		s.net.Pool.Put(p)
		return
	case ARN:
		s.monitor.Receive(now, s, p, in)
		return
	}
	p.ectx = p.Class
	out := &s.ports[s.router.Route(s, p, int(p.inPort))]
	if p.Class == 0 {
		out.enqueue(now, p)
		return
	}
	if !s.net.ingress.admit(now, s, p, int(p.inPort), out) {
		s.drop(now, p, out)
		return
	}
	out.enqueue(now, p)
	if s.monitor != nil {
		s.monitor.Changed(now, s, out, p.Class)
		s.viewChanged(now, int(p.inPort), p.ectx)
	}
}

func (s *Switch) drop(now engine.Time, p *Packet, at *Port) {
	s.Drops++
	s.DroppedBytes += int64(p.Size)
	s.net.DroppedBytes += int64(p.Size)
	s.net.DroppedPayload += int64(p.Payload)
	if at.Observer != nil {
		at.Observer.Drop(now, at, p)
	}
	s.net.Pool.Put(p)
}

// departed releases p's buffer when it leaves egress port out.
func (s *Switch) departed(now engine.Time, p *Packet, out *Port) {
	if p.Class == 0 {
		return
	}
	s.mmu.used -= int64(p.Size)
	if s.monitor != nil {
		s.monitor.Changed(now, s, out, p.Class)
	}
	s.net.ingress.release(now, s, p)
	if s.monitor != nil {
		s.viewChanged(now, int(p.inPort), p.ectx)
	}
}

// BufferUsed is the number of bytes buffered in the switch.
func (s *Switch) BufferUsed() int64 { return s.mmu.used }

// PFCThreshold is the current dynamic PAUSE threshold of ingress port i.
func (s *Switch) PFCThreshold(i int) int64 { return s.mmu.threshold(i) }

// PausedUpstream reports whether the switch has paused class c on the
// device upstream of port i.
func (s *Switch) PausedUpstream(i int, c uint8) bool { return s.mmu.paused(i, c) }

// mmu is the reference model's shared-buffer ingress accounting.
//
// What admission and release read is its first line; free is buffer -
// totalHdrm - totalRsrv, the PAUSE threshold's constant part.
type mmu struct {
	in           []mmuPort
	free         int64
	reserve      int64
	resumeOffset int64
	shared       int64
	used         int64 // all bytes buffered (every class but control)
	buffer       int64
	totalHdrm    int64
	totalRsrv    int64
}

// mmuPort is one ingress port's accounting: 128 bytes, two cache lines
// (the block of them is page-aligned), with a class for each data class
// only (class 0 is never admitted against the buffer). Admitting or
// releasing a packet of classes 1-3 (data uses 3 by default) touches one
// line, this header and its class together; of classes 4-7 the pair's
// second line too. TestSwitchLayout pins it.
type mmuPort struct {
	headroom  int64
	shift     uint8
	pauseSent uint8 // bit c: PAUSE sent upstream for class c
	ignored   uint8 // bit c: during this PAUSE, a packet sent into paused class c arrived
	_         [5]byte
	cls       [NumClasses - 1]mmuClass // classes 1..7
}

// class is data class c's accounting (1 <= c < NumClasses).
func (ip *mmuPort) class(c uint8) *mmuClass { return &ip.cls[c-1] }

type mmuClass struct {
	ingress int64 // bytes charged to reserve and shared
	hdrm    int64 // bytes charged to headroom
}

// init sets m up for ports, with in (zeroed, one per port) as its
// per-ingress accounting.
func (m *mmu) init(cfg *Config, ports []*Port, nicRate engine.Rate, in []mmuPort) {
	m.buffer, m.reserve, m.resumeOffset = cfg.Buffer, cfg.Reserve, cfg.ResumeOffset
	m.in = in
	for i, pt := range ports {
		// rate_bps * prop_delay_ns / 8 / 10^9 * 3, integer, in this order.
		ref := int64(pt.Rate) * pt.Delay.Nanoseconds() / 8 / 1e9 * 3
		switch cfg.Headroom {
		case HeadroomSized:
			m.in[i].headroom = cfg.SizedHeadroom(pt.Rate, pt.Delay)
		case HeadroomCovering:
			m.in[i].headroom = max(ref, cfg.SizedHeadroom(pt.Rate, pt.Delay))
		default:
			m.in[i].headroom = ref
		}
		m.totalHdrm += m.in[i].headroom
		sh := 3
		for r := nicRate * 2; r <= pt.Rate && sh > 0; r *= 2 {
			sh--
		}
		m.in[i].shift = uint8(sh)
	}
	m.totalRsrv = int64(len(ports)) * m.reserve
	m.free = m.buffer - m.totalHdrm - m.totalRsrv
}

func (m *mmu) threshold(port int) int64 { return m.thresholdOf(&m.in[port]) }

func (m *mmu) thresholdOf(ip *mmuPort) int64 {
	return (m.free - m.shared) >> ip.shift
}

func (m *mmu) sharedOf(cl *mmuClass) int64 {
	if v := cl.ingress - m.reserve; v > 0 {
		return v
	}
	return 0
}

func (m *mmu) admit(port int, c uint8, s int64) bool {
	ip := &m.in[port]
	cl := ip.class(c)
	thr := m.thresholdOf(ip)
	if s+cl.hdrm > ip.headroom && s+m.sharedOf(cl) > thr {
		return false
	}
	nw := cl.ingress + s
	switch {
	case nw <= m.reserve:
		cl.ingress += s
	case nw-m.reserve > thr:
		cl.hdrm += s
	default:
		cl.ingress += s
		m.shared += min(s, nw-m.reserve)
	}
	return true
}

func (m *mmu) release(port int, c uint8, s int64) {
	cl := m.in[port].class(c)
	fromHdrm := min(cl.hdrm, s)
	fromShared := min(s-fromHdrm, max(0, cl.ingress-m.reserve))
	cl.hdrm -= fromHdrm
	cl.ingress -= s - fromHdrm
	m.shared -= fromShared
	if cl.ingress < 0 || cl.hdrm < 0 || m.shared < 0 {
		panic(fmt.Sprintf("fabric: mmu accounting below zero: port %d class %d ingress %d hdrm %d shared %d",
			port, c, cl.ingress, cl.hdrm, m.shared))
	}
}

func (m *mmu) paused(port int, c uint8) bool { return m.in[port].pauseSent&(1<<c) != 0 }

func (m *mmu) setPaused(port int, c uint8, on bool) {
	if on {
		m.in[port].pauseSent |= 1 << c
	} else {
		m.in[port].pauseSent &^= 1 << c
	}
}

func (m *mmu) shouldPause(port int, c uint8) bool {
	ip := &m.in[port]
	cl := ip.class(c)
	return cl.hdrm > 0 || m.sharedOf(cl) >= m.thresholdOf(ip)
}

func (m *mmu) shouldResume(port int, c uint8) bool {
	ip := &m.in[port]
	cl := ip.class(c)
	if cl.hdrm != 0 {
		return false
	}
	so := m.sharedOf(cl)
	return so == 0 || so+m.resumeOffset <= m.thresholdOf(ip)
}
