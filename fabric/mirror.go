package fabric

import "github.com/dcsim/dcsim/engine"

// On a World, a switch's input buffer belongs to its unit: a port whose
// peer is a switch in another unit cannot read the peer's buffer while
// the peer's thread runs. Congestion isolation (fabric/isolation) reads
// the downstream's free buffer at every detector observation, so
// MirrorIngress gives such a port a copy of the peer's input accounting
// for the link, refreshed at the end of every window in which it changed:
// the value as it was at the window's end, at most one lookahead (the
// link's delay or less) old. That is the information a credit-based
// upstream could have at best (its credits come back one link delay
// after the buffer frees), and it depends only on the simulation, never
// on the thread count. A link within a unit, and every link on a plain
// network, reads the peer's live accounting (PeerIngressBytes).

// ingressMirror is an upstream port's copy of its downstream switch's
// input accounting (IngressBytes) for the link, per data class. The
// downstream hands it over (once per window) when the accounting
// changes; Arrive copies it at the window's end, on the upstream's
// thread, while the downstream's is stopped.
type ingressMirror struct {
	down     *Switch
	idx      int   // the link's port index at down
	src, dst int32 // down's unit, the upstream port's unit
	handed   bool  // handed over in the current window
	bytes    [NumClasses]int64
}

// Arrive implements engine.Courier.
func (m *ingressMirror) Arrive(*engine.Sim) {
	for c := uint8(1); c < NumClasses; c++ {
		m.bytes[c] = m.down.IngressBytes(m.idx, c)
	}
	m.handed = false
}

// mirrorChanged tells the mirror of s's input port in, if any, that the
// accounting changed. Only a switch with a QueueMonitor calls it.
func (s *Switch) mirrorChanged(in int) {
	ms := s.net.mirrors
	if ms == nil || ms[s.index] == nil {
		return
	}
	if m := ms[s.index][in]; m != nil && !m.handed {
		m.handed = true
		s.net.Sim.Hand(m.src, m.dst, m)
	}
}

// MirrorIngress makes every port of a World network whose peer is a
// switch in another unit read that switch's input accounting through a
// copy refreshed at windows' ends (see above; PeerIngressBytes). It does
// nothing on a plain network or when called again. Call it before the run
// starts; the copies are kept up to date only at switches with a
// QueueMonitor (SetMonitor), which is what reads them.
func (n *Network) MirrorIngress() {
	if n.world == nil || n.mirrors != nil {
		return
	}
	ms := make([][]*ingressMirror, len(n.Switches))
	n.allPorts(func(pt *Port) {
		down, ok := pt.peerOwner.(*Switch)
		if !ok || pt.xl == nil {
			return
		}
		if ms[down.index] == nil {
			ms[down.index] = make([]*ingressMirror, len(down.Ports))
		}
		m := &ingressMirror{down: down, idx: int(pt.peerIdx), src: pt.xl.dst, dst: pt.xl.src}
		pt.xl.mirror = m
		ms[down.index][m.idx] = m
	})
	for _, v := range n.views {
		v.mirrors = ms
	}
}

// PeerIngressBytes is what the switch at the other end of pt holds in its
// input buffer from pt in data class c (Switch.IngressBytes); on a World
// link between units (MirrorIngress), as it was at the end of the last
// window in which it changed. 0 if the peer is a host.
func (pt *Port) PeerIngressBytes(c uint8) int64 {
	if pt.xl != nil && pt.xl.mirror != nil {
		if c == 0 || c >= NumClasses {
			return 0
		}
		return pt.xl.mirror.bytes[c]
	}
	if down, ok := pt.peerOwner.(*Switch); ok {
		return down.IngressBytes(int(pt.peerIdx), c)
	}
	return 0
}
