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
type wire struct {
	buf           []wireSlot
	bytes         int64
	head, n, mask int32
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
	w.buf[(w.head+w.n)&w.mask] = wireSlot{at, p}
	w.n++
	w.bytes += int64(p.Size)
}

func (w *wire) grow(a *ringArena) {
	size := max(16, 2*len(w.buf))
	nb := a.wireRing(size)
	for i := int32(0); i < w.n; i++ {
		nb[i] = w.buf[(w.head+i)&w.mask]
	}
	w.buf, w.head, w.mask = nb, 0, int32(size-1)
}

// pop removes the head; the caller knows the wire is not empty.
func (w *wire) pop() *Packet {
	s := &w.buf[w.head]
	p := s.p
	s.p = nil
	w.head = (w.head + 1) & w.mask
	w.n--
	w.bytes -= int64(p.Size)
	return p
}

// touchNext prefetches the head packet's line, if there is one, so that
// its cache miss overlaps the delivery of the packet just popped rather
// than stalling the next delivery. With deep queues most hops miss on the
// packet they deliver (BenchmarkDeepQueues).
func (w *wire) touchNext() {
	if w.n > 0 {
		prefetch.Line(unsafe.Pointer(w.buf[w.head].p))
	}
}

// next is the delivery time of the head, valid when n > 0.
func (w *wire) next() engine.Time { return w.buf[w.head].at }

// each visits the packets in flight, oldest first.
func (w *wire) each(f func(p *Packet)) {
	for i := int32(0); i < w.n; i++ {
		f(w.buf[(w.head+i)&w.mask].p)
	}
}
