package rnic

// The cluster: shared NIC settings, counters, construction and posting.

import (
	"fmt"
	"math/bits"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/counters"
	"github.com/dcsim/dcsim/internal/invariants"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// CNPMode selects how congestion is signalled back (docs/model.md §4.5).
type CNPMode uint8

// CNP modes.
const (
	CNPOnAck  CNPMode = iota // the reference model's CNP flag on ACKs
	CNPPacket                // standalone CNP packets, at most one per interval per QP
	CNPNone                  // no notification: the CC does not react to ECN marks
)

// AtomicOrder is the selective receiver's handling of an ATOMIC that
// arrives out of PSN order.
type AtomicOrder uint8

// Atomic orders.
const (
	// AtomicResend discards it and NACKs without a range; the requester
	// resends it in recovery, so it executes in PSN order (the default).
	AtomicResend AtomicOrder = iota
	// AtomicEager keeps it and executes it on arrival (ooo-eager): with
	// eager placement of WRITE payload, a tail published by an ATOMIC can
	// change before the data of an earlier WRITE is placed.
	AtomicEager
	// AtomicDeferred keeps it and executes it when every lower PSN has
	// arrived (ooo-ordered).
	AtomicDeferred
)

// Mapping is how messages map onto QPs (docs/model.md §6.1).
type Mapping struct {
	PerFlow bool // one QP per message (the reference model)
	Pool    int  // otherwise: this many QPs per ordered host pair
}

// Config holds NIC and transport settings shared by every host.
type Config struct {
	MTU       int64 // payload bytes per full data packet
	Headers   rocev2.Headers
	DataClass uint8 // class of data packets unless the scheduler says otherwise
	// AckControl puts ACK/NACK in class 0 end to end, at NICs and
	// switches (a dcsim extension). Otherwise they travel in the class of
	// the data they acknowledge, as in the reference model.
	AckControl bool
	// AckHighPrio is the reference's ACK_HIGH_PRIO at the NIC: the ACK
	// queue is served ahead of data and a PAUSE of its class does not hold
	// ACK/NACK back (ns-3 RdmaEgressQueue::ack_q_idx = 0). Switches still
	// queue, admit and pause them with their class.
	AckHighPrio bool
	// Selective selects the receiver: IRN-style selective repeat (the
	// responder keeps out-of-order data and NACKs with the missing point
	// and the range that arrived, the requester resends only lost ranges:
	// rocev2.SelectiveSender and SelectiveReceiver) instead of in-order
	// go-back-N (the reference model, the default).
	Selective bool
	// DupThresh > 0 makes the selective receiver reorder-tolerant: it
	// answers an out-of-order packet with a SACK (an ACK with the range)
	// instead of a NACK, and the requester resends a hole only once
	// DupThresh packets beyond it are SACKed (rocev2.SelectiveSender
	// .OnSack). 0 is IRN's NACK per out-of-order packet.
	DupThresh int
	// ReorderWindow > 0 (with DupThresh) holds the verdict on the lowest
	// hole until it has been open that long (rocev2.SelectiveSender).
	ReorderWindow engine.Time
	// Atomics is what the selective receiver does with an ATOMIC that
	// arrives before a lower PSN (docs/model.md §9.3); go-back-N never keeps
	// one.
	Atomics AtomicOrder
	// ImplicitFence holds every ATOMIC until the WRITEs posted before it on
	// its QP are acknowledged (ImplicitFence), the requester's fence of
	// multi-path NICs (docs/model.md §9.3, fence = implicit).
	ImplicitFence bool
	AckInterval   int64 // bytes between ACKs (1 = every packet)
	NackInterval  engine.Time
	RTO           engine.Time // 0 = no retransmission timeout (the reference model)
	CNP           CNPMode
	CNPInterval   engine.Time
	Mapping       Mapping
	CC            cc.Spec
	CCEnv         cc.Env
	// Compat holds the reference model's behaviours where dcsim's default
	// differs (scenario compat: hpcc-ns3); the zero value is dcsim's.
	Compat Compat
}

// Compat selects HPCC ns-3 behaviours at the NIC (rnic/doc.go has the
// sources).
type Compat struct {
	// PairPorts numbers source ports from 10000 per (src, dst) pair in
	// the order QPs open (third.cc portNumder); off, per source host.
	PairPorts bool
	// WholeNsPacing truncates pacing gaps to whole ns as ns-3 does
	// (rdma-hw.cc RdmaHw::UpdateNextAvail, ChangeRate:
	// Seconds(DataRate::CalculateTxTime)).
	WholeNsPacing bool
	// RepaceOnChangeRate moves a pending pacing time on a rate change only
	// when the algorithm's updates go through ns-3's ChangeRate
	// (cc.Spec.ChangeRate: HPCC), always by the whole-ns difference and
	// even when that time has passed (rdma-hw.cc RdmaHw::ChangeRate;
	// DCQCN, TIMELY and DCTCP assign m_rate directly). Off, every
	// algorithm's rate change moves a pending pacing time.
	RepaceOnChangeRate bool
	// NS3Egress runs the NIC's transmit loop as ns-3's
	// QbbNetDevice::DequeueAndTransmit does: the scheduler is asked on
	// every transmit opportunity, also when no QP is ready, and after
	// every ACK, also one that closed its QP (RdmaHw::ReceiveAck always
	// calls TriggerTransmit), so ns-3's RdmaEgressQueue::GetNextQindex can
	// drop finished QPs from its list when it does (baselines.NS3Fair);
	// when nothing can be sent, one wake-up (m_nextSend) is set at the
	// earliest pacing time of the QPs with unsent bytes, paused or
	// window-bound ones included, only if none is pending and only if that
	// time is in the future, and only a cc.Spec.ChangeRate algorithm's (HPCC's) rate change moves it earlier
	// (QbbNetDevice::UpdateNextAvail); congestion-control timers do not
	// start a transmission. A QP that could send therefore waits for the
	// next trigger (an ACK, a RESUME, a transmission's end) where ns-3's
	// does.
	NS3Egress bool
}

// Counters are network-wide transport counters.
type Counters struct {
	DataPackets     int64 // data packets sent, retransmissions included
	PayloadSent     int64 // payload bytes sent, retransmissions included
	PayloadArrived  int64 // payload bytes that reached a receiver NIC
	PayloadInOrder  int64 // payload bytes accepted in order (goodput)
	Retransmitted   int64
	Acks, Nacks     int64
	CNPs            int64 // congestion notifications delivered to senders
	RTOs            int64
	MessagesPosted  int64
	MessagesDone    int64
	BytesPosted     int64 // Size of the messages posted, for progress: what a drain has left
	BytesDone       int64 // Size of the messages done
	ControlPackets  int64
	ControlBytes    int64
	QPsOpened       int64
	QPsClosed       int64
	DuplicateData   int64
	OutOfOrderData  int64
	DroppedStaleAck int64
	Sacks           int64 // ACKs carrying a SACK range (Config.DupThresh > 0)
}

// Cluster is every host NIC of one simulation, with their shared settings.
//
// On a network built on an engine.World (Network.HostSim, HostUnit), each
// host runs on its unit's thread, and hosts of different threads run at
// the same time: every event of a host is scheduled on its own Sim
// (Host.Sim), Post must be called on the thread of the message's source,
// and the callbacks below run on the thread of the host where the event
// happens (OnComplete, OnSent and the Observer's requester points at the
// source, OnPlace, OnAtomic and OnRead at the target), so that a workload
// or trace that collects from them keeps one buffer per thread. The
// counters are kept per thread and summed by Totals; QP ids come from
// per-unit counters (docs/parallel.md).
type Cluster struct {
	// Sim is the network's Sim: every host's on a plain cluster; on a
	// World each host has its own (Host.Sim).
	Sim   *engine.Sim
	Net   *fabric.Network
	Cfg   Config
	Hosts []*Host
	// Counters counts for every host when one thread runs them all (a
	// plain cluster, or a World of one thread); with more threads it
	// stays zero, and Totals sums the threads' counters.
	Counters Counters
	// OnComplete is called when a message's last byte is acknowledged.
	OnComplete func(m *Message)
	// OnSent, if set, is called once per message when its last byte is
	// first handed to the port; at is when that packet's serialisation
	// ends (SimAI's send_finish, used by training workloads).
	OnSent func(m *Message, at engine.Time)
	// Observer receives QP trace points; nil costs one comparison each.
	Observer Observer
	// OnPlace, if set, is called when a data packet's payload is placed
	// at its destination (accepted in order: SEND, WRITE and READ response
	// data); the packet is valid only during the call. A responder model
	// (eager or ordered placement, issue 17) hooks here.
	OnPlace func(now engine.Time, at *Host, p *fabric.Packet)
	// OnAtomic, if set, executes an ATOMIC at its target instead of
	// Host.Atomic and returns the original value for the ATOMIC ACK.
	OnAtomic func(now engine.Time, at *Host, m *Message) uint64
	// OnRead, if set, is called when the target answers the READ m (its
	// request accepted): the instant the responder reads its memory.
	OnRead func(now engine.Time, at *Host, m *Message)

	nextMsg int64
	recvCfg rocev2.ReceiverConfig
	// newSender and newRx make a QP's requester and receive state:
	// go-back-N or selective repeat (Config.Selective), chosen once in
	// NewCluster.
	newSender func() rocev2.Sender
	newRx     func() *rxQP
	// pacing and portFor are the pacing clock and the source-port
	// allocation, dcsim's or ns-3's (Config.Compat), chosen once in
	// NewCluster, as each host's egress loop is (Host.egress).
	pacing  pacingClock
	portFor func(h *Host, dst int32) uint16
	// locals holds what the hosts change beyond themselves (QP tables,
	// reusable QPs, counters), one per thread: a plain cluster has one.
	locals []*local
}

// NewCluster attaches a NIC to every host of net, each with the scheduler
// newSched returns.
func NewCluster(net *fabric.Network, cfg Config, newSched func(h *Host) Scheduler) (*Cluster, error) {
	return newCluster(net, cfg, newSched, func(h int) placement { return placement{net.HostSim(h), net.HostUnit(h), net} })
}

// placement is where a host runs: the Sim of its unit's thread, its unit,
// and the network its port is attached in and its packets come from (a
// thread's view of it).
type placement struct {
	Sim  *engine.Sim
	Unit int32
	Net  *fabric.Network
}

// newCluster is NewCluster with the hosts placed by place (tests place
// hosts in a World of their own).
func newCluster(net *fabric.Network, cfg Config, newSched func(h *Host) Scheduler, place func(h int) placement) (*Cluster, error) {
	if cfg.MTU <= 0 {
		return nil, fmt.Errorf("nic: mtu must be positive")
	}
	if w := cfg.Headers.DataWire(cfg.MTU, cfg.CC.HeaderBytes); w > fabric.MaxFrameBytes-1024 {
		return nil, fmt.Errorf("nic: mtu %d makes %d-byte frames; at most %d fit", cfg.MTU, w, fabric.MaxFrameBytes-1024)
	}
	if cfg.AckInterval <= 0 {
		return nil, fmt.Errorf("nic: ack interval must be positive")
	}
	if cfg.DataClass == 0 || cfg.DataClass >= fabric.NumClasses {
		return nil, fmt.Errorf("nic: data class must be 1..7")
	}
	if !cfg.Mapping.PerFlow && cfg.Mapping.Pool < 1 {
		return nil, fmt.Errorf("nic: qp mapping needs per-flow or a pool of >= 1")
	}
	if cfg.CC.New == nil {
		return nil, fmt.Errorf("nic: no congestion-control algorithm")
	}
	c := &Cluster{Sim: net.Sim, Net: net, Cfg: cfg,
		recvCfg: rocev2.ReceiverConfig{AckInterval: cfg.AckInterval, NackInterval: cfg.NackInterval,
			Sack: cfg.DupThresh > 0, KeepAtomics: cfg.Atomics != AtomicResend},
		newSender: func() rocev2.Sender { return &rocev2.GBNSender{} }, newRx: newGBNRx,
		pacing: newPacingClock(&cfg), portFor: newPortAllocation(&cfg)}
	if cfg.Selective {
		c.newSender = func() rocev2.Sender {
			return &rocev2.SelectiveSender{DupThresh: cfg.DupThresh, MTU: cfg.MTU, ReorderWindow: cfg.ReorderWindow}
		}
		c.newRx = newSelectiveRx
	}
	c.place(len(net.HostPorts), place)
	for _, h := range c.Hosts {
		h.sched = newSched(h)
		h.stamper, _ = h.sched.(Stamper)
		h.sched.Attach(h)
	}
	if invariants.Enabled {
		c.installChecks()
	}
	return c, nil
}

// place makes the hosts, each on its thread's Sim and in its unit, and
// their threads' locals, in host order.
func (c *Cluster) place(hosts int, place func(h int) placement) {
	at := make([]placement, hosts)
	var top int32 // the highest unit of a host
	for i := range at {
		at[i] = place(i)
		top = max(top, at[i].Unit)
	}
	shift := uint8(bits.Len32(uint32(top)))
	world := shift > 0
	byThread := map[*engine.Sim]*local{}
	for i, p := range at {
		l := byThread[p.Sim]
		if l == nil {
			l = &local{sim: p.Sim, counters: new(Counters), tabs: make([]qpTable, 1<<shift), shift: shift, mask: 1<<shift - 1}
			byThread[p.Sim] = l
			c.locals = append(c.locals, l)
			world = world || len(c.locals) > 1
		}
		h := &Host{c: c, ID: i, sim: p.Sim, k: l.counters, loc: l, unit: p.Unit, tab: &l.tabs[p.Unit], idShift: shift, idMask: l.mask,
			pool: p.Net.HostPool(i), pairs: map[int32]*pairQPs{}, sport: 10000, wakeAt: engine.Never, rtoCheckAt: engine.Never}
		h.port = p.Net.Attach(i, h, h)
		h.egress = newEgressLoop(h, &c.Cfg)
		l.hosts = append(l.hosts, h)
		c.Hosts = append(c.Hosts, h)
	}
	if len(c.locals) == 1 {
		// One thread counts in c.Counters, as a plain cluster always has.
		for _, h := range c.Hosts {
			h.k = &c.Counters
		}
		c.locals[0].counters = &c.Counters
	}
	if world {
		for _, l := range c.locals {
			for u := range l.tabs {
				l.tabs[u].world = true
			}
		}
	}
}

// installChecks runs Check every checkEvery events of each thread. With
// more than one thread (of the World, whether or not they run hosts),
// each checks only its own hosts' QPs (checkQPs): the
// network-wide conservation laws of Check sum over every thread, which
// another thread's check cannot read while it runs.
func (c *Cluster) installChecks() {
	// The full check walks every queued packet, so it runs every
	// checkEvery events; the laws it checks, once broken, stay broken,
	// so a violation is still caught (within checkEvery events). The
	// cheap per-packet assertions (acknowledgement and in-order points
	// never move back) run at every event.
	const checkEvery = 64
	// The threads that run no host (a World's upper switches, its
	// generators) run the network too, so it is the World's thread count
	// that decides, not the hosts'.
	threads := len(c.locals)
	if w := c.Net.World(); w != nil {
		threads = w.Threads()
	}
	for _, l := range c.locals {
		check := c.Check
		if threads > 1 {
			check = func() error { return checkQPs(l.hosts) }
		}
		n := 0
		l.sim.SetCheck(func(now engine.Time) {
			if n++; n%checkEvery != 0 {
				return
			}
			if err := check(); err != nil {
				panic(fmt.Sprintf("at %v: %v", now, err))
			}
		})
	}
}

// Totals is the cluster's counters: c.Counters with one thread, the sum
// of every thread's with more. Read it between runs, not from a handler
// (another thread may be counting).
func (c *Cluster) Totals() Counters {
	if len(c.locals) == 1 {
		return *c.locals[0].counters
	}
	var t Counters
	for _, l := range c.locals {
		counters.Add(&t, l.counters)
	}
	return t
}

// QPTablePages counts the pages of the QP tables (qpTable: 1,024 ids,
// 16 KB each) over every thread: held, those in memory, and spanned, the
// pages up to each table's last one, freed or not. Held pages are those
// not yet wholly closed, or with a receive state still live; a long run
// of per-flow QPs holds a few per unit and thread while spanned grows
// with the QPs ever opened. Call it between runs.
func (c *Cluster) QPTablePages() (held, spanned int) {
	for _, l := range c.locals {
		for u := range l.tabs {
			t := &l.tabs[u]
			spanned += len(t.pages)
			for _, pg := range t.pages {
				if pg != nil {
					held++
				}
			}
		}
	}
	return held, spanned
}

// NewMessage returns a message with a fresh id, ready to Post: ids count
// the messages the cluster made, in the order made. On a World, call it
// from one thread only (or between runs): across threads that order is
// their interleaving, and the count is not guarded. A workload that makes
// messages on several threads names them itself (NewMessageWithID).
func (c *Cluster) NewMessage(src, dst int, size int64) *Message {
	c.nextMsg++
	return NewMessageWithID(c.nextMsg, src, dst, size)
}

// NewMessageWithID returns a message with the caller's id, ready to Post:
// a workload that gives ids in an order of its own (arrival order, say)
// rather than the cluster's. The NIC only carries the id (into outputs,
// a READ's response, panics); keeping ids unique is the caller's part.
func NewMessageWithID(id int64, src, dst int, size int64) *Message {
	return &Message{ID: id, Src: src, Dst: dst, Size: size, FirstClass: -1}
}

// Post queues m at its source NIC now: on a World, from a handler on the
// thread of m.Src's unit (Host.Sim), at that Sim's time.
func (c *Cluster) Post(m *Message) {
	if m.Src < 0 || m.Src >= len(c.Hosts) || m.Dst < 0 || m.Dst >= len(c.Hosts) || m.Src == m.Dst {
		panic(fmt.Sprintf("rnic: message %d from %d to %d: bad endpoints", m.ID, m.Src, m.Dst))
	}
	if (m.Verb == rocev2.Read || m.Verb.Atomic()) && len(c.locals) > 1 {
		// The responder reads the requester's WQE (its RETH or AtomicETH)
		// and marks it answered or executed (Host.pending): state of
		// another unit, which another thread may be changing.
		panic(fmt.Sprintf("rnic: message %d is a %v: READ and ATOMIC run on one thread only (%d here)", m.ID, m.Verb, len(c.locals)))
	}
	if m.Verb.Atomic() {
		if m.Ext == nil {
			m.Ext = &Ext{} // its result needs a place
		}
		if c.Cfg.ImplicitFence {
			ImplicitFence(m)
		}
	} else if m.Size <= 0 {
		panic(fmt.Sprintf("rnic: message %d has size %d", m.ID, m.Size))
	}
	c.Hosts[m.Src].post(m)
}
