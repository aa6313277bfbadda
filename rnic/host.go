package rnic

import (
	"fmt"
	"math"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/invariants"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// CNPMode selects how congestion is signalled back (REFERENCE 4.5).
type CNPMode uint8

// CNP modes.
const (
	CNPOnAck  CNPMode = iota // the reference model's CNP flag on ACKs
	CNPPacket                // standalone CNP packets, at most one per interval per QP
	CNPNone                  // no notification: the CC does not react to ECN marks
)

// Mapping is how messages map onto QPs (REFERENCE 6.1).
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
	AckHighPrio  bool
	AckInterval  int64 // bytes between ACKs (1 = every packet)
	NackInterval engine.Time
	RTO          engine.Time // 0 = no retransmission timeout (the reference model)
	CNP          CNPMode
	CNPInterval  engine.Time
	Mapping      Mapping
	CC           cc.Spec
	CCEnv        cc.Env
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
	// RepaceOnlyHPCC moves a pending pacing time on a rate change only
	// when the algorithm is HPCC, always by the whole-ns difference and
	// even when that time has passed (rdma-hw.cc RdmaHw::ChangeRate, which
	// only HPCC calls; DCQCN, TIMELY and DCTCP assign m_rate directly).
	// Off, every algorithm's rate change moves a pending pacing time.
	RepaceOnlyHPCC bool
	// NS3Egress runs the NIC's transmit loop as ns-3's
	// QbbNetDevice::DequeueAndTransmit does: the scheduler is asked on
	// every transmit opportunity, also when no QP is ready, and after
	// every ACK, also one that closed its QP (RdmaHw::ReceiveAck always
	// calls TriggerTransmit), so ns-3's RdmaEgressQueue::GetNextQindex can
	// drop finished QPs from its list when it does (baselines.NS3Fair);
	// when nothing can be sent, one wake-up (m_nextSend) is set at the
	// earliest pacing time of the QPs with unsent bytes, paused or
	// window-bound ones included, only if none is pending and only if that
	// time is in the future, and only HPCC's rate change moves it earlier
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
	ControlPackets  int64
	ControlBytes    int64
	QPsOpened       int64
	QPsClosed       int64
	DuplicateData   int64
	OutOfOrderData  int64
	DroppedStaleAck int64
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

	nextQP  int64
	nextMsg int64
	recvCfg rocev2.ReceiverConfig
	// byID and rxByID index every QP ever opened by its id (ids are
	// cluster-wide and dense): the open sender QP, and its receive state
	// at the destination. Two pointers per QP are cheaper than a map
	// lookup per packet; closed QPs' slots are nil.
	byID   []*QP
	rxByID []*rxQP
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
		recvCfg: rocev2.ReceiverConfig{AckInterval: cfg.AckInterval, NackInterval: cfg.NackInterval}}
	for i := range net.HostPorts {
		h := &Host{c: c, ID: i, qps: map[int64]*QP{}, pairs: map[int32]*pairQPs{},
			sport: 10000, wakeAt: engine.Never, rtoCheckAt: engine.Never}
		h.port = net.Attach(i, h, h)
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
	if m.Size <= 0 {
		panic(fmt.Sprintf("rnic: message %d has size %d", m.ID, m.Size))
	}
	c.Hosts[m.Src].post(m)
}

// Host is one RDMA NIC with one port.
type Host struct {
	c       *Cluster
	ID      int
	port    *fabric.Port
	sched   Scheduler
	stamper Stamper // sched, if it stamps packets

	ctrl  fabric.FIFO
	qps   map[int64]*QP
	pairs map[int32]*pairQPs
	paced pacedHeap
	ready int
	sport uint16
	// pairPort[dst] is the next source port towards dst (Compat.PairPorts).
	pairPort map[int32]uint16

	wakeAt     engine.Time
	staleWakes []engine.Time // Compat.NS3Egress: times of wake-ups ns3WakeEarlier cancelled, still queued
	rtoCheckAt engine.Time   // pending RTO check event, Never if none
	fb         cc.Feedback
	expired    []*QP
}

type pairQPs struct {
	qps  []*QP
	next int
}

type rxQP struct {
	r       rocev2.Receiver
	lastCNP engine.Time
	cnpSent bool
}

// Wake tells the NIC that its scheduler's state changed so that Pick may
// now return a QP (a grant arrived, software handed bytes over): the port
// asks for a packet if it is idle. A scheduler calls it rather than
// reaching into the fabric.
func (h *Host) Wake(now engine.Time) { h.port.Kick(now) }

// Port is the NIC's port.
func (h *Host) Port() *fabric.Port { return h.port }

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

func (h *Host) post(m *Message) {
	c := h.c
	now := c.Sim.Now()
	m.Posted = now
	m.FirstClass = -1
	c.Counters.MessagesPosted++
	qp := h.qpFor(m)
	m.QP, m.QPID = qp, qp.ID
	m.start = qp.tx.End
	qp.tx.Post(m.Size)
	m.end = qp.tx.End
	qp.msgs = append(qp.msgs, m)
	holChanged := qp.hol == len(qp.msgs)-1
	h.sched.Posted(qp, m)
	if holChanged {
		h.sched.HOLChanged(qp)
	}
	h.updateReady(qp)
	h.port.Kick(now)
}

func (h *Host) qpFor(m *Message) *QP {
	if h.c.Cfg.Mapping.PerFlow {
		return h.openQP(int32(m.Dst), true)
	}
	pq := h.pairs[int32(m.Dst)]
	if pq == nil {
		pq = &pairQPs{}
		for i := 0; i < h.c.Cfg.Mapping.Pool; i++ {
			pq.qps = append(pq.qps, h.openQP(int32(m.Dst), false))
		}
		h.pairs[int32(m.Dst)] = pq
	}
	qp := pq.qps[pq.next]
	pq.next = (pq.next + 1) % len(pq.qps)
	return qp
}

func (h *Host) openQP(dst int32, perFlow bool) *QP {
	c := h.c
	c.nextQP++
	if c.nextQP > math.MaxInt32 {
		// Packets carry the QP id in 32 bits (fabric.Packet.QP).
		panic("rnic: more than 2^31-1 QPs opened in one run")
	}
	c.Counters.QPsOpened++
	sport := h.nextPort(dst)
	qp := &QP{ID: c.nextQP, host: h, Src: int32(h.ID), Dst: dst, SPort: sport, perFlow: perFlow,
		pacedIdx: -1, ccAt: engine.Never, rtoAt: engine.Never}
	qp.cc = c.Cfg.CC.New(c.Cfg.CCEnv)
	qp.rate = qp.cc.Rate()
	qp.window = qp.cc.Window()
	h.qps[qp.ID] = qp
	for int64(len(c.byID)) <= qp.ID {
		c.byID = append(c.byID, nil)
		c.rxByID = append(c.rxByID, nil)
	}
	c.byID[qp.ID] = qp
	h.sched.QPOpened(qp)
	qp.armCC(c.Sim.Now())
	return qp
}

// nextPort is the source port of a new QP towards dst.
func (h *Host) nextPort(dst int32) uint16 {
	if h.c.Cfg.Compat.PairPorts {
		if h.pairPort == nil {
			h.pairPort = map[int32]uint16{}
		}
		p, ok := h.pairPort[dst]
		if !ok || p < 10000 {
			p = 10000
		}
		h.pairPort[dst] = p + 1
		return p
	}
	h.sport++
	if h.sport < 10000 {
		h.sport = 10000
	}
	return h.sport
}

func (h *Host) closeQP(qp *QP) {
	if qp.ready {
		qp.ready = false
		h.ready--
		h.sched.ReadyChanged(qp)
	}
	if qp.pacedIdx >= 0 {
		h.paced.remove(qp)
	}
	qp.closed = true
	delete(h.qps, qp.ID)
	h.c.byID[qp.ID] = nil
	h.c.Counters.QPsClosed++
	h.sched.QPClosed(qp)
}

// updateReady recomputes qp's readiness: data to send, window open, and a
// pacing time no later than the moment the port can next transmit.
func (h *Host) updateReady(qp *QP) {
	h.updateReadyAt(qp, max(h.port.FreeAt(), h.c.Sim.Now()))
}

func (h *Host) updateReadyAt(qp *QP, freeAt engine.Time) {
	want := !qp.closed && qp.tx.Nxt < qp.tx.End && (qp.window == 0 || qp.tx.InFlight() < qp.window)
	if want && qp.nextAvail > freeAt {
		if qp.pacedIdx < 0 {
			h.paced.push(qp)
		} else {
			h.paced.fix(qp)
		}
		want = false
	} else if qp.pacedIdx >= 0 {
		h.paced.remove(qp)
	}
	if want != qp.ready {
		qp.ready = want
		if want {
			h.ready++
		} else {
			h.ready--
		}
		h.sched.ReadyChanged(qp)
	}
}

// releasePaced makes QPs whose pacing time has come ready again.
func (h *Host) releasePaced(now engine.Time) {
	for h.paced.len() > 0 && h.paced.min().nextAvail <= now {
		qp := h.paced.pop()
		h.updateReady(qp)
	}
}

// Next implements fabric.Source: control packets first, then the
// scheduler's choice. The control queue is one FIFO (as the reference's
// ACK queue): while its head's class is paused it waits, unless the head
// is an ACK or NACK and the NIC gives ACKs high priority.
func (h *Host) Next(now engine.Time) *fabric.Packet {
	paused := h.port.PausedMask()
	if p := h.ctrl.Head(); p != nil && (paused&(1<<p.Class) == 0 || h.pauseExempt(p)) {
		return h.ctrl.Pop()
	}
	h.releasePaced(now)
	if h.ready == 0 && !h.c.Cfg.Compat.NS3Egress {
		h.armWake(now)
		return nil
	}
	qp, class := h.sched.Pick(now, paused)
	if qp == nil {
		h.armWake(now)
		return nil
	}
	if !qp.ready || class == 0 || class >= fabric.NumClasses || paused&(1<<class) != 0 {
		panic(fmt.Sprintf("rnic: host %d: scheduler picked qp %d (ready %v) in class %d (paused %08b)",
			h.ID, qp.ID, qp.ready, class, paused))
	}
	return h.sendData(now, qp, class)
}

// pauseExempt reports whether control packet p may leave although its
// class is paused: an ACK or NACK of a NIC with AckHighPrio.
func (h *Host) pauseExempt(p *fabric.Packet) bool {
	return h.c.Cfg.AckHighPrio && (p.Kind == fabric.Ack || p.Kind == fabric.Nack)
}

// HasMore implements fabric.Source.
func (h *Host) HasMore() bool {
	if h.ctrl.Len() > 0 || h.ready > 0 || h.c.Cfg.Compat.NS3Egress && len(h.qps) > 0 {
		return true
	}
	if h.paced.len() > 0 {
		if t := h.paced.min().nextAvail; t <= h.port.FreeAt() {
			return true
		}
		h.armWake(h.c.Sim.Now())
	}
	return false
}

// armWake schedules a wake-up at the earliest pacing time.
func (h *Host) armWake(now engine.Time) {
	if h.c.Cfg.Compat.NS3Egress {
		h.ns3Wake(now)
		return
	}
	if h.paced.len() == 0 {
		return
	}
	t := max(h.paced.min().nextAvail, now)
	if t < h.wakeAt {
		h.wakeAt = t
		h.c.Sim.At(t, h, evWake)
	}
}

// ns3Wake is QbbNetDevice::DequeueAndTransmit's wake-up when nothing can
// be sent (Compat.NS3Egress): the earliest pacing time of the QPs with
// unsent bytes, if it is in the future and no wake-up is pending.
func (h *Host) ns3Wake(now engine.Time) {
	if h.wakeAt != engine.Never {
		return
	}
	t := engine.Never
	for _, qp := range h.qps {
		if qp.tx.Unsent() > 0 {
			t = min(t, qp.nextAvail)
		}
	}
	if t > now && t != engine.Never {
		h.wakeAt = t
		h.c.Sim.At(t, h, evWake)
	}
}

// ns3WakeEarlier is QbbNetDevice::UpdateNextAvail: a pending wake-up
// later than t moves to t (or now). ns-3 cancels the old event; here it
// stays queued and is remembered as stale, so that Fire skips it even
// when a later wake-up falls on the same ns (that one was scheduled
// later, so it runs later among that ns's events, as in ns-3).
func (h *Host) ns3WakeEarlier(now, t engine.Time) {
	if h.wakeAt != engine.Never && t < h.wakeAt {
		h.staleWakes = append(h.staleWakes, h.wakeAt)
		h.wakeAt = max(t, now)
		h.c.Sim.At(h.wakeAt, h, evWake)
	}
}

const (
	evWake uint8 = iota
	evRTOCheck
)

// Fire implements engine.Handler: pacing wake-ups and RTO checks.
func (h *Host) Fire(now engine.Time, kind uint8) {
	if kind == evRTOCheck {
		h.checkRTO(now)
		return
	}
	if h.c.Cfg.Compat.NS3Egress {
		for i, t := range h.staleWakes {
			if t == now { // a wake-up ns-3 cancelled (ns3WakeEarlier)
				h.staleWakes = append(h.staleWakes[:i], h.staleWakes[i+1:]...)
				return
			}
		}
		if now != h.wakeAt {
			panic(fmt.Sprintf("rnic: host %d: wake-up at %v, neither pending (%v) nor cancelled", h.ID, now, h.wakeAt))
		}
	}
	if now == h.wakeAt {
		h.wakeAt = engine.Never
	}
	h.releasePaced(now)
	h.port.Kick(now)
	if !h.c.Cfg.Compat.NS3Egress {
		h.armWake(now)
	}
	// ns-3's m_nextSend runs DequeueAndTransmit, which sets the next
	// wake-up only when it finds nothing to send (Next does that here);
	// after a transmission the next TransmitComplete looks again.
}

// checkRTO times out every QP whose deadline has passed, in QP id order,
// and schedules the next check at the earliest remaining deadline.
func (h *Host) checkRTO(now engine.Time) {
	if now != h.rtoCheckAt {
		return // superseded by an earlier check
	}
	h.rtoCheckAt = engine.Never
	next := engine.Never
	h.expired = h.expired[:0]
	for _, qp := range h.qps {
		if qp.rtoAt == engine.Never {
			continue
		}
		if qp.tx.InFlight() == 0 {
			qp.rtoAt = engine.Never
			continue
		}
		if qp.rtoAt <= now {
			h.expired = append(h.expired, qp)
		} else {
			next = min(next, qp.rtoAt)
		}
	}
	sortQPs(h.expired)
	for _, qp := range h.expired {
		qp.timeout(now)
		next = min(next, qp.rtoAt)
	}
	if next != engine.Never {
		h.rtoCheckAt = next
		h.c.Sim.At(next, h, evRTOCheck)
	}
	if len(h.expired) > 0 {
		clear(h.expired)
		h.port.Kick(now)
	}
}

func (h *Host) sendData(now engine.Time, qp *QP, class uint8) *fabric.Packet {
	c := h.c
	cfg := &c.Cfg
	m := qp.msgs[qp.hol]
	seq := qp.tx.Nxt
	n := min(cfg.MTU, m.end-seq)
	p := c.Net.Pool.Get()
	p.Kind = fabric.Data
	p.Class = class
	p.ECT = true
	p.Src, p.Dst = qp.Src, qp.Dst
	p.SPort, p.DPort = qp.SPort, 100
	p.Payload = uint16(n)
	p.Size = uint16(cfg.Headers.DataWire(n, cfg.CC.HeaderBytes))
	p.QP = int32(qp.ID)
	p.Seq = seq
	p.Last = seq+n == m.end
	p.SentAt = now
	retx := qp.tx.Sent(n)
	if retx > 0 {
		m.Retransmitted += retx
		c.Counters.Retransmitted += retx
	}
	if m.FirstClass < 0 {
		m.FirstClass = int8(class)
	}
	c.Counters.DataPackets++
	c.Counters.PayloadSent += n
	if h.stamper != nil {
		h.stamper.Stamp(qp, p)
	}
	qp.lastClass = class
	qp.lastSize = int64(p.Size)
	switch {
	case cfg.Compat.WholeNsPacing:
		qp.nextAvail = now + qp.rate.TxTimeWholeNs(int64(p.Size))
	case qp.rate < cfg.CCEnv.LineRate:
		qp.nextAvail = now + qp.rate.TxTime(int64(p.Size))
	default:
		qp.nextAvail = now
	}
	if p.Last {
		if c.OnSent != nil && !m.lastSent {
			m.lastSent = true
			c.OnSent(m, now+h.port.Rate.TxTime(int64(p.Size)))
		}
		qp.hol++
		h.sched.HOLChanged(qp)
	}
	h.sched.Sent(qp, p)
	if c.Observer != nil {
		c.Observer.Sent(now, qp, p)
	}
	if qp.rtoAt == engine.Never && cfg.RTO > 0 {
		qp.armRTO(now + cfg.RTO)
	}
	// The port sets its busy time after Next returns; readiness compares
	// pacing against it, so account for this packet's serialization here.
	h.updateReadyAt(qp, now+h.port.TxTime(int64(p.Size)))
	return p
}

// Receive implements fabric.Node.
func (h *Host) Receive(now engine.Time, p *fabric.Packet, in *fabric.Port) {
	c := h.c
	switch p.Kind {
	case fabric.Data:
		h.receiveData(now, p)
	case fabric.Ack, fabric.Nack:
		h.receiveAck(now, p)
	case fabric.CNP:
		if qp := h.qp(p.QP); qp != nil {
			c.Counters.CNPs++
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
	c.Net.Pool.Put(p)
}

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

// sendControl queues a control packet ahead of all data.
func (h *Host) sendControl(now engine.Time, p *fabric.Packet) {
	h.ctrl.Push(p)
	h.port.Kick(now)
}

// NewControl returns a pooled control packet of the given kind from this
// host to dst, class and size set, for a scheduler to fill (Arg, QP, Seq)
// and hand to SendControl.
func (h *Host) NewControl(dst int, kind fabric.Kind, class uint8, size uint16) *fabric.Packet {
	p := h.c.Net.Pool.Get()
	p.Kind = kind
	p.Src, p.Dst = int32(h.ID), int32(dst)
	p.SPort, p.DPort = 4791, 4791
	p.Class = class
	p.Size = size
	return p
}

// SendControl queues a scheduler's control packet (grant) ahead of data.
// Grants cross the fabric like any packet, so they take an RTT and feel
// congestion.
func (h *Host) SendControl(p *fabric.Packet) {
	h.c.Counters.ControlPackets++
	h.c.Counters.ControlBytes += int64(p.Size)
	h.sendControl(h.c.Sim.Now(), p)
}

// qp is this host's open QP with the given id, or nil.
func (h *Host) qp(id int32) *QP {
	if qp := h.c.byID[id]; qp != nil && qp.host == h {
		return qp
	}
	return nil
}

func (h *Host) receiveAck(now engine.Time, p *fabric.Packet) {
	c := h.c
	qp := h.qp(p.QP)
	if qp == nil {
		c.Counters.DroppedStaleAck++
		return
	}
	nack := p.Kind == fabric.Nack
	una := qp.tx.Una
	var adv int64
	if nack {
		c.Counters.Nacks++
		adv = qp.tx.OnNack(p.Seq)
		qp.rewound()
	} else {
		c.Counters.Acks++
		adv = qp.tx.OnAck(p.Seq)
	}
	if invariants.Enabled && qp.tx.Una < una {
		panic(fmt.Sprintf("rnic: host %d qp %d: acknowledged point moved back from %d to %d", h.ID, qp.ID, una, qp.tx.Una))
	}
	if p.CNP {
		c.Counters.CNPs++
	}
	// The feedback lives in the Host so that passing it through the
	// interface does not allocate.
	fb := &h.fb
	*fb = cc.Feedback{Now: now, AckSeq: p.Seq, SndNxt: qp.tx.Nxt, NACK: nack, ECE: p.CNP}
	if c.Cfg.CC.NeedsTimestamp {
		fb.RTT = now - p.SentAt
	}
	if c.Cfg.CC.NeedsINT {
		fb.INT = p.Hops()
	}
	if c.Cfg.CCEnv.NS3Arith { // the peer's transmission began a link delay and a serialization ago
		fb.Scheduled = now - h.port.Delay - h.port.TxTime(int64(p.Size))
	}
	qp.cc.OnAck(fb)
	fb.INT = nil
	if adv > 0 && c.Cfg.RTO > 0 {
		if qp.tx.InFlight() > 0 {
			qp.armRTO(now + c.Cfg.RTO)
		} else {
			qp.rtoAt = engine.Never
		}
	}
	// Complete every message whose last byte is now acknowledged.
	done := 0
	for done < len(qp.msgs) && qp.msgs[done].end <= qp.tx.Una {
		done++
	}
	if done > 0 {
		finished := qp.msgs[:done]
		qp.msgs = qp.msgs[done:]
		qp.hol -= done
		if qp.hol < 0 {
			qp.hol = 0
		}
		for _, m := range finished {
			m.Done = true
			m.Finished = now
			c.Counters.MessagesDone++
			if c.OnComplete != nil {
				c.OnComplete(m)
			}
			m.QP = nil
		}
		clear(finished)
	}
	h.sched.Acked(qp)
	if c.Observer != nil {
		c.Observer.Acked(now, qp, p)
	}
	if qp.perFlow && len(qp.msgs) == 0 {
		if cp := &c.Cfg.Compat; cp.NS3Egress && cp.RepaceOnlyHPCC && c.Cfg.CC.Name == "hpcc" {
			// ns-3's ReceiveAck runs HandleAckHp after QpComplete, so the
			// last ACK's ChangeRate still pulls the NIC's pending wake-up
			// to the finished QP's (past) pacing time (rdma-hw.cc
			// ReceiveAck, ChangeRate; QbbNetDevice::UpdateNextAvail).
			r := qp.cc.Rate()
			h.ns3WakeEarlier(now, qp.nextAvail+r.TxTimeWholeNs(qp.lastSize)-qp.rate.TxTimeWholeNs(qp.lastSize))
		}
		h.closeQP(qp)
		if c.Cfg.Compat.NS3Egress {
			h.port.Kick(now)
		}
		return
	}
	qp.applyCC(now)
	h.port.Kick(now)
}
