package rnic

// The responder: receiving data, and ACK, NACK and CNP generation.

import (
	"fmt"
	"slices"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/invariants"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// receiveData hands a data packet to its QP's receiver and acts on what
// was kept: a packet that is not a duplicate is kept when it is in order,
// or, under selective repeat, held above the cumulative point (and placed
// either way: eager placement); READ requests are answered on arrival;
// an ATOMIC kept out of order (Config.Atomics eager or deferred) executes
// on arrival or when the in-order point passes it and is ATOMIC ACKed
// then; a READ completes when the in-order point passes its response's
// end. Go-back-N keeps only in-order packets, so there everything happens
// at once.
func (h *Host) receiveData(now engine.Time, p *fabric.Packet) {
	c := h.c
	h.k.PayloadArrived += int64(p.Payload)
	rx, tab, seq := h.rxState(p.QP)
	if rx == nil {
		rx = c.newRx()
		tab.setRx(seq, rx)
	}
	h.sched.Received(now, p)
	op := rocev2.Opcode(p.Op)
	units := int64(p.Payload)
	if op.Request() {
		units = 1 // a READ request or ATOMIC: one unit of sequence space, no payload
	}
	if rx == finishedRx {
		h.lateDuplicate(now, p, op, units)
		return
	}
	var before int64
	if invariants.Enabled {
		before = rx.r.InOrder()
	}
	seg := rocev2.Segment{Seq: p.Seq, N: units, CE: p.CE, Last: p.Last, Op: op}
	var a rocev2.Answer
	if g, ok := rx.r.(*rocev2.GBNReceiver); ok { // a direct call on the default's per-packet path
		a = g.Receive(now, seg, &c.recvCfg)
	} else {
		a = rx.r.Receive(now, seg, &c.recvCfg)
	}
	if invariants.Enabled && a.InOrder < before {
		panic(fmt.Sprintf("rnic: host %d qp %d: in-order point %d -> %d on a packet at %d", h.ID, p.QP, before, a.InOrder, p.Seq))
	}
	resp := a.Resp
	held := a.Kept && p.Seq >= a.InOrder // kept above the in-order point (selective repeat)
	switch {
	case a.Duplicate:
		h.k.DuplicateData++
	case !a.Kept || held:
		h.k.OutOfOrderData++
	}
	if p.CE && c.Cfg.CNP == CNPPacket {
		h.notifyCNP(now, rx, p)
	}
	var atomic *Message
	readEnd := int64(-1)
	if a.Kept {
		h.k.PayloadInOrder += int64(p.Payload) // in order, or held: it will be
		switch {
		case op == rocev2.ReadRequest:
			h.respond(p)
		case op.Request() && held:
			h.holdAtomic(now, rx, p)
		case op.Request():
			if atomic = h.execute(now, p); atomic == nil {
				resp = rocev2.None // a stale duplicate of a completed ATOMIC
			}
		default:
			if c.OnPlace != nil {
				c.OnPlace(now, h, p)
			}
		}
		if op == rocev2.ReadResponseLast || op == rocev2.ReadResponseOnly {
			readEnd = p.Seq + units
		}
		if p.Last {
			rx.lastEnd = max(rx.lastEnd, p.Seq+units)
		}
	} else if resp == rocev2.SendAck && op.Request() && op != rocev2.ReadRequest {
		// A duplicate ATOMIC (resent after a timeout: its ATOMIC ACK was
		// lost or late) is not executed again; its ATOMIC ACK is sent again
		// with the value it returned, as an InfiniBand responder replays it.
		atomic = h.execute(now, p)
	}
	if resp != rocev2.None {
		h.reply(now, p, resp, a.Seq, a.Sack, a.Echo, atomic)
	}
	h.passed(now, rx, p, a.InOrder, readEnd)
	if c.Cfg.Mapping.PerFlow && rx.lastEnd > 0 && a.InOrder >= rx.lastEnd && rx.r.Held() == 0 {
		tab.setRx(seq, finishedRx) // a per-flow QP's receive state ends with its message
	}
}

// holdAtomic keeps the ATOMIC p that arrived out of order (Config.Atomics
// eager or deferred) until the in-order point passes it; eager executes it
// now.
func (h *Host) holdAtomic(now engine.Time, rx *rxQP, p *fabric.Packet) {
	m := h.pending(p)
	if m == nil {
		return
	}
	if h.c.Cfg.Atomics == AtomicEager {
		h.executeWQE(now, m)
	}
	if rx.held == nil {
		rx.held = &rxHeld{}
	}
	x := rx.held
	i := len(x.atomics)
	for i > 0 && x.atomics[i-1].end > m.end {
		i--
	}
	x.atomics = slices.Insert(x.atomics, i, m)
}

// passed acts on what the in-order point, now at, has passed: the held
// ATOMICs (executed, if not yet, and ATOMIC ACKed) and the ends of READ
// responses, the one of p (readEnd, -1 if none) among them; a READ
// response whose end lies beyond the point waits there.
func (h *Host) passed(now engine.Time, rx *rxQP, p *fabric.Packet, at, readEnd int64) {
	x := rx.held
	if readEnd > at {
		if x == nil {
			x = &rxHeld{}
			rx.held = x
		}
		i := len(x.respEnds)
		for i > 0 && x.respEnds[i-1] > readEnd {
			i--
		}
		x.respEnds = slices.Insert(x.respEnds, i, readEnd)
	}
	if x != nil {
		for len(x.atomics) > 0 && x.atomics[0].end <= at {
			m := x.atomics[0]
			x.atomics = x.atomics[1:]
			h.executeWQE(now, m)
			h.reply(now, p, rocev2.SendAck, at, rocev2.Span{}, false, m)
		}
		for len(x.respEnds) > 0 && x.respEnds[0] <= at {
			x.respEnds = x.respEnds[1:]
			h.readArrived(now, p)
		}
	}
	if readEnd >= 0 && readEnd <= at {
		h.readArrived(now, p)
	}
}

// finishedRx marks the receive state of a per-flow QP whose message was
// received whole: a packet that arrives for it later is a duplicate (a
// resend that crossed the ACKs), not a new flow's first packet. It is
// shared and never written.
var finishedRx = &rxQP{}

// lateDuplicate handles a packet of a per-flow QP whose message was
// received whole (finishedRx): it is counted as a duplicate and neither
// placed nor counted as payload. As the receivers answer duplicates, one
// that ends the message is ACKed again, here with its own end (every byte
// before it arrived), a duplicate ATOMIC gets its ATOMIC ACK again while
// its WQE is pending, a duplicate READ request is answered only if it was
// not (respond); anything else is silent. No CNP: nothing is left to slow
// down.
func (h *Host) lateDuplicate(now engine.Time, p *fabric.Packet, op rocev2.Opcode, units int64) {
	h.k.DuplicateData++
	switch {
	case op == rocev2.ReadRequest:
		h.respond(p)
	case op.Request():
		if m := h.execute(now, p); m != nil {
			h.reply(now, p, rocev2.SendAck, p.Seq+units, rocev2.Span{}, false, m)
		}
	case p.Last:
		h.reply(now, p, rocev2.SendAck, p.Seq+units, rocev2.Span{}, false, nil)
	}
}

// notifyCNP sends a standalone CNP for a CE-marked packet (CNPPacket), at
// most one per CNPInterval per receive QP.
func (h *Host) notifyCNP(now engine.Time, rx *rxQP, p *fabric.Packet) {
	c := h.c
	if p.CE && c.Cfg.CNP == CNPPacket && (!rx.cnpSent || now >= rx.lastCNP+c.Cfg.CNPInterval) {
		rx.cnpSent, rx.lastCNP = true, now
		cnp := h.newReply(p, fabric.CNP)
		cnp.Size = uint16(c.Cfg.Headers.CNPBytes())
		cnp.Class = 0
		h.sendControl(now, cnp)
	}
}

// reply sends the ACK or NACK resp for the data packet p, with cumulative
// point seq and, on a selective-repeat NACK, the range that arrived; an
// ACK of an ATOMIC is its ATOMIC ACK with the original value.
func (h *Host) reply(now engine.Time, p *fabric.Packet, resp rocev2.Response, seq int64, sack rocev2.Span, echo bool, atomic *Message) {
	c := h.c
	kind, aop := fabric.Ack, rocev2.AckOp
	if resp == rocev2.SendNack {
		kind, aop = fabric.Nack, rocev2.NakOp
	}
	a := h.newReply(p, kind)
	a.Op = uint8(aop)
	a.Seq = seq
	a.CNP = echo && c.Cfg.CNP == CNPOnAck
	a.Size = uint16(c.Cfg.Headers.AckWire(c.Cfg.CC.HeaderBytes))
	switch {
	case atomic != nil && kind == fabric.Ack:
		a.Op = uint8(rocev2.AtomicAck)
		a.Arg = int64(atomic.Ext.Result)
		a.Size = uint16(c.Cfg.Headers.AtomicAckWire(c.Cfg.CC.HeaderBytes))
	case sack.End > sack.Start:
		a.Arg = rocev2.EncodeSack(sack)
	}
	a.SentAt = p.SentAt
	a.TakeINT(p) // the ACK echoes the data packet's INT stack
	h.sendControl(now, a)
}

// pending is the requester's WQE that the request packet p (a READ
// request or an ATOMIC) carries: its extended transport header (RETH,
// AtomicETH) is read from the WQE, which stays pending at the requester
// until it completes. Nil for a stale duplicate that arrives after its WQE
// completed (a per-flow QP's receive state ends with its last packet, so
// such a duplicate looks new).
func (h *Host) pending(p *fabric.Packet) *Message {
	if q := h.loc.qp(p.QP); q != nil {
		for _, m := range q.msgs {
			if m.start == p.Seq {
				return m
			}
		}
	}
	return nil
}

// respond queues the data of the READ request p on the responder context
// of p's QP (opened on demand): that context is a QP of this host, ranked
// by its scheduler and paced by its congestion control like any other.
func (h *Host) respond(p *fabric.Packet) {
	m := h.pending(p)
	if m == nil || m.answered {
		return // a duplicate request (resent after a timeout)
	}
	m.answered = true
	if h.c.OnRead != nil {
		h.c.OnRead(h.sim.Now(), h, m)
	}
	q := m.QP
	rq := h.responders[q.ID]
	if rq == nil {
		rq = h.openResponder(q)
	}
	h.enqueue(rq, &Message{ID: m.ID, Src: h.ID, Dst: m.Src, Size: m.Size, Verb: rocev2.ReadResponse,
		Generator: m.Generator, Tag: m.Tag, TxnID: m.TxnID, Ext: &Ext{req: m}})
}

// execute performs the ATOMIC request p on this host's memory (or through
// Cluster.OnAtomic) and returns its WQE with Result set to the original
// value, which the ATOMIC ACK carries back. A WQE executes once: a
// duplicate gets the first execution's value (InfiniBand's responder
// replays an ATOMIC's response); a stale duplicate of a completed WQE
// gets nil.
func (h *Host) execute(now engine.Time, p *fabric.Packet) *Message {
	m := h.pending(p)
	if m != nil {
		h.executeWQE(now, m)
	}
	return m
}

// executeWQE performs the ATOMIC m at this host unless it executed already.
func (h *Host) executeWQE(now engine.Time, m *Message) {
	if m.Ext.executed {
		return
	}
	m.Ext.executed = true
	if h.c.OnAtomic != nil {
		m.Ext.Result = h.c.OnAtomic(now, h, m)
		return
	}
	m.Ext.Result = h.Atomic(m)
}

// Atomic executes the ATOMIC m on this host's memory (Word) and returns
// the original value: FETCH_ADD adds Operand, CMP_SWAP stores Operand if
// the word equals Compare.
func (h *Host) Atomic(m *Message) uint64 {
	if h.mem == nil {
		h.mem = map[uint64]uint64{}
	}
	x := m.Ext
	old := h.mem[x.Addr]
	switch m.Verb {
	case rocev2.FetchAdd:
		h.mem[x.Addr] = old + x.Operand
	case rocev2.CompareSwap:
		if old == x.Compare {
			h.mem[x.Addr] = x.Operand
		}
	}
	return old
}

// Word is the 8-byte word at addr of this host's memory (0 until an
// ATOMIC or SetWord writes it).
func (h *Host) Word(addr uint64) uint64 { return h.mem[addr] }

// SetWord writes the word at addr of this host's memory.
func (h *Host) SetWord(addr, v uint64) {
	if h.mem == nil {
		h.mem = map[uint64]uint64{}
	}
	h.mem[addr] = v
}

// newReply makes a control packet from this host back to p's sender, for
// p's QP, hashing on the reversed ports.
func (h *Host) newReply(p *fabric.Packet, kind fabric.Kind) *fabric.Packet {
	a := h.pool.Get()
	a.Kind = kind
	a.Src, a.Dst = int32(h.ID), p.Src
	a.SPort, a.DPort = p.DPort, p.SPort
	a.QP = p.QP
	a.Class = 0
	if !h.c.Cfg.AckControl {
		a.Class = p.Class
	}
	return a
}
