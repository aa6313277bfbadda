package fabric

import (
	"unsafe"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/internal/prefetch"
)

// wire holds the packets in flight on one link direction, in FIFO order
// with their delivery times. Keeping the times in the ring (not only in the
// packets) lets the port schedule the next delivery without touching the
// next packet's memory. The ring grows to the link's peak occupancy and then
// allocates nothing.
//
// hp is the head packet, a copy of its ring slot's pointer kept in the
// port's first line: a delivery then finds its packet in the line it
// loads first, instead of loading the ring slot and only then the packet
// (two misses in a row on a large fabric, where the slot was written a
// link delay ago). The next slot is read after the pop, off that chain.
type wire struct {
	hp      *Packet // the head packet, valid when n > 0
	buf     []wireSlot
	bytes   int64
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
		w.hp = p
	}
	w.buf[int(w.head+w.n)&(len(w.buf)-1)] = wireSlot{at, p}
	w.n++
	w.bytes += int64(p.Size)
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
		w.hp = w.buf[w.head].p
	} else {
		w.hp = nil
	}
	w.bytes -= int64(p.Size)
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
func (w *wire) next() engine.Time { return w.buf[w.head].at }

// each visits the packets in flight, oldest first.
func (w *wire) each(f func(p *Packet)) {
	for i := 0; i < int(w.n); i++ {
		f(w.buf[(int(w.head)+i)&(len(w.buf)-1)].p)
	}
}
