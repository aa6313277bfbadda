package fabric

import "math/bits"

// Router chooses a switch's egress port for a packet. It is a per-switch
// decision so that per-packet spraying and adaptive routing (which read
// queue state through sw.Ports) fit behind the same interface.
type Router interface {
	Route(sw *Switch, p *Packet, inPort int) int
}

// ECMP is per-flow equal-cost multipath (REFERENCE 3.2): MurmurHash3 over
// (src, dst, sport | dport<<16), seeded with the switch id xor Salt, modulo
// the number of equal-cost next hops. Salt 0 reproduces the reference
// model's hash; scenarios derive it from the seed's "ecmp" stream so that
// different seeds explore different path assignments.
type ECMP struct{ Salt uint32 }

// Route implements Router.
func (e ECMP) Route(sw *Switch, p *Packet, _ int) int {
	hops := sw.Routes(p.Dst)
	if len(hops) == 1 {
		return int(hops[0])
	}
	h := Murmur3(uint32(p.Src), uint32(p.Dst), uint32(p.SPort)|uint32(p.DPort)<<16, uint32(sw.ID)^e.Salt)
	return int(hops[h%uint32(len(hops))])
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
