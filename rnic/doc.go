// Package rnic models the host RDMA NIC: queue pairs carrying messages,
// the RoCEv2 transport per QP, congestion control per QP, and egress
// arbitration through a pluggable Scheduler.
//
// # Messages and QPs
//
// A workload posts Messages (src, dst, bytes): work requests (WQEs) whose
// Verb is SEND (the zero value, what every built-in workload posts),
// WRITE, READ or ATOMIC (FETCH_ADD, CMP_SWAP on an 8-byte word).
// Config.Mapping maps them onto QPs: per-flow (one QP per message, torn
// down when it completes: the reference model) or a pool of K QPs per
// ordered host pair (per-pair = 1), chosen round robin, where messages
// queue FIFO on their QP and later ones wait behind the head-of-line
// message. A QP's messages share one sequence space (rocev2): a SEND's or
// WRITE's bytes, one unit for a READ request or an ATOMIC, which carry no
// payload (64 B and 76 B with ReferenceHeaders: RETH, AtomicETH); a data
// packet never spans two messages. Every packet carries its opcode
// (fabric.Packet.Op: SEND/WRITE/READ response first, middle, last, only;
// READ request; FETCH_ADD, CMP_SWAP; ATOMIC ACK, ACK, NAK), and every
// message records its first PSN (Message.PSN; a READ consumes as many
// PSNs as its response has packets, as in InfiniBand). PSNs are
// bookkeeping: the 64-byte packet has one spare byte, which the opcode
// takes, so the wire carries the sequence offset (Seq) from which both
// ends derive them.
//
// Completion is per opcode: a SEND or WRITE when the ACK covering its
// last byte reaches the requester (the reference model's FCT end), a READ
// when its last response packet arrives, an ATOMIC when its ATOMIC ACK
// (with the 8 B original value, Message.Ext.Result) arrives; WQEs of one QP
// complete in posting order, so a WQE whose condition holds early waits
// for the ones before it. Message.Ext.OnDone, then Cluster.OnComplete, hear of
// it. Cluster.OnSent, when set, hears of each message once more, earlier:
// when its last packet is first handed to the port, with the time that
// packet's serialisation ends (SimAI's send_finish; training workloads
// release a flow's sender then).
//
// # Requester and responder
//
// The NIC's files have one job each: the QP table (qptable.go: mapping,
// opening, closing), the requester (requester.go: posting, ACK/NACK and
// READ-response completion, RTO), the responder (responder.go: receiving
// data, ACK/NACK/CNP, READ responses and ATOMIC execution), and egress
// (egress.go: readiness, pacing, the fabric.Source protocol, data and
// control packets out).
//
// The responder sends data: a READ request accepted in order opens (or
// finds) the responder context of the requester's QP at the target (QP
// .Responder, QP.Peer), a QP of that host with its own CC state, and
// queues the response there as a READ-response message. The context is
// ranked by the host's scheduler (Posted, HOLChanged, ReadyChanged, Pick,
// Sent like any QP) and paced by its CC; the requester acknowledges the
// response data as it acknowledges a SEND, so the responder's CC gets ECN
// echoes, RTT samples and INT (InfiniBand sends no ACK of a READ response;
// a READ's requester re-reads from the first missing PSN instead, and
// DCQCN's CNPs come from it as the notification point: the ACKs are
// dcsim's way to give every algorithm its feedback, 60 B per response
// packet at AckInterval 1). The responder sends no ACK for the READ
// request itself: the response acknowledges it, as in InfiniBand. The
// context closes when its responses are acknowledged. Response packets
// use the requester QP's source port, so they hash as its ACKs do. ATOMICs
// execute on the target's memory words (Host.Atomic, Word, SetWord) or
// through Cluster.OnAtomic, and the ATOMIC ACK (60 B) carries the original
// value. Control packets (ACK, NACK, CNP, ATOMIC ACK) keep the control
// FIFO and its priority.
//
// # Receiver: in order or selective repeat
//
// Each QP holds one rocev2.Sender and its receive state one
// rocev2.Receiver, both chosen once, when the cluster is built: go-back-N
// (rocev2.GBNSender, GBNReceiver) or, with Config.Selective (scenario
// nic.receiver: selective; default inorder), IRN-style selective repeat
// (Mittal et al., SIGCOMM 2018, section 3.1; rocev2.SelectiveSender and
// SelectiveReceiver). The NIC reads the sender's rocev2.Stream (Una, Nxt,
// End, HighSent) for readiness, the HOL, the scheduler's view and Check,
// re-finds the HOL after every sender call, and has one receive path on
// the receiver's rocev2.Answer (a duplicate, or kept: in order or held
// above the cumulative point), where what waits for the in-order point (a READ response's end,
// an ATOMIC kept out of order) is acted on when the point passes it, at
// once under go-back-N. Where the two transports differ in the rules of
// InfiniBand rather than in their state, the difference is the
// implementation's (a READ response acknowledges its request under
// go-back-N, Sender.OnResponse; an in-order READ request is not ACKed by
// the go-back-N receiver; an ATOMIC out of order is discarded by the
// selective receiver unless ReceiverConfig.KeepAtomics).
//
// Under selective repeat the responder keeps out-of-order data
// and answers each such packet with a NACK carrying the cumulative point
// (Seq) and the packet's own range (Arg, rocev2.EncodeSack); the requester
// resends only what lies below a selectively acknowledged byte and was not
// acknowledged, once per recovery, then goes on with new data; a timeout
// resends every unacknowledged byte not selectively acknowledged. The
// send point (Stream.Nxt) is the next hole or new data; in flight is
// everything between the cumulative point and the highest byte sent. Packets of one QP may then take different paths
// (per-packet adaptive routing, fabric.Adaptive with FlowletGap 0, is
// accepted only with this receiver). Choices: a packet held out of order
// is placed when it arrives (Cluster.OnPlace sees it then: eager
// placement), and a READ request is answered when it arrives; the
// responder ACKs a READ request (a later READ's implicit acknowledgement
// of everything before it would be wrong with holes); an ATOMIC that
// arrives out of order is, by Config.Atomics (docs/model.md §9.3), discarded
// and NACKed without a range, so it executes once, in order (the requester
// resends it in recovery: AtomicResend, the default); or kept like data
// (NACKed with its range) and executed on arrival (AtomicEager, scenario
// ooo-eager: a tail published by FETCH_ADD can then move before an
// earlier WRITE's data is placed) or when the in-order point passes it
// (AtomicDeferred, ooo-ordered); either way its ATOMIC ACK leaves when the
// in-order point passes it, so the requester completes it in order. A READ
// completes when the requester's in-order point passes its response's end.
// Without reordering or loss the two receivers give identical runs
// (wiring TestSelectiveReceiverWithoutReorderingIsInOrder).
//
// Config.DupThresh > 0 (scenario nic.sack: {dup_threshold: 3}) makes the
// selective receiver reorder-tolerant (rocev2 doc.go argues the rule): an
// out-of-order packet is answered by an ACK carrying its range (a SACK,
// Arg as on IRN's NACK; Counters.Sacks, run counter sack_acks) instead of
// a NACK, and the requester resends a hole only once DupThresh packets
// beyond it are SACKed, or at the timeout. A packet in flight at 100 Gbps
// that 2 later packets overtake costs nothing but its slot
// (TestSackReorder: a 10-packet message completes one serialisation after
// its no-reorder FCT, 0 B resent, no NACK; IRN resends the late packet;
// in general packet v of 10 delayed by X costs max(T, X - (9 - v) T));
// a dropped packet is resent when the third SACK beyond it arrives, two
// serialisations later than IRN resends it (TestSackLoss); a dropped last
// packet waits for the timeout in both modes. Config.ReorderWindow
// (nic.sack.reorder_window) also holds the verdict on the lowest hole
// until it has been open that long, judged at ACK arrivals and by a timer
// at the window's end (rocev2 VerdictAt; TestSackReorderWindow: 3
// overtakers within 1 us cost nothing, a drop is resent when the window
// ends even after the last SACK).
//
// A packet that arrives for a per-flow QP whose message was received
// whole (a resend that crossed the ACKs, or a late original) finds the
// receive state marked finished and is counted as a duplicate: it is not
// placed or counted as payload again, and it is re-ACKed if it ends the
// message, as the receivers treat duplicates (TestLateDuplicateOfFinishedQP).
//
// # Hooks for one-sided verbs
//
// What an ordering checker and responder variants (issue 17) build on:
// the opcode on the WQE (Message.Verb) and on every packet (Packet.Op);
// the per-WQE completion callback (Message.Ext.OnDone); a fence on the
// requester (Message.Ext.Wait: the WQE's first packet is held while the
// predicate on the QP, typically on the WQEs before it, QP.Messages(), is
// false; it is asked whenever the QP's readiness is recomputed, and
// Cluster.Recheck asks again after outside state changed); and responder
// hooks at data placement (Cluster.OnPlace, for every payload accepted at
// its destination) and at atomic execution (Cluster.OnAtomic).
//
// Fences are Wait predicates (onesided.go): SendFence is IBV_SEND_FENCE (a
// WQE waits for every earlier READ and ATOMIC on its QP to complete, not
// for earlier WRITEs; ibv_post_send(3)), and Config.ImplicitFence
// (scenario nic.fence: implicit) holds every ATOMIC until the WRITEs
// before it are acknowledged, as multi-path NICs' stacks do to keep
// write-then-atomic correct (deepseek-ai/DeepEP PR #437). Measured
// (TestImplicitFence, 2-host star, 100 Gbps, 1 us links): a FETCH_ADD
// behind a 1000 B WRITE completes 4.016 us later with the fence, one RTT
// (4 us) plus the serialisations of two 60 B ACKs and a 76 B ATOMIC.
// Cluster.OnRead hears when a READ's target reads its memory (the request
// accepted), and Cluster.WQE names the WQE and offset of a placed SEND or
// WRITE packet: what workloads/halo's ring buffer needs.
//
// # Egress
//
// When the port may transmit, the NIC sends the head of its control queue
// (ACK, NACK, CNP, grants) unless that packet's class is paused, else it
// asks the Scheduler to Pick a ready QP and a data class.
//
// ACK and NACK travel in the class of the data they acknowledge, as in the
// reference model (docs/model.md §3.1, §4.4): switches queue them FIFO with
// that data, admit them against the buffer and stop them with a PAUSE of
// that class. Config.AckHighPrio is the reference's ACK_HIGH_PRIO, which
// third.cc applies to hosts only (RdmaEgressQueue::ack_q_idx = 0; the
// switches' SwitchNode::AckHighPrio attribute is never set): the NIC then
// sends ACK/NACK even while their class is paused at its port, which, as
// in ns-3 (qbb-net-device.cc RdmaEgressQueue::GetNextQindex), can overflow
// the switch's headroom with ACKs from a paused receiver. Config.AckControl
// (a dcsim extension) instead puts them in class 0 end to end. A QP is ready when
// it has unsent bytes, its CC window is open (in flight < window) and its
// pacing time has come: after a packet of L bytes at rate R the QP waits
// L*8/R (a QP at line rate never waits longer than the port itself). A rate
// change moves the pending pacing time by the difference of the two
// serialization times (docs/model.md §5.1). When nothing is ready the NIC
// wakes at the earliest pacing time. Hosts obey PFC per class and never
// send PAUSE.
//
// The Scheduler is notified of every event that can change its choice (QP
// opened/closed, a requester's or a responder context's, message posted, head-of-line change, readiness, packet
// sent, ACK, grant or control packet received, data received as a
// receiver), reads per QP the head-of-line remaining bytes, the backlog
// (messages queued behind the head), bytes in flight and readiness, and can
// send control packets (NewControl, SendControl) that cross the fabric like
// any packet. It never reaches the port: Host.Wake asks the NIC for a
// packet when the scheduler's own state changed (a grant, a software
// hand-over), and a scheduler that writes into its data packets (STORM's
// announcements and header bytes) implements Stamper, called before the
// packet's pacing and serialisation are computed, so its bytes are paced
// like any header. Sent sees the packet final.
//
// # Reference compatibility
//
// Config.Compat (scenario compat: hpcc-ns3; wiring's ns3Rules picks the
// fields) switches on behaviours of the HPCC ns-3 model
// (alibaba-edu/High-Precision-Congestion-Control,
// simulation/src/point-to-point/model) where dcsim's defaults differ; each
// is what that code does, for comparing with numbers published from it.
// NewCluster turns them into policies once (policy.go), so the packet path
// asks no flag: the source-port allocation (portPerHost, portPerPair), the
// pacing clock (its gap: gapExact, gapWholeNs; its move on a rate change:
// repaceExact, repaceWholeNs, repaceNever) and each host's egress loop
// (dcsimEgress, ns3Egress: when Next asks the scheduler, what HasMore
// answers, the pacing wake-up, what a CC timer, a CC update and a flow's
// last ACK do to it):
//
//   - PairPorts: source ports 10000, 10001, ... per (src, dst) pair in the
//     order flows start (scratch/third.cc portNumder), so ECMP hashes the
//     reference's 5-tuples. Default: one counter per source host.
//   - WholeNsPacing: the gap after a packet is Seconds(rate.CalculateTxTime
//     (size)) truncated to whole ns (rdma-hw.cc RdmaHw::UpdateNextAvail;
//     engine.Rate.TxTimeWholeNs), at line rate too. Default: exact ps.
//   - RepaceOnChangeRate: only HPCC (cc.Spec.ChangeRate) moves the pending pacing time on a rate
//     change, by the difference of the whole-ns gaps and even when that
//     time has passed (RdmaHw::ChangeRate, called from UpdateRateHp only;
//     DCQCN's mlx functions, TIMELY and DCTCP assign m_rate directly, so
//     their next packet keeps the old gap). Default: every algorithm,
//     only a future pacing time.
//   - NS3Egress: the transmit loop of QbbNetDevice::DequeueAndTransmit.
//     The scheduler is asked on every transmit opportunity and after every
//     ACK (RdmaHw::ReceiveAck ends with TriggerTransmit), so ns-3's QP list
//     scan (sched/baselines NS3Fair) sees the same moments; with nothing
//     to send, one wake-up (m_nextSend) is set at the earliest m_nextAvail
//     among QPs with unsent bytes, paused and window-bound ones included,
//     but only if none is pending and only if that time is in the future;
//     HPCC's ChangeRate moves a pending wake-up earlier
//     (QbbNetDevice::UpdateNextAvail), also on a flow's last ACK (ReceiveAck
//     runs HandleAckHp after QpComplete), and the cancelled one never runs,
//     even on the same ns as the new one; a wake-up that transmits sets no
//     new one (the next TransmitComplete looks again); congestion-control timer events do
//     not start a transmission (the mlx timers in rdma-hw.cc only change
//     rates). So a paced QP can wait past its pacing time for the next
//     trigger, as in ns-3. Default: the NIC wakes exactly at the earliest
//     pacing time of a QP that could send.
//
// The fabric's half is fabric.NS3ECMP, fabric.NS3Rand and
// fabric.Config.WholeNs. With all of it, the replay of the reference run
// (scenario/ns3ref_test.go) gives every flow ns-3's FCT to the ns, for
// DCQCN and HPCC; the differences were found by comparing packet traces
// with an instrumented build of the reference (scenario/ns3trace_test.go). What the
// profile does not change, because dcsim already does what ns-3 does:
// ACK_HIGH_PRIO at NICs only, an ACK per packet with the CNP flag of that
// packet, go-back-N on NACK, no RTO when rto is 0, DCQCN's timers
// (cc/dcqcn). What differs and stays: dcsim re-ACKs a duplicate last
// packet (ns-3 is silent; it matters only after go-back-N, which needs a
// data drop, which a lossless run never has).
//
// # Feedback and timers
//
// Each ACK or NACK becomes a cc.Feedback (ECN echo, RTT sample when the
// algorithm asked for timestamps, INT hops when it asked for INT); the
// algorithm's rate, window and next timer are applied after every call.
// Standalone CNPs (cnp = packet) are rate limited per receive QP. The
// retransmission timeout (default 5 ms; the reference model has none, so
// in lossless runs an RTO is a bug signal and is counted) rewinds to the
// first unacknowledged byte; one check event per host serves all its QPs.
//
// # Conservation
//
// Cluster.Check asserts, at any instant, that every payload byte sent has
// arrived at a NIC, been dropped and counted, or is queued or on a wire;
// that every live packet is somewhere; and the fabric's own invariants.
// With -tags invariants it runs every 64 events (a broken conservation law
// stays broken, so it is still caught), and checks that acknowledgement
// and in-order points never move back run at every event. CheckDrained adds that a
// finished run left no packet, no pause and no buffer in use.
//
// # Memory
//
// QP ids are dense (per unit on a World: below), and an arriving ACK or data packet
// finds its QP and its receive state by id in a table rather than in a
// map (a map lookup per packet was 5% of a run): two pointers per id, in
// pages of 1,024 ids (qpTable). A page is freed once all its QPs have
// closed and their receive states have ended, so with per-flow mapping
// the table holds the open QPs and the pages around them, not 16 bytes
// per QP ever opened (16 MB per million flows before). A host keeps its
// open QPs in a slice (each QP knows its index), not a map: opening and
// closing a QP per flow cost a map insert and delete.
//
// A finished Message drops its QP pointer (after OnComplete; QPID stays),
// so the records a run keeps for flows.parquet do not hold closed QPs'
// transport, CC and scheduler state. A closed per-flow QP that nothing
// can reach any more serves as the memory of the next QP its cluster
// opens, with its message slice and, when the algorithm is a cc.Resetter
// (DCQCN), its reset CC state: the scheduler says it keeps no reference
// after QPClosed (Releaser: Fair, SRPT and PIAS do; STORM and NS3Fair do
// not), no Observer is set, and no CC timer event was ever queued for it
// and no READ, ATOMIC or WQE with Ext was posted on it (pinned). Such a
// QP is opened exactly as a new one (TestQPReuse: 2,000 flows with and
// without reuse give the same messages, counters and events). So a
// caller must not keep a *QP past QPClosed or its last message's
// OnComplete: it may have become another flow's. What still allocates
// per flow is the flow-list record, its message, its flow record's
// optional values and the receive state (BenchmarkFlowList; measurements:
// docs/performance-notes.md, section 3.5).
//
// # On an engine.World
//
// On a network built on a World (docs/parallel.md), host h runs on its
// unit's Sim (Network.HostSim, HostUnit; Host.Sim), and hosts of units on
// different threads run at the same time. What a host changes beyond
// itself is its thread's (local): the counters (summed by Totals), the QP
// tables and the QPs kept for reuse; one thread (a plain cluster, or a
// World of one thread) has one such part, with Cluster.Counters as its
// counters. QP ids are seq<<b | unit, seq
// counting from 1 the QPs the unit opened and b the bits of the highest
// host unit (0 on a plain cluster: ids 1, 2, 3 in open order), so that no
// id depends on the thread count or on which unit ran first; the 31 bits
// a packet carries bound each unit to 2^(31-b)-1 QPs. A thread keeps the
// receive states of other threads' QPs in tables of their units, whose
// pages it frees when their unit's thread says, by a notice at the
// window's end, that every QP of the page closed (qpTable, pageNotice;
// Cluster.QPTablePages counts them). Message ids are the
// workload's (NewMessageWithID); Cluster.NewMessage counts in the order
// called, so on a World it belongs on one thread. Post is called on the
// source's thread; callbacks run on the thread of the host where the
// event happens. READ and ATOMIC, whose responder reads and marks the
// requester's WQE, and Cluster.WQE are refused on more than one thread.
// With -tags invariants and more than one thread, each thread checks its
// own hosts' QPs only: the conservation laws sum over every thread.
package rnic
