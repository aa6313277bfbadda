package fabric

import "github.com/dcsim/dcsim/engine"

// Adaptive is adaptive routing (the usual InfiniBand and Ethernet AR):
// among a switch's equal-cost next hops (in a fat-tree, its up ports
// when the destination is not below it) it takes the port with the least
// local egress occupancy, ties broken by the flow's ECMP hash. The
// occupancy of a port is the bytes queued in all its classes, then
// whether its transmitter is busy: a packet just handed to an idle
// transmitter has left the queue but still occupies the port, and
// without the second key two packets arriving at the same instant would
// both see an empty port.
//
// FlowletGap > 0 routes per flowlet: a packet whose flow sent its last
// packet through this switch less than FlowletGap ago takes that
// packet's port, so a flow reorders only across gaps longer than
// FlowletGap. Flows are kept in a table of FlowletSlots slots per switch
// indexed by the flow hash (a power of two; 0 means 4096), as a switch
// ASIC keeps them (CONGA, LetFlow): flows that share a slot share a
// flowlet, which changes no ordering, since a slot changes port only
// after FlowletGap of silence from every flow in it. FlowletGap = 0 routes
// every packet afresh (per-packet adaptive routing), which reorders the
// packets of a QP and needs a receiver that accepts them.
//
// Adaptive's state is per switch; one Adaptive serves one Network.
type Adaptive struct {
	Salt         uint32
	FlowletGap   engine.Time
	FlowletSlots int

	flowlets [][]flowlet // per switch index, allocated on first use
}

type flowlet struct {
	last engine.Time
	port int32
}

// Route implements Router.
func (a *Adaptive) Route(sw *Switch, p *Packet, _ int) int {
	hops := sw.Routes(p.Dst)
	if len(hops) == 1 {
		return int(hops[0])
	}
	h := Murmur3(uint32(p.Src), uint32(p.Dst), uint32(p.SPort)|uint32(p.DPort)<<16, uint32(sw.ID)^a.Salt)
	if a.FlowletGap <= 0 {
		return a.least(sw, hops, h)
	}
	now := sw.net.Sim.Now()
	f := &a.table(sw)[h&uint32(len(a.flowlets[sw.index])-1)]
	if f.last == 0 || now-f.last >= a.FlowletGap {
		f.port = int32(a.least(sw, hops, h))
	}
	f.last = now + 1 // never 0 once used, so time 0 is not an empty slot
	return int(f.port)
}

// least is the next hop with the least occupancy, ties by the hash h.
func (a *Adaptive) least(sw *Switch, hops []int32, h uint32) int {
	now := sw.net.Sim.Now()
	best, ties := int64(-1), uint32(0)
	var pick int32
	for _, pi := range hops {
		occ := occupancy(sw.Ports[pi], now)
		switch {
		case best < 0 || occ < best:
			best, ties, pick = occ, 1, pi
		case occ == best:
			ties++
		}
	}
	if ties == 1 {
		return int(pick)
	}
	k := h % ties
	for _, pi := range hops {
		if occupancy(sw.Ports[pi], now) == best {
			if k == 0 {
				return int(pi)
			}
			k--
		}
	}
	panic("fabric: adaptive routing lost its tie")
}

// occupancy orders ports by queued bytes, then by a busy transmitter.
func occupancy(pt *Port, now engine.Time) int64 {
	occ := pt.qTotal * 2
	if pt.busyUntil > now {
		occ++
	}
	return occ
}

func (a *Adaptive) table(sw *Switch) []flowlet {
	if int(sw.index) >= len(a.flowlets) {
		a.flowlets = append(a.flowlets, make([][]flowlet, len(sw.net.Switches)-len(a.flowlets))...)
	}
	t := a.flowlets[sw.index]
	if t == nil {
		n := a.FlowletSlots
		if n <= 0 {
			n = 4096
		}
		if n&(n-1) != 0 {
			panic("fabric: Adaptive.FlowletSlots must be a power of two")
		}
		t = make([]flowlet, n)
		a.flowlets[sw.index] = t
	}
	return t
}
