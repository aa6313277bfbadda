package fabric

import (
	"fmt"

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
	numKinds
)

var kindNames = [...]string{"data", "ack", "nack", "cnp", "pfc", "grant", "control"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// NumClasses is the number of priority classes per port. Class 0 is the
// control class; data uses 1..7. A lower number is a higher priority where
// strict priority applies.
const NumClasses = 8

// Packet is one frame on the wire. Packets are pooled: whoever removes a
// packet from the network (the receiving NIC, a drop) returns it to the
// Pool, and must not keep a pointer to it afterwards.
type Packet struct {
	next *Packet // intrusive FIFO link; a packet is in at most one FIFO

	Kind  Kind
	Class uint8 // priority class 0..7
	ECT   bool  // ECN-capable transport
	CE    bool  // congestion experienced (set by a switch at dequeue)
	CNP   bool  // on an ACK: congestion echo (REFERENCE 4.5 ack_flag mode)
	Last  bool  // on data: last packet of its message
	Pause bool  // on PFC: true = PAUSE, false = RESUME

	Src, Dst     int32  // host indices
	SPort, DPort uint16 // UDP ports (ECMP entropy)
	Size         int32  // bytes on the wire
	Payload      int32  // data bytes carried (0 for control)
	QP           int64  // sender QP id
	Seq          int64  // data: byte offset of the first payload byte; ACK/NACK: cumulative
	Arg          int64  // kind-specific argument (PFC class, grant bytes, ...)
	SentAt       engine.Time
	// INT is the telemetry stack, present only on packets of runs whose
	// congestion control asked for INT; it is owned by the packet and
	// returned to the pool with it. Keeping it out of line keeps the hot
	// packet struct within two cache lines.
	INT *INTStack

	inPort int32 // ingress port index at the current switch (buffer accounting)
	ectx   uint8 // ingress class at the current switch
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
// safe for concurrent use.
type Pool struct {
	free      *Packet
	freeINT   *INTStack
	allocated int64 // packets ever created
	live      int64 // packets handed out and not returned
}

// Get returns a zeroed packet.
func (pl *Pool) Get() *Packet {
	p := pl.free
	if p == nil {
		pl.allocated++
		p = new(Packet)
	} else {
		pl.free = p.next
		*p = Packet{}
	}
	pl.live++
	return p
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
	p.next = pl.free
	p.Kind = numKinds // poison: a use after Put shows up as an unknown kind
	pl.free = p
	pl.live--
}

// Live is the number of packets in use (in queues, on wires, in NICs).
func (pl *Pool) Live() int64 { return pl.live }

// Allocated is the number of packet structs ever created: the peak of Live.
func (pl *Pool) Allocated() int64 { return pl.allocated }

// fifo is an intrusive FIFO of packets.
type fifo struct {
	head, tail *Packet
	n          int
}

func (f *fifo) push(p *Packet) {
	p.next = nil
	if f.tail == nil {
		f.head = p
	} else {
		f.tail.next = p
	}
	f.tail = p
	f.n++
}

func (f *fifo) pop() *Packet {
	p := f.head
	if p == nil {
		return nil
	}
	f.head = p.next
	if f.head == nil {
		f.tail = nil
	}
	p.next = nil
	f.n--
	return p
}

// FIFO is an exported intrusive packet queue for NICs and other endpoints.
type FIFO struct{ f fifo }

// Push appends p.
func (q *FIFO) Push(p *Packet) { q.f.push(p) }

// Pop removes the head, or returns nil.
func (q *FIFO) Pop() *Packet { return q.f.pop() }

// Head returns the head without removing it.
func (q *FIFO) Head() *Packet { return q.f.head }

// Len is the number of packets queued.
func (q *FIFO) Len() int { return q.f.n }
