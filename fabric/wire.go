package fabric

import (
	"unsafe"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/internal/prefetch"
)

// wire holds the packets in flight on one link direction, in FIFO order
// with their delivery times. Keeping the times beside the pointers (not
// only in the packets) lets the port schedule the next delivery without
// touching the next packet's memory.
//
// The first two entries are inline, in the port's first cache line, and
// only the third and later ones go to a ring (Port.ring, in the port's
// cold lines; it grows to the link's peak occupancy and then allocates
// nothing). On a large fabric most wires hold one or two
// packets: a delivery then finds its packet, its time and the next one's
// in the line it loads first, and a transmission writes no ring slot. A
// ring slot, written a link delay earlier and alone in its line, was a
// cache miss in every delivery (BenchmarkLargeFabric hosts=8192: 12% of
// the profile). The ring's slots are read only when a pop moves the third
// entry inline, off the chain of the next delivery.
type wire struct {
	hp    *Packet     // the head packet, valid when n > 0
	hat   engine.Time // its delivery time
	p2    *Packet     // the second packet, valid when n > 1
	at2   engine.Time
	n     int32 // packets in flight: hp, p2, then n-2 in the ring
	rhead int32 // the ring's head slot
}

type wireSlot struct {
	at engine.Time
	p  *Packet
}

// push appends p, due at at; the third and later entries go to the ring
// *ring, which grows from a (nil: from Go).
func (w *wire) push(at engine.Time, p *Packet, ring *[]wireSlot, a *ringArena) {
	switch w.n {
	case 0:
		w.hp, w.hat = p, at
	case 1:
		w.p2, w.at2 = p, at
	default:
		r, k := *ring, int(w.n-2)
		if k == len(r) {
			r = w.grow(r, k, a)
			*ring = r
		}
		r[(int(w.rhead)+k)&(len(r)-1)] = wireSlot{at, p}
	}
	w.n++
}

// grow returns a ring twice the size of r (which holds k entries), with
// them first.
func (w *wire) grow(r []wireSlot, k int, a *ringArena) []wireSlot {
	nb := a.wireRing(max(16, 2*len(r)))
	for i := 0; i < k; i++ {
		nb[i] = r[(int(w.rhead)+i)&(len(r)-1)]
	}
	w.rhead = 0
	return nb
}

// pop removes the head; the caller knows the wire is not empty. A ring
// slot keeps its stale pointer until a push overwrites it: the packet
// belongs to the pool, and clearing it would be one more store to a cold
// line.
func (w *wire) pop(ring []wireSlot) *Packet {
	p := w.hp
	w.hp, w.hat = w.p2, w.at2
	if w.n > 2 {
		s := ring[w.rhead]
		w.p2, w.at2 = s.p, s.at
		w.rhead = (w.rhead + 1) & int32(len(ring)-1)
	}
	w.n--
	return p
}

// touchNext prefetches the head packet's line, if there is one, so that
// its cache miss overlaps the delivery of the packet just popped rather
// than stalling the next delivery. With deep queues most hops miss on the
// packet they deliver (BenchmarkDeepQueues).
func (w *wire) touchNext() {
	if w.n > 0 {
		prefetch.Line(unsafe.Pointer(w.hp))
	}
}

// next is the delivery time of the head, valid when n > 0.
func (w *wire) next() engine.Time { return w.hat }

// each visits the packets in flight, oldest first.
func (w *wire) each(ring []wireSlot, f func(p *Packet)) {
	if w.n > 0 {
		f(w.hp)
	}
	if w.n > 1 {
		f(w.p2)
	}
	for i := 0; i < int(w.n)-2; i++ {
		f(ring[(int(w.rhead)+i)&(len(ring)-1)].p)
	}
}
