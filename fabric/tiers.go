package fabric

import (
	"fmt"
	"math"

	"github.com/dcsim/dcsim/engine"
)

// Tier is a node's level in a layered (Clos) fabric: hosts at the bottom,
// then leaf (edge, top-of-rack) switches, aggregation and core switches. A
// switch's up ports lead to a higher tier, its down ports to a lower one
// (hosts included).
type Tier uint8

// The tiers. TierUnknown is a switch of a topology without tiers
// (topology files, dumbbell): it has neither up nor down ports and is
// routed by shortest paths.
const (
	TierUnknown Tier = iota
	TierLeaf
	TierAggregation
	TierCore
	TierHost Tier = 255
)

func (t Tier) String() string {
	switch t {
	case TierLeaf:
		return "leaf"
	case TierAggregation:
		return "aggregation"
	case TierCore:
		return "core"
	case TierHost:
		return "host"
	}
	return "unknown"
}

// noPort marks a leaf in a switch's down range that is not below it.
const noPort = ^uint16(0)

// upDown is a switch's compact up/down next-hop table (Network.routeUpDown):
// the leaves below it, each through one down port, in a dense range of
// leaf switch indices, and its up ports for every other leaf.
type upDown struct {
	lo   int32    // first leaf switch index of down
	down []uint16 // down[l-lo]: the port towards leaf l, or noPort
}

// setTiers gives every switch its tier and its up and down ports.
func (n *Network) setTiers() {
	t := n.Topo
	for i, sw := range n.Switches {
		if i < len(t.Tiers) {
			sw.Tier = t.Tiers[i]
		}
	}
	for _, sw := range n.Switches {
		if sw.Tier == TierUnknown {
			continue
		}
		for i, pt := range sw.Ports {
			switch peer := pt.Peer.sw; {
			case peer == nil || peer.Tier < sw.Tier && peer.Tier != TierUnknown:
				sw.DownPorts = append(sw.DownPorts, int32(i))
			case peer.Tier > sw.Tier:
				sw.UpPorts = append(sw.UpPorts, int32(i))
			}
		}
	}
}

// routeUpDown fills the up/down tables and reports whether the topology
// has the structure they need: tiers on every switch, every switch link
// between two tiers, hosts on leaves only, each leaf below a switch
// reached through exactly one of its down ports, and every switch without
// up ports above every leaf. Topology.Tiers promises the rest (every up
// port of a switch starts a shortest path to every leaf not below it), as
// SpineLeaf and FatTree build them; TestUpDownMatchesShortestPaths checks
// that the tables give exactly the shortest-path next hops, in port order.
func (n *Network) routeUpDown() bool {
	leaves := 0
	for _, sw := range n.Switches {
		if sw.Tier == TierUnknown {
			return false
		}
		for _, pt := range sw.Ports {
			if p := pt.Peer.sw; p != nil && p.Tier == sw.Tier {
				return false
			}
			if pt.Peer.sw == nil && sw.Tier != TierLeaf {
				return false
			}
		}
		if sw.Tier == TierLeaf {
			leaves++
		}
	}
	// Bottom up: a switch's leaves are its down neighbours' leaves (a
	// leaf's own is itself), each through the port to that neighbour.
	for tier := TierLeaf + 1; tier <= TierCore; tier++ {
		for _, sw := range n.Switches {
			if sw.Tier != tier {
				continue
			}
			lo, hi := int32(len(n.Switches)), int32(-1)
			sw.eachBelow(func(_ int32, l int32) { lo, hi = min(lo, l), max(hi, l) })
			if hi < lo {
				continue
			}
			ud := &sw.updown
			ud.lo, ud.down = lo, make([]uint16, hi-lo+1)
			for i := range ud.down {
				ud.down[i] = noPort
			}
			ok := true
			sw.eachBelow(func(pi int32, l int32) {
				if ud.down[l-lo] != noPort {
					ok = false
				}
				ud.down[l-lo] = uint16(pi)
			})
			if !ok {
				return false
			}
		}
	}
	for _, sw := range n.Switches {
		if len(sw.UpPorts) > 0 {
			continue
		}
		covered := 0
		if sw.Tier == TierLeaf {
			covered = 1
		}
		for _, d := range sw.updown.down {
			if d != noPort {
				covered++
			}
		}
		if covered != leaves {
			return false
		}
	}
	return true
}

// eachBelow calls f(port, leaf) for every leaf below sw through a down
// port to a switch.
func (sw *Switch) eachBelow(f func(port, leaf int32)) {
	for _, pi := range sw.DownPorts {
		peer := sw.Ports[pi].Peer.sw
		if peer == nil {
			continue
		}
		if peer.Tier == TierLeaf {
			f(pi, int32(peer.index))
			continue
		}
		for i, d := range peer.updown.down {
			if d != noPort {
				f(pi, peer.updown.lo+int32(i))
			}
		}
	}
}

// shortestPaths fills every switch's next hops towards switch dst by a BFS
// from dst over the switch graph (hosts never carry transit): the ports
// whose peer is one hop closer, in port order, as the reference's BFS
// (third.cc CalculateRoute) lists them.
func (n *Network) shortestPaths(dst int32) {
	S := len(n.Switches)
	if n.bfsDist == nil {
		n.bfsDist = make([]int32, S)
		n.bfsQueue = make([]int32, 0, S)
	}
	dist := n.bfsDist
	n.reachFrom(dst, dist)
	for u, sw := range n.Switches {
		if sw.routes == nil {
			sw.routes = make([][]int32, S)
		}
		if int32(u) == dst || dist[u] < 0 {
			continue
		}
		var hops []int32
		for _, pt := range sw.Ports {
			if v := pt.Peer.sw; v != nil && dist[v.index] == dist[u]-1 {
				hops = append(hops, int32(pt.Index))
			}
		}
		sw.routes[dst] = hops
	}
}

// reachFrom sets dist to every switch's hop count from switch src, -1
// where unreachable.
func (n *Network) reachFrom(src int32, dist []int32) {
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := append(n.bfsQueue[:0], src)
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, pt := range n.Switches[u].Ports {
			if v := pt.Peer.sw; v != nil && dist[v.index] < 0 {
				dist[v.index] = dist[u] + 1
				queue = append(queue, int32(v.index))
			}
		}
	}
}

// buildRoutes prepares routing: up/down tables when the topology has
// tiers that allow them, otherwise shortest-path tables, filled per
// destination switch when a packet first needs them (Switch.Routes). It
// checks that every host can reach every other.
func (n *Network) buildRoutes() error {
	n.setTiers()
	n.upDown = n.routeUpDown()
	if !n.upDown {
		for _, sw := range n.Switches {
			sw.updown = upDown{}
		}
	}
	n.bfsDist = make([]int32, len(n.Switches))
	n.bfsQueue = make([]int32, 0, len(n.Switches))
	n.reachFrom(n.attach[0], n.bfsDist)
	for h := 0; h < n.Topo.Hosts; h++ {
		if n.bfsDist[n.attach[h]] < 0 {
			return fmt.Errorf("topology %s: host %d is unreachable from host 0", n.Topo.Name, h)
		}
	}
	return nil
}

// UpDownRouting reports whether the network routes by up/down tables
// (tiered fat-trees and spine-leaf) rather than shortest-path tables.
func (n *Network) UpDownRouting() bool { return n.upDown }

// rateNs is the longest base RTT part (ns) of down paths whose
// bottleneck is rate.
type rateNs struct {
	rate engine.Rate
	ns   int64
}

// maxRTTBDPUpDown is MaxRTTBDP for up/down routing without walking every
// pair of leaves. The first path from leaf a to leaf b climbs a's chain of
// first up ports (c0 = a, c1, ...) to the first c_i with b below it, then
// takes c_i's unique down path to b. So the pairs with a given (c_i,
// c_{i-1}) share their down paths: for each such pair, met once per
// chain, it keeps the longest down path per bottleneck rate of the leaves
// below c_i and not below c_{i-1}, and each leaf combines its climb with
// those. The work is the leaves below each switch on some chain's first
// up ports, not leaves squared; TestUpDownMatchesShortestPaths checks it
// against the pairwise walk.
func (n *Network) maxRTTBDPUpDown(payload int64, first, second, order []int32) (maxRTT engine.Time, maxBDP int64) {
	summaries := map[[2]int32][]rateNs{}
	var ns int64
	var bottleneck engine.Rate
	hop := func(r engine.Rate, d engine.Time) {
		ns += hopNs(payload, r, d)
		bottleneck = min(bottleneck, r)
	}
	summary := func(u, child *Switch) []rateNs {
		key := [2]int32{int32(u.index), int32(child.index)}
		if s, ok := summaries[key]; ok {
			return s
		}
		var s []rateNs
		for i, d := range u.updown.down {
			l := u.updown.lo + int32(i)
			if d == noPort || first[l] < 0 || l == int32(child.index) || child.below(l) {
				continue
			}
			ns, bottleneck = 0, engine.Rate(math.MaxInt64)
			n.walkFrom(u, int(first[l]), hop)
			j := 0
			for j < len(s) && s[j].rate != bottleneck {
				j++
			}
			if j == len(s) {
				s = append(s, rateNs{rate: bottleneck})
			}
			s[j].ns = max(s[j].ns, ns)
		}
		summaries[key] = s
		return s
	}
	for _, a := range order {
		if second[a] >= 0 {
			ns, bottleneck = 0, engine.Rate(math.MaxInt64)
			n.walkPath(int(first[a]), int(second[a]), hop)
			maxRTT, maxBDP = maxOf(maxRTT, maxBDP, ns, bottleneck)
		}
		pt := n.HostPorts[first[a]]
		upNs, upRate := hopNs(payload, pt.Rate, pt.Delay), pt.Rate
		for u := n.Switches[a]; len(u.UpPorts) > 0; {
			out := u.Ports[u.UpPorts[0]]
			upNs += hopNs(payload, out.Rate, out.Delay)
			upRate = min(upRate, out.Rate)
			child := u
			u = out.Peer.sw
			for _, s := range summary(u, child) {
				maxRTT, maxBDP = maxOf(maxRTT, maxBDP, upNs+s.ns, min(upRate, s.rate))
			}
		}
	}
	return maxRTT, maxBDP
}

// below reports whether leaf l is below s through one of its down ports.
func (s *Switch) below(l int32) bool {
	i := l - s.updown.lo
	return uint32(i) < uint32(len(s.updown.down)) && s.updown.down[i] != noPort
}
