package fabric

import "math/bits"

// Router chooses a switch's egress port for a packet. It is a per-switch
// decision so that per-packet spraying and adaptive routing (which read
// queue state through sw.Ports) fit behind the same interface.
type Router interface {
	Route(sw *Switch, p *Packet, inPort int) int
}

// ECMP is per-flow equal-cost multipath (docs/model.md §3.2): MurmurHash3 over
// (src, dst, sport | dport<<16), seeded with the switch id xor Salt, modulo
// the number of equal-cost next hops. Salt 0 reproduces the reference
// model's hash; scenarios derive it from the seed's "ecmp" stream so that
// different seeds explore different path assignments.
type ECMP struct{ Salt uint32 }

// Route implements Router.
func (e ECMP) Route(sw *Switch, p *Packet, _ int) int {
	one, hops := sw.nextHops(p.Dst)
	if one >= 0 {
		return int(one)
	}
	if len(hops) == 1 {
		return int(hops[0])
	}
	h := Murmur3(uint32(p.Src), uint32(p.Dst), uint32(p.SPort)|uint32(p.DPort)<<16, uint32(sw.ID)^e.Salt)
	return int(hops[h%uint32(len(hops))])
}

// NS3ECMP is the reference model's ECMP exactly (switch-node.cc
// SwitchNode::GetOutDev and EcmpHash): MurmurHash3 over (sip, dip,
// sport|dport<<16) where sip and dip are the hosts' IPv4 addresses as
// third.cc assigns them from node ids (node_id_to_ip: 0x0b000001 +
// (id/256)<<16 + (id%256)<<8, i.e. 11.0.x.1), seeded with the switch's node
// id (SwitchNode's m_ecmpSeed = m_id) and no salt, modulo the number of
// next hops. Node ids are the topology file's (Topology.NodeID). The
// modulo must index the next hops in the order the reference's BFS
// (third.cc CalculateRoute) pushes them. That BFS walks each node's
// neighbours in the order of a std::map keyed by Ptr<Node>, i.e. by heap
// address, and a SwitchNode is 2.1 MB (m_bytes[257][257][8] in
// switch-node.h), so glibc maps each one with mmap, top down: a switch
// created later has a lower address. The reference therefore lists a
// switch's next hops by decreasing node id (seen in its packet trace: each
// leaf sends on spine 143-k where port order gives 136+k). dcsim's next
// hops are in port order, which is increasing node id on every switch
// built here and in a reference topology file whose links are listed by
// increasing node id, as the shipped ones are; Route counts from the end.
// On the reference topology the two orders only relabel the spines, so
// every FCT is the same either way; the traces line up only with this one.
type NS3ECMP struct {
	ip   []uint32 // per host
	seed []uint32 // per node (dcsim id): its file node id
}

// NewNS3ECMP prepares the reference hash for t's hosts and switches.
func NewNS3ECMP(t *Topology) *NS3ECMP {
	r := &NS3ECMP{ip: make([]uint32, t.Hosts), seed: make([]uint32, t.Nodes())}
	for h := range r.ip {
		r.ip[h] = NS3NodeIP(t.NodeID(h))
	}
	for v := range r.seed {
		r.seed[v] = uint32(t.NodeID(v))
	}
	return r
}

// NS3NodeIP is third.cc's node_id_to_ip.
func NS3NodeIP(id int) uint32 {
	return 0x0b000001 + uint32(id/256)*0x00010000 + uint32(id%256)*0x00000100
}

// Route implements Router.
func (e *NS3ECMP) Route(sw *Switch, p *Packet, _ int) int {
	hops := sw.Routes(p.Dst)
	if len(hops) == 1 {
		return int(hops[0])
	}
	h := Murmur3(e.ip[p.Src], e.ip[p.Dst], uint32(p.SPort)|uint32(p.DPort)<<16, e.seed[sw.ID])
	return int(hops[len(hops)-1-int(h%uint32(len(hops)))])
}

// Spray sends each packet on a uniformly chosen equal-cost next hop
// (per-packet spraying); it reorders packets of a flow across paths.
type Spray struct{ Rand func() uint32 }

// Route implements Router.
func (s Spray) Route(sw *Switch, p *Packet, _ int) int {
	hops := sw.Routes(p.Dst)
	if len(hops) == 1 {
		return int(hops[0])
	}
	return int(hops[s.Rand()%uint32(len(hops))])
}

// Murmur3 is MurmurHash3 x86_32 over the 12 bytes of three little-endian
// words, as the reference model hashes (sip, dip, ports).
func Murmur3(a, b, c, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	for _, k := range [3]uint32{a, b, c} {
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	h ^= 12
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
