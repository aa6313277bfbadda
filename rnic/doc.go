// Package rnic models the host RDMA NIC: queue pairs carrying messages,
// the RoCEv2 transport per QP, congestion control per QP, and egress
// arbitration through a pluggable Scheduler.
//
// # Messages and QPs
//
// A workload posts Messages (src, dst, bytes). Config.Mapping maps them
// onto QPs: per-flow (one QP per message, torn down when its last byte is
// acknowledged: the reference model) or a pool of K QPs per ordered host
// pair (per-pair = 1), chosen round robin, where messages queue FIFO on
// their QP and later ones wait behind the head-of-line message. A QP's
// messages share one byte stream; a data packet never spans two messages.
// A message completes when the ACK covering its last byte reaches the
// sender (the reference model's FCT end). Cluster.OnSent, when set, hears
// of each message once more, earlier: when its last byte is first handed
// to the port, with the time that packet's serialisation ends (SimAI's
// send_finish; training workloads release a flow's sender then).
//
// # Egress
//
// When the port may transmit, the NIC sends the head of its control queue
// (ACK, NACK, CNP, grants) unless that packet's class is paused, else it
// asks the Scheduler to Pick a ready QP and a data class.
//
// ACK and NACK travel in the class of the data they acknowledge, as in the
// reference model (REFERENCE.md 3.1, 4.4): switches queue them FIFO with
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
// serialization times (REFERENCE.md 5.1). When nothing is ready the NIC
// wakes at the earliest pacing time. Hosts obey PFC per class and never
// send PAUSE.
//
// The Scheduler is notified of every event that can change its choice (QP
// opened/closed, message posted, head-of-line change, readiness, packet
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
// Config.Compat (scenario compat: hpcc-ns3) switches on behaviours of the
// HPCC ns-3 model (alibaba-edu/High-Precision-Congestion-Control,
// simulation/src/point-to-point/model) where dcsim's defaults differ; each
// is what that code does, for comparing with numbers published from it:
//
//   - PairPorts: source ports 10000, 10001, ... per (src, dst) pair in the
//     order flows start (scratch/third.cc portNumder), so ECMP hashes the
//     reference's 5-tuples. Default: one counter per source host.
//   - WholeNsPacing: the gap after a packet is Seconds(rate.CalculateTxTime
//     (size)) truncated to whole ns (rdma-hw.cc RdmaHw::UpdateNextAvail;
//     engine.Rate.TxTimeWholeNs), at line rate too. Default: exact ps.
//   - RepaceOnlyHPCC: only HPCC moves the pending pacing time on a rate
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
// QP ids are dense and cluster-wide, and an arriving ACK or data packet
// finds its QP and its receive state in two slices indexed by id rather
// than in maps (a map lookup per packet was 5% of a run). That costs 16
// bytes per QP ever opened (per flow with per-flow mapping, so 16 MB per
// million flows); a closed QP's slots are nil and its state is collected.
// A finished Message drops its QP pointer (after OnComplete; QPID stays),
// so the records a run keeps for flows.parquet do not hold closed QPs'
// transport, CC and scheduler state: about 0.5 KB of heap per finished
// flow, against 2 KB before.
package rnic
