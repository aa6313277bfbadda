package rnic

// The responder: receiving data, and ACK, NACK and CNP generation.

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/invariants"
	"github.com/dcsim/dcsim/transport/rocev2"
)

func (h *Host) receiveData(now engine.Time, p *fabric.Packet) {
	c := h.c
	c.Counters.PayloadArrived += int64(p.Payload)
	rx := c.rxByID[p.QP]
	if rx == nil {
		rx = &rxQP{}
		c.rxByID[p.QP] = rx
	}
	h.sched.Received(now, p)
	before := rx.r.Expected
	resp, seq, echo := rx.r.OnData(now, p.Seq, int64(p.Payload), p.CE, p.Last, &c.recvCfg)
	if invariants.Enabled && (rx.r.Expected < before || (rx.r.Expected > before && p.Seq != before)) {
		panic(fmt.Sprintf("rnic: host %d qp %d: in-order point %d -> %d on a packet at %d", h.ID, p.QP, before, rx.r.Expected, p.Seq))
	}
	switch {
	case rx.r.Expected > before:
		c.Counters.PayloadInOrder += rx.r.Expected - before
	case p.Seq < before:
		c.Counters.DuplicateData++
	default:
		c.Counters.OutOfOrderData++
	}
	if p.CE && c.Cfg.CNP == CNPPacket && (!rx.cnpSent || now >= rx.lastCNP+c.Cfg.CNPInterval) {
		rx.cnpSent, rx.lastCNP = true, now
		cnp := h.newReply(p, fabric.CNP)
		cnp.Size = uint16(c.Cfg.Headers.CNPBytes())
		cnp.Class = 0
		h.sendControl(now, cnp)
	}
	if resp != rocev2.None {
		kind := fabric.Ack
		if resp == rocev2.SendNack {
			kind = fabric.Nack
		}
		a := h.newReply(p, kind)
		a.Seq = seq
		a.CNP = echo && c.Cfg.CNP == CNPOnAck
		a.Size = uint16(c.Cfg.Headers.AckWire(c.Cfg.CC.HeaderBytes))
		a.SentAt = p.SentAt
		a.INT, p.INT = p.INT, nil // the ACK echoes the data packet's INT stack
		h.sendControl(now, a)
	}
	// A per-flow QP's receive state ends with its message.
	if c.Cfg.Mapping.PerFlow && p.Last && rx.r.Expected == p.Seq+int64(p.Payload) {
		c.rxByID[p.QP] = nil
	}
}

// newReply makes a control packet from this host back to p's sender, for
// p's QP, hashing on the reversed ports.
func (h *Host) newReply(p *fabric.Packet, kind fabric.Kind) *fabric.Packet {
	a := h.c.Net.Pool.Get()
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
