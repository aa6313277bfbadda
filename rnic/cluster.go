package rnic

// The cluster: shared NIC settings, counters, construction and posting.

import (
	"fmt"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
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
type Cluster struct {
	Sim      *engine.Sim
	Net      *fabric.Network
	Cfg      Config
	Hosts    []*Host
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

	nextQP  int64
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
	// byID finds every open QP and its receive state by id (ids are
	// cluster-wide and dense), in pages that are freed once all their
	// QPs have closed (qpTable).
	byID qpTable
	// freeQPs are closed QPs whose memory the next per-flow QPs reuse
	// (Host.reusable), with their CC state when it is a cc.Resetter.
	freeQPs   []*QP
	reusedQPs int64
}

// NewCluster attaches a NIC to every host of net, each with the scheduler
// newSched returns.
func NewCluster(net *fabric.Network, cfg Config, newSched func(h *Host) Scheduler) (*Cluster, error) {
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
	for i := range net.HostPorts {
		h := &Host{c: c, ID: i, pairs: map[int32]*pairQPs{},
			sport: 10000, wakeAt: engine.Never, rtoCheckAt: engine.Never}
		h.port = net.Attach(i, h, h)
		h.egress = newEgressLoop(h, &cfg)
		c.Hosts = append(c.Hosts, h)
	}
	for _, h := range c.Hosts {
		h.sched = newSched(h)
		h.stamper, _ = h.sched.(Stamper)
		h.sched.Attach(h)
	}
	if invariants.Enabled {
		// The full check walks every queued packet, so it runs every
		// checkEvery events; the laws it checks, once broken, stay broken,
		// so a violation is still caught (within checkEvery events). The
		// cheap per-packet assertions (acknowledgement and in-order points
		// never move back) run at every event.
		const checkEvery = 64
		n := 0
		c.Sim.SetCheck(func(now engine.Time) {
			if n++; n%checkEvery != 0 {
				return
			}
			if err := c.Check(); err != nil {
				panic(fmt.Sprintf("at %v: %v", now, err))
			}
		})
	}
	return c, nil
}

// NewMessage returns a message with a fresh id, ready to Post.
func (c *Cluster) NewMessage(src, dst int, size int64) *Message {
	c.nextMsg++
	return &Message{ID: c.nextMsg, Src: src, Dst: dst, Size: size, FirstClass: -1}
}

// Post queues m at its source NIC now.
func (c *Cluster) Post(m *Message) {
	if m.Src < 0 || m.Src >= len(c.Hosts) || m.Dst < 0 || m.Dst >= len(c.Hosts) || m.Src == m.Dst {
		panic(fmt.Sprintf("rnic: message %d from %d to %d: bad endpoints", m.ID, m.Src, m.Dst))
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
