package rnic

// Host: one NIC, its state and the dispatch of arriving packets.

import (
	"fmt"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// Host is one RDMA NIC with one port.
type Host struct {
	c  *Cluster
	ID int
	// sim runs the host's events, k counts for it and loc holds its QP
	// tables and reusable QPs: its thread's (local), the cluster's on a
	// plain cluster.
	sim  *engine.Sim
	k    *Counters
	loc  *local
	unit int32 // the host's unit (Network.HostUnit)
	// tab is its unit's QP table (loc.tabs[unit]), and idShift and
	// idMask take a QP id apart into sequence and unit (local.tabs).
	tab     *qpTable
	idShift uint8
	idMask  int32
	pool    *fabric.Pool
	port    *fabric.Port
	sched   Scheduler
	stamper Stamper // sched, if it stamps packets

	ctrl  fabric.FIFO
	qps   []*QP // open QPs, in no order (QP.openIdx is each one's index)
	pairs map[int32]*pairQPs
	paced pacedHeap
	ready int
	sport uint16
	// pairPort[dst] is the next source port towards dst (Compat.PairPorts).
	pairPort map[int32]uint16

	egress     egressLoop
	wakeAt     engine.Time // pending pacing wake-up, Never if none
	rtoCheckAt engine.Time // pending RTO check event, Never if none
	fb         cc.Feedback
	expired    []*QP
	// responders[q] is the responder context answering READs of the
	// requester QP q (open while it has response data to deliver).
	responders map[int64]*QP
	mem        map[uint64]uint64 // memory words that ATOMICs have touched
}

type pairQPs struct {
	qps  []*QP
	next int
}

// rxQP is a QP's receive state at its destination: its receiver (r,
// chosen by Cluster.newRx: gbn, kept inline so that go-back-N costs no
// second allocation, or a selective receiver), the CNP pacing, the end of
// the last message packet kept, and what waits for the in-order point.
type rxQP struct {
	r       rocev2.Receiver
	gbn     rocev2.GBNReceiver
	lastCNP engine.Time
	lastEnd int64
	cnpSent bool
	held    *rxHeld // only once something was kept out of order
}

// rxHeld is what a receive QP keeps until the in-order point passes it:
// the ends of READ responses whose last packet arrived out of order, and
// the ATOMICs kept out of order (Config.Atomics), in PSN order.
type rxHeld struct {
	respEnds []int64
	atomics  []*Message
}

func newGBNRx() *rxQP {
	rx := &rxQP{}
	rx.r = &rx.gbn
	return rx
}

func newSelectiveRx() *rxQP { return &rxQP{r: &rocev2.SelectiveReceiver{}} }

// Wake tells the NIC that its scheduler's state changed so that Pick may
// now return a QP (a grant arrived, software handed bytes over): the port
// asks for a packet if it is idle. A scheduler calls it rather than
// reaching into the fabric.
func (h *Host) Wake(now engine.Time) { h.port.Kick(now) }

// Port is the NIC's port.
func (h *Host) Port() *fabric.Port { return h.port }

// Sim is the simulation that runs the host's unit: what a scheduler or a
// workload schedules the host's events on (the cluster's Sim, except on
// an engine.World).
func (h *Host) Sim() *engine.Sim { return h.sim }

// Cluster is the cluster the host belongs to.
func (h *Host) Cluster() *Cluster { return h.c }

// Scheduler is the host's egress scheduler.
func (h *Host) Scheduler() Scheduler { return h.sched }

// ReadyQPs is the number of QPs that could send now.
func (h *Host) ReadyQPs() int { return h.ready }

// QPs returns the open QPs in id order (for tests and samplers).
func (h *Host) QPs() []*QP {
	out := make([]*QP, 0, len(h.qps))
	for _, qp := range h.qps {
		out = append(out, qp)
	}
	sortQPs(out)
	return out
}

// Receive implements fabric.Node.
func (h *Host) Receive(now engine.Time, p *fabric.Packet, in *fabric.Port) {
	k := h.k
	switch p.Kind {
	case fabric.Data:
		h.receiveData(now, p)
	case fabric.Ack, fabric.Nack:
		h.receiveAck(now, p)
	case fabric.CNP:
		if qp := h.qp(p.QP); qp != nil {
			k.CNPs++
			qp.cc.OnCNP(now)
			qp.applyCC(now)
		}
	case fabric.PFC:
		in.SetPaused(now, uint8(p.Arg), p.Pause)
	case fabric.Grant, fabric.Control:
		h.sched.Control(now, p)
	default:
		panic(fmt.Sprintf("rnic: host %d received a packet of kind %v", h.ID, p.Kind))
	}
	h.pool.Put(p)
}
