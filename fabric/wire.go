package fabric

import "github.com/dcsim/dcsim/engine"

// wire holds the packets in flight on one link direction, in FIFO order
// with their delivery times. Keeping the times in the ring (not only in the
// packets) lets the port schedule the next delivery without touching the
// next packet's memory. The ring grows to the link's peak occupancy and then
// allocates nothing.
type wire struct {
	buf           []wireSlot
	bytes         int64
	head, n, mask int32
	touch         uint32 // sink of prefetch loads (touchNext)
}

type wireSlot struct {
	at engine.Time
	p  *Packet
}

func (w *wire) push(at engine.Time, p *Packet) {
	if int(w.n) == len(w.buf) {
		w.grow()
	}
	w.buf[(w.head+w.n)&w.mask] = wireSlot{at, p}
	w.n++
	w.bytes += int64(p.Size)
}

func (w *wire) grow() {
	size := max(16, 2*len(w.buf))
	nb := make([]wireSlot, size)
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

// touchNext loads the head packet's first line, if there is one, so that
// its cache miss overlaps the delivery of the packet just popped rather
// than stalling the next delivery (Go has no prefetch instruction; the
// load's result feeds a counter nobody reads). With deep queues most hops
// miss on the packet they deliver (BenchmarkDeepQueues).
func (w *wire) touchNext() {
	if w.n > 0 {
		w.touch += uint32(w.buf[w.head].p.Size)
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
