package fabric

import (
	"fmt"
	"unsafe"

	"github.com/dcsim/dcsim/engine"
)

// Kind is a packet's opcode.
type Kind uint8

// Packet kinds. Data carries payload; the others are control frames.
const (
	Data    Kind = iota
	Ack          // cumulative ACK (Seq = next expected byte)
	Nack         // go-back-N request (Seq = next expected byte)
	CNP          // standalone congestion notification
	PFC          // PAUSE or RESUME for one class (Arg: class, Pause flag)
	Grant        // receiver-driven scheduling grant (Arg: scheduler defined)
	Control      // any other scheduler control frame
	ARN          // adaptive routing notification between switches (package fabric/isolation)
	numKinds
)

var kindNames = [...]string{"data", "ack", "nack", "cnp", "pfc", "grant", "control", "arn"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MaxFrameBytes is the largest frame a Packet can describe (Size is 16-bit).
const MaxFrameBytes = 1<<16 - 1

// NumClasses is the number of priority classes per port. Class 0 is the
// control class; data uses 1..7. A lower number is a higher priority where
// strict priority applies.
const NumClasses = 8

// Packet is one frame on the wire. Packets are pooled: whoever removes a
// packet from the network (the receiving NIC, a drop) returns it to the
// Pool, and must not keep a pointer to it afterwards.
//
// A packet is exactly one 64-byte cache line, and the pool allocates them
// in line-aligned slabs: a switch hop (routing, admission, queueing, ECN)
// reads and writes only the first 32 bytes, and every hop costs at most one
// cache miss on the packet. TestPacketIsOneCacheLine pins the size. Sizes
// and payloads are 16-bit (frames up to 64 KiB); QP ids are 32-bit.
type Packet struct {
	Kind  Kind
	Class uint8 // priority class 0..7
	ECT   bool  // ECN-capable transport
	CE    bool  // congestion experienced (set by a switch at dequeue)
	CNP   bool  // on an ACK: congestion echo (REFERENCE 4.5 ack_flag mode)
	Last  bool  // on data: last packet of its message
	Pause bool  // on PFC: true = PAUSE, false = RESUME
	ectx  uint8 // ingress class at the current switch (the router may change Class, the egress class)

	Src, Dst     int32  // host indices
	SPort, DPort uint16 // UDP ports (ECMP entropy)
	Size         uint16 // bytes on the wire
	Payload      uint16 // data bytes carried (0 for control)
	inPort       uint16 // ingress port index at the current switch (buffer accounting)
	sentPaused   bool   // sent on its last hop into a paused class (a NIC's ACK; Switch.PauseIgnoredDrops)
	Op           uint8  // transport opcode (rocev2.Opcode; 0 = none), in what was padding
	QP           int32  // sender QP id
	Seq          int64  // data: byte offset of the first payload byte; ACK/NACK: cumulative
	Arg          int64  // kind-specific argument (PFC class, grant bytes, ...)
	SentAt       engine.Time
	// INT is the telemetry stack, present only on packets of runs whose
	// congestion control asked for INT; it is owned by the packet and
	// returned to the pool with it. Keeping it out of line keeps the
	// packet within one cache line.
	INT *INTStack
}

// INTStack holds a packet's INT hop records.
type INTStack struct {
	hops [MaxINTHops]INTHop
	n    uint8
	next *INTStack // free list
}

// Push records one hop, wrapping modulo MaxINTHops like the reference.
func (s *INTStack) Push(h INTHop) {
	s.hops[int(s.n)%MaxINTHops] = h
	s.n++
}

// Hops returns the recorded hops in path order (at most MaxINTHops).
func (s *INTStack) Hops() []INTHop {
	n := int(s.n)
	if n > MaxINTHops {
		n = MaxINTHops
	}
	return s.hops[:n]
}

// Hops returns p's INT records, or nil when it carries none.
func (p *Packet) Hops() []INTHop {
	if p.INT == nil {
		return nil
	}
	return p.INT.Hops()
}

// Pool is a free list of packets. It belongs to one simulation; it is not
// safe for concurrent use. Packets come from slabs of slabPackets, so they
// are cache-line aligned and the free stack is reused last-in first-out
// (the most recently freed, cache-warm packet goes out first).
type Pool struct {
	free      []*Packet
	slab      []Packet
	freeINT   *INTStack
	allocated int64 // packets ever created
	live      int64 // packets handed out and not returned
}

// slabPackets makes a slab 64 KiB: a large object, which Go page-aligns and
// gives no allocation header (smaller ones holding pointers start 8 bytes in).
// Once a pool has created hugeAfter packets (2 MiB of them) its further
// slabs are hugeSlabPackets (8 MiB) each, advised for transparent huge
// pages before their first write: a network holding hundreds of thousands
// of packets (deep queues, large fabrics) then needs a TLB entry per 2 MiB
// of them instead of per 4 KiB. Go aligns such a block to 8 KiB only, so
// an 8 MiB slab holds at least three whole aligned 2 MiB pages (a 4 MiB
// one only one: 30 of 64 MiB came in huge pages for 10^6 packets). Small
// runs (the default's network peaks at 22k packets) never reach it.
const (
	slabPackets     = 1024
	hugeAfter       = 32 * slabPackets
	hugeSlabPackets = 128 * slabPackets
)

// Get returns a zeroed packet.
func (pl *Pool) Get() *Packet {
	var p *Packet
	if n := len(pl.free); n > 0 {
		p = pl.free[n-1]
		pl.free = pl.free[:n-1]
		*p = Packet{}
	} else {
		if len(pl.slab) == 0 {
			pl.slab = newSlab(pl.allocated)
		}
		p = &pl.slab[0]
		pl.slab = pl.slab[1:]
		pl.allocated++
	}
	pl.live++
	return p
}

// newSlab allocates the next slab of a pool that has created allocated
// packets so far.
func newSlab(allocated int64) []Packet {
	if allocated < hugeAfter {
		return make([]Packet, slabPackets)
	}
	slab := make([]Packet, hugeSlabPackets)
	adviseHugePages(unsafe.Pointer(&slab[0]), uintptr(len(slab))*unsafe.Sizeof(Packet{}))
	return slab
}

// GetINT returns an empty INT stack.
func (pl *Pool) GetINT() *INTStack {
	s := pl.freeINT
	if s == nil {
		return new(INTStack)
	}
	pl.freeINT = s.next
	*s = INTStack{}
	return s
}

// Put returns p (and its INT stack) to the pool.
func (pl *Pool) Put(p *Packet) {
	if s := p.INT; s != nil {
		s.next = pl.freeINT
		pl.freeINT = s
		p.INT = nil
	}
	p.Kind = numKinds // poison: a use after Put shows up as an unknown kind
	pl.free = append(pl.free, p)
	pl.live--
}

// Live is the number of packets in use (in queues, on wires, in NICs).
func (pl *Pool) Live() int64 { return pl.live }

// Allocated is the number of packet structs ever created: the peak of Live.
func (pl *Pool) Allocated() int64 { return pl.allocated }

// fifo is a FIFO of packets in a ring that grows to its peak length and
// then allocates nothing. A ring (not a list threaded through the packets)
// means pushing never touches the tail packet's memory and popping touches
// only the packet returned.
type fifo struct {
	buf     []*Packet
	head, n int32
}

// push appends p; a full ring grows from a (nil: from Go).
func (f *fifo) push(p *Packet, a *ringArena) {
	if int(f.n) == len(f.buf) {
		f.grow(a)
	}
	f.buf[int(f.head+f.n)&(len(f.buf)-1)] = p
	f.n++
}

func (f *fifo) grow(a *ringArena) {
	nb := a.fifoRing(max(8, 2*len(f.buf)))
	for i := 0; i < int(f.n); i++ {
		nb[i] = f.buf[(int(f.head)+i)&(len(f.buf)-1)]
	}
	f.buf, f.head = nb, 0
}

func (f *fifo) pop() *Packet {
	if f.n == 0 {
		return nil
	}
	p := f.buf[f.head]
	f.buf[f.head] = nil
	f.head = (f.head + 1) & int32(len(f.buf)-1)
	f.n--
	return p
}

func (f *fifo) peek() *Packet {
	if f.n == 0 {
		return nil
	}
	return f.buf[f.head]
}

// each visits the packets, head first.
func (f *fifo) each(fn func(p *Packet)) {
	for i := 0; i < int(f.n); i++ {
		fn(f.buf[(int(f.head)+i)&(len(f.buf)-1)])
	}
}

// FIFO is an exported intrusive packet queue for NICs and other endpoints.
type FIFO struct{ f fifo }

// Push appends p.
func (q *FIFO) Push(p *Packet) { q.f.push(p, nil) }

// Pop removes the head, or returns nil.
func (q *FIFO) Pop() *Packet { return q.f.pop() }

// Head returns the head without removing it.
func (q *FIFO) Head() *Packet { return q.f.peek() }

// Len is the number of packets queued.
func (q *FIFO) Len() int { return int(q.f.n) }
