package fabric

import "unsafe"

// MaxSwitchPorts is the most ports one switch can have: a port's index
// at its peer is a uint16.
const MaxSwitchPorts = 1<<16 - 1

// Footprint is an estimate of the heap NewNetwork and its hosts need for a
// topology, from the builder's own structures. It exists so that a
// scenario too large to build is rejected before anything is allocated.
type Footprint struct {
	Ports  int64 // the Port array (two per link), the switches' MMU accounting per port, the topology's links
	Routes int64 // the route tables: UpDownRouteBytes or ShortestPathRouteBytes
	Hosts  int64 // per-host NIC state beyond its port
	Tables int64 // per-switch tables of routing and isolation (FlowletSlotBytes a slot), set by the caller
}

// Total is the sum, in bytes.
func (f Footprint) Total() int64 { return f.Ports + f.Routes + f.Hosts + f.Tables }

// FlowletSlotBytes is the size of one slot of Adaptive's flowlet table.
const FlowletSlotBytes = int64(unsafe.Sizeof(flowlet{}))

// hostBytes is the NIC state per host beyond its port (rnic.Host, its
// feedback and scheduler state at rest), measured: a 64,000-host star
// (duration 1 ns) peaks at 3.4 KB of resident memory per host, of which
// its two ports and their MMU entry are 1.9 KB.
const hostBytes = 1500

// EstimateFootprint estimates the memory for hosts hosts, switches
// switches and links links whose route tables take routeBytes
// (UpDownRouteBytes or ShortestPathRouteBytes).
func EstimateFootprint(hosts, switches, links, routeBytes int64) Footprint {
	port := int64(unsafe.Sizeof(Port{}))
	mmu := int64(unsafe.Sizeof(mmuPort{}))
	sw := int64(unsafe.Sizeof(Switch{}))
	return Footprint{
		Ports:  2*links*port + (2*links-hosts)*mmu + switches*sw + links*int64(unsafe.Sizeof(Link{})),
		Routes: routeBytes,
		Hosts:  hosts * hostBytes,
	}
}

// UpDownRouteBytes is the size of up/down route tables (a tiered
// topology) with links links and downEntries leaves in all below the
// switches that are not leaves: 2 B per down entry, and the up and down
// port lists (4 B for each switch port).
func UpDownRouteBytes(links, downEntries int64) int64 { return 2*downEntries + 4*2*links }

// ShortestPathRouteBytes is the size of shortest-path route tables (a
// topology without tiers) once every switch has its next hops towards
// every one of the switches and their entries next hops in all: a slice
// header per switch pair and, as the slices grow by append and may leave
// up to half of each unused, 8 B per entry.
func ShortestPathRouteBytes(switches, entries int64) int64 {
	return switches*switches*int64(unsafe.Sizeof([]int32{})) + 2*4*entries
}

// MinBuffer is the smallest shared buffer with which every switch can
// hold one packet of pkt bytes per port: on top of the PFC headroom and
// reserve of all its ports when the fabric is lossless. It returns the
// switch that needs the most and that buffer; a smaller buffer makes a
// switch that pauses (or drops) before it holds a packet per port.
func (n *Network) MinBuffer(pkt int64) (*Switch, int64) {
	var worst *Switch
	var need int64
	for _, sw := range n.Switches {
		b := int64(len(sw.Ports)) * pkt
		if n.cfg.PFC {
			b += sw.mmu.totalHdrm + sw.mmu.totalRsrv
		}
		if b > need {
			worst, need = sw, b
		}
	}
	return worst, need
}
