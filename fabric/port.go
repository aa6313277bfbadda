package fabric

import (
	"math/bits"
	"unsafe"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/internal/prefetch"
)

// Node is anything with ports that packets arrive at: a switch or a host NIC.
type Node interface {
	// Receive takes ownership of p, which arrived on port in.
	Receive(now engine.Time, p *Packet, in *Port)
}

// Source feeds a port that has no queues of its own (a host NIC): the port
// asks for the next packet whenever its transmitter is free.
type Source interface {
	// Next returns the packet to transmit now, or nil if none may go now.
	// The returned packet's class must not be paused on the port, except
	// for an ACK or NACK: a NIC's ACK queue may ignore PAUSE (the
	// reference's ACK_HIGH_PRIO, docs/model.md §4.4).
	Next(now engine.Time) *Packet
	// HasMore reports whether Next might return a packet once the current
	// transmission ends; a false answer obliges the source to call Kick
	// when it gets something to send.
	HasMore() bool
}

// Port event kinds.
const (
	evTxDone  uint8 = iota // the transmitter finished a packet
	evDeliver              // the wire's head packet reached the peer
)

// Port is one end of a full-duplex link: its egress side owns the
// transmitter, the per-class egress queues (switch ports) or a Source (host
// ports), and the wire towards Peer. Packets on the wire wait in the port's
// own FIFO, so only the next delivery sits in the global event queue.
//
// Field order is deliberate (TestPortLayout pins it). A delivery touches
// the first two cache lines only, a 128-byte aligned pair (the size of a
// Port is a multiple of 128 and the port slab is page-aligned, so Intel's
// spatial prefetcher brings the pair together): the wire with its head
// packet and time, the peer's owner and index, the observer, the network
// (for the event queue). Enqueueing and transmitting add the third line
// (queue summary, timing, counters) and the class's own line: each
// class's queue, byte count, ECN profile and weight share one line, so a
// hop touches four lines of the egress port and two of the port it
// arrived from. The rest (owner, rate, counters read only in reports,
// pause bookkeeping) is cold.
type Port struct {
	// Line 0: delivery.
	wire      wire
	peerOwner Node // Peer.Owner, kept here so a delivery does not touch Peer

	// Line 1: delivery and transmission.
	Observer    Observer
	net         *Network
	Peer        *Port
	busyUntil   engine.Time
	sw          *Switch // owning switch, nil for host ports
	queuedPeakB int64
	peerIdx     uint16 // Peer.Index
	eventPerPkt bool   // event order (Config.NS3EventOrder): per packet a delivery and a tx-done event, scheduled at transmit
	txPending   bool
	credit      int32 // WRR: packets left in rrClass's turn

	// Line 2: transmission and the queue summary.
	source    Source
	psPerByte engine.Time // Rate's exact time per byte, or 0 (then TxTime divides)
	Delay     engine.Time // propagation delay of the wire to Peer
	qTotal    int64
	TxBytes   int64 // counter: bytes transmitted
	TxPackets int64 // counter: packets transmitted
	nonEmpty  uint8 // bit c: q[c] has packets
	paused    uint8 // bit c: egress class c paused by the peer (PFC)
	strict    uint8 // bit c: class c is served by strict priority
	stampIN   bool
	rrClass   uint8
	creditFC  bool // credit-based flow control towards the peer (cr, credit.go)
	cross     bool // the peer is in another unit of a World: the wire goes by xl (world.go)
	// wholeNs picks the serialization clock where psPerByte is 0: ns-3's
	// whole ns (TxTimeWholeNs, Config.WholeNs) or exact (TxTime).
	wholeNs bool

	// One cache line per class.
	cls [NumClasses]classQ

	// Cold.
	Owner Node // the switch or NIC this port belongs to
	Rate  engine.Rate
	Index int // position in the owner's port list

	// Counters (read them, do not write).
	PausedTime  [NumClasses]engine.Time // time each egress class spent paused
	PauseRx     int64                   // PAUSE frames received
	MarkedPkts  int64                   // CE marks applied at this egress
	pausedSince [NumClasses]engine.Time
	cr          *credits   // credit-based flow control towards the peer, or nil
	xl          *crossLink // the wire's courier and receiving side when cross

}

// classQ is one egress class of a port: exactly one cache line.
type classQ struct {
	q       qfifo
	bytes   int64
	ecnKmin int64 // ecn.Kmin, or MaxInt64 without marking: no ECN lookup below it
	ecn     *ECN  // nil = no marking
	weight  int32
	_       [8]byte
}

// QueueBytes is the number of bytes queued in class c.
func (pt *Port) QueueBytes(c int) int64 { return pt.cls[c].bytes }

// Head is the packet at the head of class c's queue, or nil.
func (pt *Port) Head(c int) *Packet { return pt.cls[c].q.head }

// EachQueued visits the packets queued in class c, head first.
func (pt *Port) EachQueued(c int, f func(p *Packet)) { pt.cls[c].q.each(pt.net.Pool, f) }

// QueuedBytes is the number of bytes queued in all classes.
func (pt *Port) QueuedBytes() int64 { return pt.qTotal }

// PeakQueuedBytes is the largest QueuedBytes seen.
func (pt *Port) PeakQueuedBytes() int64 { return pt.queuedPeakB }

// WireBytes is the number of bytes on the wire towards Peer. It visits
// the packets in flight: a byte count kept per hop would load each
// delivered packet's size in the delivery's first, dependent loads.
func (pt *Port) WireBytes() int64 {
	var b int64
	pt.eachOnWire(func(p *Packet) { b += int64(p.Size) })
	return b
}

// eachOnWire visits the packets on the wire towards Peer, oldest first.
// Between units they are in two parts: those the receiving side has taken
// at a window's end, then those sent since.
func (pt *Port) eachOnWire(f func(p *Packet)) {
	if pt.xl != nil {
		pt.xl.in.each(f)
	}
	pt.wire.each(f)
}

// Paused reports whether egress class c is paused by the peer.
func (pt *Port) Paused(c uint8) bool { return pt.paused&(1<<c) != 0 }

// PausedMask is the set of paused egress classes, bit c for class c.
func (pt *Port) PausedMask() uint8 { return pt.paused }

// Busy reports whether the transmitter is sending at now.
func (pt *Port) Busy(now engine.Time) bool { return pt.busyUntil > now }

// FreeAt is when the transmitter finishes its current packet.
func (pt *Port) FreeAt() engine.Time { return pt.busyUntil }

// TxTime is the time the port takes to serialize n bytes.
func (pt *Port) TxTime(n int64) engine.Time {
	if pt.psPerByte > 0 {
		return engine.Time(n) * pt.psPerByte
	}
	if pt.wholeNs {
		return pt.Rate.TxTimeWholeNs(n)
	}
	return pt.Rate.TxTime(n)
}

// SetSource makes the port pull packets from s instead of its queues.
func (pt *Port) SetSource(s Source) { pt.source = s }

// Fire implements engine.Handler.
func (pt *Port) Fire(now engine.Time, kind uint8) {
	switch kind {
	case evTxDone:
		pt.txPending = false
		pt.transmit(now)
	case evDeliver:
		p := pt.wire.pop()
		pt.wire.touchNext()
		if pt.wire.n > 0 && !pt.eventPerPkt {
			pt.net.Sim.At(pt.wire.next(), pt, evDeliver)
		}
		if pt.Observer != nil {
			pt.Observer.Deliver(now, pt, p)
		}
		p.inPort = pt.peerIdx
		pt.peerOwner.Receive(now, p, pt.Peer)
	}
}

// Kick tells the port it may have something to send.
func (pt *Port) Kick(now engine.Time) {
	if pt.busyUntil > now {
		if !pt.txPending {
			pt.txPending = true
			pt.net.Sim.At(pt.busyUntil, pt, evTxDone)
		}
		return
	}
	if !pt.txPending {
		pt.transmit(now)
	}
}

func (pt *Port) transmit(now engine.Time) {
	var p *Packet
	if pt.source != nil {
		p = pt.source.Next(now)
	} else {
		p = pt.dequeue(now)
	}
	if p == nil {
		return
	}
	p.sentPaused = p.Class != 0 && pt.paused&(1<<p.Class) != 0
	if p.sentPaused && (pt.source == nil || p.Kind != Ack && p.Kind != Nack) {
		panic("fabric: transmitting a packet of a paused class")
	}
	if pt.creditFC { // credit-based links (credit.go): the packet spends its class's credits
		pt.cr.spend(now, p)
	}
	var end engine.Time
	if pt.psPerByte > 0 {
		end = now + engine.Time(p.Size)*pt.psPerByte
	} else {
		end = now + pt.TxTime(int64(p.Size))
	}
	pt.busyUntil = end
	pt.TxBytes += int64(p.Size)
	pt.TxPackets++
	arrive := end + pt.Delay
	if pt.wire.n == 0 || pt.eventPerPkt {
		if pt.cross {
			// The first packet of this window on a link between units:
			// the receiving side takes the window's packets at its end.
			pt.net.Sim.Hand(pt.xl.src, pt.xl.dst, pt.xl)
		} else {
			pt.net.Sim.At(arrive, pt, evDeliver)
		}
	}
	pt.wire.push(arrive, p, pt.net.rings)
	if pt.Observer != nil {
		pt.Observer.Transmit(now, pt, p)
	}
	more := pt.qTotal > 0
	if pt.source != nil {
		more = pt.source.HasMore()
	}
	if more || pt.eventPerPkt { // ns-3 always schedules TransmitComplete at TransmitStart
		pt.txPending = true
		pt.net.Sim.At(end, pt, evTxDone)
	}
}

// enqueue appends p to its class queue and starts the transmitter if idle.
func (pt *Port) enqueue(now engine.Time, p *Packet) {
	c := p.Class
	cq := &pt.cls[c]
	cq.q.push(p)
	cq.bytes += int64(p.Size)
	pt.qTotal += int64(p.Size)
	if pt.qTotal > pt.queuedPeakB {
		pt.queuedPeakB = pt.qTotal
	}
	pt.nonEmpty |= 1 << c
	if pt.Observer != nil {
		pt.Observer.Enqueue(now, pt, p)
	}
	pt.Kick(now)
}

// dequeue picks the next packet by the port's discipline: class 0 and the
// other strict classes first in class order, then weighted round robin over
// the rest, skipping paused classes.
func (pt *Port) dequeue(now engine.Time) *Packet {
	avail := pt.nonEmpty &^ (pt.paused &^ 1)
	if avail == 0 {
		return nil
	}
	var c int
	if s := avail & pt.strict; s != 0 {
		c = bits.TrailingZeros8(s)
	} else {
		c = int(pt.rrClass)
		if avail&(1<<c) == 0 || pt.credit <= 0 {
			// next available class after c, cyclically
			rot := bits.RotateLeft8(avail, -(c + 1))
			c = (c + 1 + bits.TrailingZeros8(rot)) % NumClasses
			pt.rrClass = uint8(c)
			pt.credit = pt.cls[c].weight
		}
		pt.credit--
	}
	cq := &pt.cls[c]
	p := cq.q.pop(pt.net.Pool)
	cq.bytes -= int64(p.Size)
	pt.qTotal -= int64(p.Size)
	if cq.q.n == 0 {
		pt.nonEmpty &^= 1 << c
	} else {
		// Prefetch the next packet of the class now (see wire.touchNext):
		// it has waited in the queue since long before, out of cache.
		prefetch.Line(unsafe.Pointer(cq.q.head))
	}
	if cq.bytes > cq.ecnKmin { // only a class that marks has an ecnKmin below MaxInt64
		pt.red(now, p, cq)
	}
	if pt.stampIN && p.Kind == Data {
		h := INTHop{LineRate: pt.Rate, Time: now, TxBytes: pt.TxBytes, QLen: pt.qTotal}
		if u := pt.net.cfg.INTBytesUnit; u > 0 {
			h.TxBytes -= h.TxBytes % u
			h.QLen -= h.QLen % pt.net.cfg.INTQLenUnit
		}
		pt.net.Pool.stackINT(p).Push(h)
	}
	// The buffer is released after the marking decision, in ns-3's order
	// (SwitchNode::SwitchNotifyDequeue), which matters to its draws
	// (NS3Rand: the RESUME this may send takes a stream). Marking reads
	// the egress queue and releasing the ingress accounting, so with
	// dcsim's own draws either order gives the same run.
	if pt.sw != nil {
		pt.sw.departed(now, p, pt)
	}
	if pt.Observer != nil {
		pt.Observer.Dequeue(now, pt, p)
	}
	return p
}

// red is RED's decision on p, dequeued from cq with the queue above kmin.
func (pt *Port) red(now engine.Time, p *Packet, cq *classQ) {
	e := cq.ecn
	if p.Kind != Data || !p.ECT {
		if cq.bytes <= e.Kmax {
			e.draws.redPass()
		}
		return
	}
	if e.mark(cq.bytes) {
		p.CE = true
		pt.MarkedPkts++
		if pt.Observer != nil {
			pt.Observer.Mark(now, pt, p)
		}
	}
}

// SetPaused applies a PAUSE (on) or RESUME (off) for egress class c, as
// received from the peer. Class 0 is never paused.
func (pt *Port) SetPaused(now engine.Time, c uint8, on bool) {
	if c == 0 || c >= NumClasses {
		return
	}
	bit := uint8(1) << c
	if on {
		pt.PauseRx++
		if pt.paused&bit == 0 {
			pt.paused |= bit
			pt.pausedSince[c] = now
			if pt.Observer != nil {
				pt.Observer.Pause(now, pt, c, true)
			}
		}
		return
	}
	if pt.paused&bit != 0 {
		pt.paused &^= bit
		pt.PausedTime[c] += now - pt.pausedSince[c]
		if pt.Observer != nil {
			pt.Observer.Pause(now, pt, c, false)
		}
		pt.Kick(now)
	}
}

// PausedFor is the total time class c has been paused up to now.
func (pt *Port) PausedFor(now engine.Time, c int) engine.Time {
	t := pt.PausedTime[c]
	if pt.paused&(1<<c) != 0 {
		t += now - pt.pausedSince[c]
	}
	return t
}

// ECN is RED marking at dequeue on one egress queue's byte count
// (docs/model.md §3.4): above Kmax always, between Kmin and Kmax with a
// probability rising linearly to Pmax, never at or below Kmin.
type ECN struct {
	Kmin, Kmax int64
	Pmax       float64
	draws      switchDraws
}

func (e *ECN) mark(q int64) bool {
	if q > e.Kmax {
		return true
	}
	if q <= e.Kmin {
		return false
	}
	return e.draws.red() < e.Pmax*float64(q-e.Kmin)/float64(e.Kmax-e.Kmin)
}

// SetECNRand replaces the random source of egress class c's marking
// decisions, a draw in [0, 1) compared with the marking probability
// (mark when below it). It is a debugging hook: the ns-3 trace test
// (wiring/ns3trace_test.go) replays the reference's own draws with it.
// It does nothing on a class that does not mark.
func (pt *Port) SetECNRand(c int, r func() float64) {
	if e := pt.cls[c].ecn; e != nil {
		pt.cls[c].ecn = &ECN{Kmin: e.Kmin, Kmax: e.Kmax, Pmax: e.Pmax, draws: streamDraws(r)}
	}
}

// Probability is the marking probability at queue length q.
func (e *ECN) Probability(q int64) float64 {
	if q > e.Kmax {
		return 1
	}
	if q <= e.Kmin {
		return 0
	}
	return e.Pmax * float64(q-e.Kmin) / float64(e.Kmax-e.Kmin)
}

// Observer receives trace points. A port with a nil Observer pays one
// pointer comparison per trace point and nothing else. On a World
// (BuildWorld) every call runs on the port's unit's thread, except
// Deliver on a link between units, which runs on the receiving unit's
// thread: an observer of several units keeps per-unit state.
type Observer interface {
	Enqueue(now engine.Time, pt *Port, p *Packet)
	Dequeue(now engine.Time, pt *Port, p *Packet)
	Transmit(now engine.Time, pt *Port, p *Packet)
	Deliver(now engine.Time, pt *Port, p *Packet)
	Drop(now engine.Time, pt *Port, p *Packet)
	Mark(now engine.Time, pt *Port, p *Packet)
	Pause(now engine.Time, pt *Port, class uint8, on bool)
}

// NopObserver implements Observer with no-ops; embed it to observe a subset.
type NopObserver struct{}

func (NopObserver) Enqueue(engine.Time, *Port, *Packet)   {}
func (NopObserver) Dequeue(engine.Time, *Port, *Packet)   {}
func (NopObserver) Transmit(engine.Time, *Port, *Packet)  {}
func (NopObserver) Deliver(engine.Time, *Port, *Packet)   {}
func (NopObserver) Drop(engine.Time, *Port, *Packet)      {}
func (NopObserver) Mark(engine.Time, *Port, *Packet)      {}
func (NopObserver) Pause(engine.Time, *Port, uint8, bool) {}
