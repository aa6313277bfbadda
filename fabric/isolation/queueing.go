package isolation

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// Queueing schemes: static maps of data packets onto VCs (classes), the
// baselines the ARN+AFI paper combines with routing (docs/model.md §10.2).
// The paper names them and cites their papers without restating them;
// these are the readings used here:
//
//   - DBBM (destination-based buffer management): the VC is a function of
//     the destination's bits, destination mod VCs.
//   - vFtree (fat-tree routing with the VL chosen by destination): the VC
//     is the destination's leaf mod VCs, so that destinations under one
//     leaf share a VC and those under different leaves are spread.
//   - Flow2SL (a static SL per flow, hence per VL): the VC is a hash of
//     (source, destination) mod VCs.
const (
	QueueDBBM    = "dbbm"
	QueueVFtree  = "vftree"
	QueueFlow2SL = "flow2sl"
)

// QueueSchemes lists the schemes.
var QueueSchemes = []string{QueueDBBM, QueueVFtree, QueueFlow2SL}

// QueueMap is a router that puts every data packet in the class its
// scheme gives (First, First+1, ..., First+VCs-1), then routes it with
// Base. Every switch computes the same class, so a packet keeps it; the
// ingress still charges the class the packet arrived in, which for the
// first switch is the NIC's data class.
type QueueMap struct {
	Base  fabric.Router
	First uint8
	VCs   int
	by    func(p *fabric.Packet) int
}

// NewQueueMap builds scheme's map for net's hosts; call it before net
// carries traffic and make it the router through Bind (the network is
// built with the returned router, which reads net only when routing).
func NewQueueMap(scheme string, base fabric.Router, first uint8, vcs int) (*QueueMap, error) {
	if vcs < 1 || int(first)+vcs > fabric.NumClasses || first == 0 {
		return nil, fmt.Errorf("isolation: %d VCs from class %d do not fit classes 1..7", vcs, first)
	}
	q := &QueueMap{Base: base, First: first, VCs: vcs}
	switch scheme {
	case QueueDBBM:
		q.by = func(p *fabric.Packet) int { return int(p.Dst) }
	case QueueFlow2SL:
		q.by = func(p *fabric.Packet) int { return int(fabric.Murmur3(uint32(p.Src), uint32(p.Dst), 0, 0) >> 1) }
	case QueueVFtree:
		// by is set by Bind, once the network (and the hosts' leaves) exist.
	default:
		return nil, fmt.Errorf("isolation: unknown queueing scheme %q", scheme)
	}
	return q, nil
}

// Bind gives the map the built network (vFtree needs each host's leaf).
func (q *QueueMap) Bind(net *fabric.Network) {
	if q.by != nil {
		return
	}
	leaf := make([]int, len(net.HostPorts))
	for h, pt := range net.HostPorts {
		leaf[h] = pt.Peer.Owner.(*fabric.Switch).Index()
	}
	q.by = func(p *fabric.Packet) int { return leaf[p.Dst] }
}

// ForSwitch implements fabric.ParallelRouter: the map is read only once
// bound (Bind may come after the network is built, so each switch's
// router reads it through q), and each switch routes by its own base's
// router for a World, or cannot if the base cannot.
func (q *QueueMap) ForSwitch(sw *fabric.Switch, s *engine.Sim) fabric.Router {
	base := fabric.RouterForSwitch(q.Base, sw, s)
	if base == nil {
		return nil
	}
	return switchQueueMap{q, base}
}

// switchQueueMap is a QueueMap's router for one switch of a World.
type switchQueueMap struct {
	q    *QueueMap
	base fabric.Router
}

// Route implements fabric.Router.
func (m switchQueueMap) Route(sw *fabric.Switch, p *fabric.Packet, in int) int {
	m.q.classify(p)
	return m.base.Route(sw, p, in)
}

// Route implements fabric.Router.
func (q *QueueMap) Route(sw *fabric.Switch, p *fabric.Packet, in int) int {
	q.classify(p)
	return q.Base.Route(sw, p, in)
}

// classify maps a data packet onto its VC.
func (q *QueueMap) classify(p *fabric.Packet) {
	if p.Kind == fabric.Data {
		p.Class = q.First + uint8(q.by(p)%q.VCs)
	}
}
