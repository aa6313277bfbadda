package fabric

import (
	"unsafe"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/internal/prefetch"
)

// wire holds the packets in flight on one link direction, in FIFO order
// with their delivery times, in a ring that grows to the link's peak
// occupancy and then allocates nothing. Keeping the times in the ring (not
// only in the packets) lets the port schedule the next delivery without
// touching the next packet's memory.
//
// hp and hat are the head packet and its delivery time, a copy of its
// ring slot kept in the port's first line: a delivery finds its packet
// there instead of loading the ring slot and only then the packet (two
// misses in a row on a large fabric, where the slot was written a link
// delay ago). The next slot is read after the pop, off that chain. The
// wire keeps no byte count (Port.WireBytes visits the packets), so a pop
// does not load the packet's size either.
type wire struct {
	hp      *Packet     // the head packet, valid when n > 0
	hat     engine.Time // its delivery time
	buf     []wireSlot
	head, n int32
}

type wireSlot struct {
	at engine.Time
	p  *Packet
}

// push appends p, due at at; a full ring grows from a (nil: from Go).
func (w *wire) push(at engine.Time, p *Packet, a *ringArena) {
	if int(w.n) == len(w.buf) {
		w.grow(a)
	}
	if w.n == 0 {
		w.hp, w.hat = p, at
	}
	w.buf[int(w.head+w.n)&(len(w.buf)-1)] = wireSlot{at, p}
	w.n++
}

func (w *wire) grow(a *ringArena) {
	size := max(16, 2*len(w.buf))
	nb := a.wireRing(size)
	for i := 0; i < int(w.n); i++ {
		nb[i] = w.buf[(int(w.head)+i)&(len(w.buf)-1)]
	}
	w.buf, w.head = nb, 0
}

// pop removes the head; the caller knows the wire is not empty. The slot
// keeps its stale pointer until a push overwrites it: the packet belongs
// to the pool, and clearing it would be one more store to a cold line.
func (w *wire) pop() *Packet {
	p := w.hp
	w.head = (w.head + 1) & int32(len(w.buf)-1)
	w.n--
	if w.n > 0 {
		s := w.buf[w.head]
		w.hp, w.hat = s.p, s.at
	} else {
		w.hp = nil
	}
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
func (w *wire) each(f func(p *Packet)) {
	for i := 0; i < int(w.n); i++ {
		f(w.buf[(int(w.head)+i)&(len(w.buf)-1)].p)
	}
}
