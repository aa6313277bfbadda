package fabric

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
)

// PFC frame size on the wire (REFERENCE 4.1).
const PFCFrameBytes = 43

// Switch is an output-queued switch with a shared buffer. Ingress
// accounting, PFC and headroom follow the reference model's Broadcom-style
// MMU (REFERENCE 3.3); egress queues, scheduling and ECN live in its Ports.
type Switch struct {
	net   *Network
	ID    int // node id in the topology
	Name  string
	Ports []*Port
	mmu   mmu

	router Router
	index  int // position in Network.Switches
	// routes[dstSwitch] lists the ports on shortest paths to dstSwitch.
	routes  [][]int32
	portIDs []int32 // 0, 1, ..., len(Ports)-1

	// Counters.
	Drops         int64 // packets dropped (lossy mode, or headroom overflow)
	DroppedBytes  int64
	HeadroomDrops int64 // drops in lossless mode: a sizing bug signal
	PauseSent     int64
	ResumeSent    int64
}

// Routes returns the candidate egress ports towards host dst.
func (s *Switch) Routes(dst int32) []int32 {
	a := s.net.attach[dst]
	if int(a) == s.index {
		return s.single(s.net.hostPort[dst])
	}
	return s.routes[a]
}

// single returns the one-element route {pi} without allocating.
func (s *Switch) single(pi int32) []int32 { return s.portIDs[pi : pi+1] }

// Receive implements Node.
func (s *Switch) Receive(now engine.Time, p *Packet, in *Port) {
	if p.Kind == PFC {
		if s.net.cfg.PFC {
			in.SetPaused(now, uint8(p.Arg), p.Pause)
		}
		s.net.Pool.Put(p)
		return
	}
	out := s.Ports[s.router.Route(s, p, int(in.idx))]
	if p.Class != 0 {
		if !s.admit(now, p, int(in.idx), out) {
			return
		}
	}
	out.enqueue(now, p)
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

// admit runs ingress admission for a data-class packet; false means dropped.
func (s *Switch) admit(now engine.Time, p *Packet, in int, out *Port) bool {
	m := &s.mmu
	size := int64(p.Size)
	c := p.Class
	p.inPort = uint16(in)
	p.ectx = c
	if !s.net.cfg.PFC {
		// Dynamic threshold (Choudhury-Hahne): one egress queue may hold at
		// most alpha times the free buffer, so a congested queue cannot
		// starve the others (and the ACKs) of buffer.
		limit := int64(s.net.cfg.LossyAlpha * float64(m.buffer-m.used))
		if l := s.net.cfg.LossyQueueLimit; l > 0 {
			limit = min(limit, l)
		}
		if m.used+size > m.buffer || out.cls[c].bytes+size > limit {
			s.drop(now, p, out)
			return false
		}
		m.used += size
		return true
	}
	if !m.admit(in, c, size) {
		s.HeadroomDrops++
		s.drop(now, p, out)
		return false
	}
	m.used += size
	if !m.pauseSent[in][c] && m.shouldPause(in, c) {
		m.pauseSent[in][c] = true
		s.sendPFC(now, in, c, true)
	}
	return true
}

// departed releases p's buffer when it leaves an egress queue.
func (s *Switch) departed(now engine.Time, p *Packet) {
	if p.Class == 0 {
		return
	}
	m := &s.mmu
	m.used -= int64(p.Size)
	if !s.net.cfg.PFC {
		return
	}
	in, c := int(p.inPort), p.ectx
	m.release(in, c, int64(p.Size))
	if m.pauseSent[in][c] && m.shouldResume(in, c) {
		m.pauseSent[in][c] = false
		s.sendPFC(now, in, c, false)
	}
}

func (s *Switch) sendPFC(now engine.Time, port int, class uint8, pause bool) {
	p := s.net.Pool.Get()
	p.Kind = PFC
	p.Class = 0
	p.Size = PFCFrameBytes
	p.Arg = int64(class)
	p.Pause = pause
	p.Src, p.Dst = -1, -1
	if pause {
		s.PauseSent++
		s.net.PauseFrames++
	} else {
		s.ResumeSent++
	}
	s.Ports[port].enqueue(now, p)
}

// BufferUsed is the number of bytes buffered in the switch.
func (s *Switch) BufferUsed() int64 { return s.mmu.used }

// PFCThreshold is the current dynamic PAUSE threshold of ingress port i.
func (s *Switch) PFCThreshold(i int) int64 { return s.mmu.threshold(i) }

// PausedUpstream reports whether the switch has paused class c on the
// device upstream of port i.
func (s *Switch) PausedUpstream(i int, c uint8) bool { return s.mmu.pauseSent[i][c] }

// mmu is the reference model's shared-buffer ingress accounting.
type mmu struct {
	buffer       int64
	reserve      int64
	resumeOffset int64
	headroom     []int64
	shift        []uint
	totalHdrm    int64
	totalRsrv    int64
	shared       int64
	used         int64 // all bytes buffered (every class but control)
	ingress      [][NumClasses]int64
	hdrm         [][NumClasses]int64
	pauseSent    [][NumClasses]bool
}

func (m *mmu) init(buffer, reserve, resumeOffset int64, ports []*Port, nicRate engine.Rate) {
	n := len(ports)
	m.buffer, m.reserve, m.resumeOffset = buffer, reserve, resumeOffset
	m.headroom = make([]int64, n)
	m.shift = make([]uint, n)
	m.ingress = make([][NumClasses]int64, n)
	m.hdrm = make([][NumClasses]int64, n)
	m.pauseSent = make([][NumClasses]bool, n)
	for i, pt := range ports {
		// rate_bps * prop_delay_ns / 8 / 10^9 * 3, integer, in this order.
		m.headroom[i] = int64(pt.Rate) * pt.Delay.Nanoseconds() / 8 / 1e9 * 3
		m.totalHdrm += m.headroom[i]
		sh := 3
		for r := nicRate * 2; r <= pt.Rate && sh > 0; r *= 2 {
			sh--
		}
		m.shift[i] = uint(sh)
	}
	m.totalRsrv = int64(n) * reserve
}

func (m *mmu) threshold(port int) int64 {
	return (m.buffer - m.totalHdrm - m.totalRsrv - m.shared) >> m.shift[port]
}

func (m *mmu) sharedOf(port int, c uint8) int64 {
	if v := m.ingress[port][c] - m.reserve; v > 0 {
		return v
	}
	return 0
}

func (m *mmu) admit(port int, c uint8, s int64) bool {
	thr := m.threshold(port)
	if s+m.hdrm[port][c] > m.headroom[port] && s+m.sharedOf(port, c) > thr {
		return false
	}
	nw := m.ingress[port][c] + s
	switch {
	case nw <= m.reserve:
		m.ingress[port][c] += s
	case nw-m.reserve > thr:
		m.hdrm[port][c] += s
	default:
		m.ingress[port][c] += s
		m.shared += min(s, nw-m.reserve)
	}
	return true
}

func (m *mmu) release(port int, c uint8, s int64) {
	fromHdrm := min(m.hdrm[port][c], s)
	fromShared := min(s-fromHdrm, max(0, m.ingress[port][c]-m.reserve))
	m.hdrm[port][c] -= fromHdrm
	m.ingress[port][c] -= s - fromHdrm
	m.shared -= fromShared
	if m.ingress[port][c] < 0 || m.hdrm[port][c] < 0 || m.shared < 0 {
		panic(fmt.Sprintf("fabric: mmu accounting below zero: port %d class %d ingress %d hdrm %d shared %d",
			port, c, m.ingress[port][c], m.hdrm[port][c], m.shared))
	}
}

func (m *mmu) shouldPause(port int, c uint8) bool {
	return m.hdrm[port][c] > 0 || m.sharedOf(port, c) >= m.threshold(port)
}

func (m *mmu) shouldResume(port int, c uint8) bool {
	if m.hdrm[port][c] != 0 {
		return false
	}
	so := m.sharedOf(port, c)
	return so == 0 || so+m.resumeOffset <= m.threshold(port)
}
