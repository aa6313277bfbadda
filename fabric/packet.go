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
	CNP   bool  // on an ACK: congestion echo (docs/model.md §4.5 ack_flag mode)
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
	// intIdx names the packet's INT stack in its pool (0: none), present
	// only on packets of runs whose congestion control asked for INT
	// (Pool.Hops reads it); it is owned by the packet and returned to the
	// pool with it. Keeping it out of line keeps the packet within one
	// cache line.
	intIdx uint32
	// link is the packet's index in its pool (Pool.at), except while it
	// is queued in a class queue behind another packet (qfifo): then it
	// is the index of the packet queued after it. An index, not a
	// pointer, so that the packet is pointer-free (its slabs are not
	// scanned by the garbage collector) and the link fits beside intIdx.
	link uint32
}

// INTStack holds a packet's INT hop records.
type INTStack struct {
	hops [MaxINTHops]INTHop
	n    uint8
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
func (pl *Pool) Hops(p *Packet) []INTHop {
	if p.intIdx == 0 {
		return nil
	}
	return pl.intStack(p.intIdx).Hops()
}

// TakeINT moves from's INT stack, if any, to p (which must carry none):
// an ACK echoes its data packet's records.
func (p *Packet) TakeINT(from *Packet) { p.intIdx, from.intIdx = from.intIdx, 0 }

// Pool is a free list of packets. It belongs to one simulation; it is not
// safe for concurrent use. Packets come from slabs of slabPackets, so they
// are cache-line aligned and the free stack is reused last-in first-out
// (the most recently freed, cache-warm packet goes out first).
//
// Every packet has an index (Packet.link while not queued): chunks maps
// index i to &chunks[i>>10][i&1023], so that a class queue links its
// packets by 32-bit index (qfifo). Index 0 is never handed out, so a
// packet not from a pool (link 0) is caught when queued.
//
// The pools of a network on a World (one per thread, BuildWorld) share one
// index space: their chunks are one table of fixed length, each pool
// filling only its own range of it (so no pool ever appends to what
// another reads), and every pool resolves every packet's index. A packet
// taken from one thread's pool may be queued and freed on another: it
// joins the free list of the pool it is freed into, and the pools' Live
// counts sum to the packets in use (one pool's may go negative).
type Pool struct {
	free      []*Packet
	slab      []Packet
	chunks    []*[slabPackets]Packet
	nextIdx   uint32 // index of slab[0]
	nextChunk int32  // on a World: the next chunk of this pool's range
	endChunk  int32  // on a World: the end of this pool's range; 0: none (chunks grows)
	// INT stacks by index, in chunks of intChunk (ints[i/intChunk][i%intChunk]);
	// index 0 is unused. On a World the table is shared like chunks.
	ints      []*[intChunk]INTStack
	nextINT   uint32 // the next fresh stack index
	endINT    uint32 // on a World: the end of this pool's range of stack indices
	freeINT   []uint32
	allocated int64 // packets ever created
	live      int64 // packets handed out and not returned
}

// intChunk is the number of INT stacks allocated together (43 KiB).
const intChunk = 256

// The share of each pool of a World in the shared tables: 32 Mi packets
// (2 GiB of them) and 4 Mi INT stacks per thread, 384 KiB of table per
// thread. The index is 32-bit, so at most 128 threads.
const (
	worldPoolChunks    = 1 << 15
	worldPoolINTChunks = 1 << 14
	maxWorldPools      = 1 << 32 / (worldPoolChunks * slabPackets)
)

// newWorldPools makes k pools sharing one index space (Pool).
func newWorldPools(k int) []*Pool {
	chunks := make([]*[slabPackets]Packet, k*worldPoolChunks)
	ints := make([]*[intChunk]INTStack, k*worldPoolINTChunks)
	pools := make([]*Pool, k)
	for i := range pools {
		pools[i] = &Pool{chunks: chunks, nextChunk: int32(i * worldPoolChunks), endChunk: int32((i + 1) * worldPoolChunks),
			ints: ints, nextINT: uint32(i * worldPoolINTChunks * intChunk), endINT: uint32((i + 1) * worldPoolINTChunks * intChunk)}
	}
	return pools
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
		*p = Packet{link: p.link}
	} else {
		if len(pl.slab) == 0 {
			pl.addSlab()
		}
		p = &pl.slab[0]
		p.link = pl.nextIdx
		pl.slab = pl.slab[1:]
		pl.nextIdx++
		pl.allocated++
	}
	pl.live++
	return p
}

// addSlab makes the next slab the current one and indexes its packets.
func (pl *Pool) addSlab() {
	if pl.endChunk == 0 {
		slab := newSlab(int64(len(pl.chunks)) * slabPackets)
		pl.nextIdx = uint32(len(pl.chunks) * slabPackets)
		for i := 0; i < len(slab); i += slabPackets {
			pl.chunks = append(pl.chunks, (*[slabPackets]Packet)(slab[i:]))
		}
		pl.useSlab(slab)
		return
	}
	// A pool of a World fills its own range of the shared table.
	first := pl.nextChunk
	slab := newSlab(int64(first-pl.endChunk+worldPoolChunks) * slabPackets)
	if int(first)+len(slab)/slabPackets > int(pl.endChunk) {
		panic(fmt.Sprintf("fabric: a thread's packet pool is full (%d packets)", worldPoolChunks*slabPackets))
	}
	for i := 0; i < len(slab); i += slabPackets {
		pl.chunks[pl.nextChunk] = (*[slabPackets]Packet)(slab[i:])
		pl.nextChunk++
	}
	pl.nextIdx = uint32(first) * slabPackets
	pl.useSlab(slab)
}

// useSlab makes slab, whose first packet has index nextIdx, the current one.
func (pl *Pool) useSlab(slab []Packet) {
	if pl.nextIdx == 0 { // index 0 stays unused
		slab, pl.nextIdx = slab[1:], 1
	}
	pl.slab = slab
}

// at is the packet of index i.
func (pl *Pool) at(i uint32) *Packet { return &pl.chunks[i>>10][i&(slabPackets-1)] }

// newSlab allocates the next slab of a pool whose slabs so far hold
// allocated packets.
func newSlab(allocated int64) []Packet {
	if allocated < hugeAfter {
		return make([]Packet, slabPackets)
	}
	slab := make([]Packet, hugeSlabPackets)
	adviseHugePages(unsafe.Pointer(&slab[0]), uintptr(len(slab))*unsafe.Sizeof(Packet{}))
	return slab
}

// stackINT returns p's INT stack, giving it an empty one if it has none.
func (pl *Pool) stackINT(p *Packet) *INTStack {
	if p.intIdx == 0 {
		if n := len(pl.freeINT); n > 0 {
			p.intIdx = pl.freeINT[n-1]
			pl.freeINT = pl.freeINT[:n-1]
			*pl.intStack(p.intIdx) = INTStack{}
		} else {
			p.intIdx = pl.newINT()
		}
	}
	return pl.intStack(p.intIdx)
}

// intStack is the INT stack of index i.
func (pl *Pool) intStack(i uint32) *INTStack { return &pl.ints[i/intChunk][i%intChunk] }

// newINT hands out a fresh INT stack index, adding a chunk of stacks when
// it starts one.
func (pl *Pool) newINT() uint32 {
	if pl.nextINT == 0 { // index 0 stays unused
		pl.nextINT = 1
	}
	i := pl.nextINT
	if pl.endINT != 0 && i >= pl.endINT {
		panic(fmt.Sprintf("fabric: a thread's INT stacks are exhausted (%d)", worldPoolINTChunks*intChunk))
	}
	c := int(i / intChunk)
	if c == len(pl.ints) { // a pool of its own (not a World's) grows its table
		pl.ints = append(pl.ints, nil)
	}
	if pl.ints[c] == nil {
		pl.ints[c] = new([intChunk]INTStack)
	}
	pl.nextINT++
	return i
}

// Put returns p (and its INT stack) to the pool.
func (pl *Pool) Put(p *Packet) {
	if p.intIdx != 0 {
		pl.freeINT = append(pl.freeINT, p.intIdx)
		p.intIdx = 0
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

// push appends p.
func (f *fifo) push(p *Packet) {
	if int(f.n) == len(f.buf) {
		f.grow()
	}
	f.buf[int(f.head+f.n)&(len(f.buf)-1)] = p
	f.n++
}

func (f *fifo) grow() {
	nb := make([]*Packet, max(8, 2*len(f.buf)))
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

// qfifo is a switch port class queue: a FIFO linked through the packets
// (Packet.link), so that a dequeue finds the next packet's index in the
// packet it pops, a line it loads anyway, instead of in a ring slot
// written long before (with deep queues a miss whose address the
// prefetch of the next packet had to wait for). The queue keeps the head
// packet's own index (its link names its successor); a packet's link is
// its own index again once popped. Pushing writes the tail packet, queued
// shortly before.
type qfifo struct {
	head, tail *Packet
	headIdx    uint32
	n          int32
}

// push appends p, which must come from the pool.
func (f *qfifo) push(p *Packet) {
	i := p.link
	if i == 0 {
		panic("fabric: queueing a packet that is not from the network's pool")
	}
	if f.n == 0 {
		f.head, f.headIdx = p, i
	} else {
		f.tail.link = i
	}
	f.tail = p
	f.n++
}

// pop removes the head; the caller knows the queue is not empty.
func (f *qfifo) pop(pl *Pool) *Packet {
	p := f.head
	f.n--
	if f.n > 0 {
		next := p.link
		p.link = f.headIdx
		f.head, f.headIdx = pl.at(next), next
	} else {
		f.head, f.tail = nil, nil
	}
	return p
}

// each visits the packets, head first.
func (f *qfifo) each(pl *Pool, fn func(p *Packet)) {
	p := f.head
	for i := int32(0); i < f.n; i++ {
		fn(p)
		if i+1 < f.n {
			p = pl.at(p.link)
		}
	}
}

// FIFO is an exported intrusive packet queue for NICs and other endpoints.
type FIFO struct{ f fifo }

// Push appends p.
func (q *FIFO) Push(p *Packet) { q.f.push(p) }

// Pop removes the head, or returns nil.
func (q *FIFO) Pop() *Packet { return q.f.pop() }

// Head returns the head without removing it.
func (q *FIFO) Head() *Packet { return q.f.peek() }

// Len is the number of packets queued.
func (q *FIFO) Len() int { return int(q.f.n) }
