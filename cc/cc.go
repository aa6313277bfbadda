package cc

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// Env is what an algorithm knows about its QP's place in the network when
// it is created. All values are fixed for the QP's lifetime.
type Env struct {
	LineRate engine.Rate // R_max: the NIC port rate
	// MinRate is a floor the environment imposes on top of the
	// algorithm's own min_rate parameter (the larger applies); 0 = none.
	// Scenarios leave it 0: each algorithm's min_rate is the one knob.
	MinRate engine.Rate
	BaseRTT engine.Time // maxRtt of the topology (HPCC's T when GLOBAL_T = 1)
	BDP     int64       // maxBdp of the topology, bytes (window base W)
	MTU     int64       // payload bytes per full packet
	// NS3Arith asks an algorithm to compute in the reference model's
	// units and operation order where its floating-point results could
	// differ in the last bits, and in its order of same-ns events
	// (scenario compat: hpcc-ns3; HPCC and DCQCN use it).
	NS3Arith bool
}

// Feedback is one ACK or NACK as the sender sees it.
type Feedback struct {
	Now    engine.Time
	AckSeq int64 // cumulative: the next byte the receiver expects
	SndNxt int64 // sender's next new byte at this moment
	NACK   bool  // this is a NACK (go-back-N follows)
	ECE    bool  // congestion echo: the CNP flag carried on the ACK (docs/model.md §4.5)
	// RTT is now minus the send time echoed by the ACK, when the algorithm
	// asked for timestamps (HeaderBytes > 0 for TIMELY); 0 otherwise.
	RTT engine.Time
	// INT holds the echoed hop records, source to destination, when the
	// algorithm asked for INT; nil otherwise. Only valid during the call.
	INT []fabric.INTHop
	// Scheduled is when the ACK's arrival was scheduled: the start of its
	// transmission on the last link, as ns-3's channel schedules Receive.
	// Set only with Env.NS3Arith (for same-ns event order); 0 otherwise.
	Scheduled engine.Time
}

// Algorithm is one QP's congestion-control state machine. It is pure: it
// is handed the time and feedback, and answers with a rate, a window and
// the next time it wants to be woken. It never touches the event queue.
type Algorithm interface {
	// OnAck handles an ACK or NACK.
	OnAck(fb *Feedback)
	// OnCNP handles a standalone CNP packet (cnp = packet mode).
	OnCNP(now engine.Time)
	// OnTimer is called at (or after) the time NextTimer returned.
	OnTimer(now engine.Time)
	// NextTimer is the next time the algorithm wants OnTimer, or engine.Never.
	NextTimer() engine.Time
	// Rate is the current pacing rate, within [MinRate, LineRate].
	Rate() engine.Rate
	// Window is the current window in bytes; 0 means no window.
	Window() int64
}

// Resetter is an optional Algorithm extension: Reset returns the state
// machine to what its Spec's New built (same Env, same parameters), so
// that a NIC can reuse it for a new QP instead of allocating one.
type Resetter interface {
	Reset()
}

// RateChangeReporter is an optional extension of a Spec.ChangeRate
// algorithm: ChangedRate reports whether its last OnAck went through the
// reference NIC's RdmaHw::ChangeRate. HPCC's UpdateRateHp (rdma-hw.cc)
// calls ChangeRate only when some hop gave a sample (updated_any), and
// never on a QP's first ACK, whose update only stores the INT hops. An
// algorithm without it is taken to call ChangeRate on every update.
type RateChangeReporter interface {
	ChangedRate() bool
}

// Spec describes an algorithm to the rest of the simulator: its wire and
// switch needs, and how to build one state machine per QP.
type Spec struct {
	Name string
	// HeaderBytes is added to every data packet and echoed in its ACK:
	// 42 for HPCC's INT stack, 8 for TIMELY's timestamp, 0 otherwise.
	HeaderBytes int64
	// NeedsINT asks switches to stamp INT records on data packets.
	NeedsINT bool
	// NeedsTimestamp asks for RTT samples in Feedback.
	NeedsTimestamp bool
	// AckHighPrio is the reference model's ACK_HIGH_PRIO, which it ties
	// to the CC choice: the NIC sends ACK/NACK even while their class is
	// paused (ns-3 RdmaEgressQueue::ack_q_idx = 0). Switches still carry
	// them in the class of the data they acknowledge. Scenarios apply it
	// when nic.ack_class is auto.
	AckHighPrio bool
	// INTMulti is the reference model's INT_MULTI (int-header.h
	// IntHop::multi): the unit multiplier of the INT records an algorithm
	// reads. Under the ns-3 profile switches quantise the stamped byte
	// counter to 128*INTMulti B and the queue length to 80*INTMulti B.
	// 0 when the algorithm reads no INT.
	INTMulti int64
	// ChangeRate says that the reference NIC applies each of this
	// algorithm's updates through RdmaHw::ChangeRate (rdma-hw.cc), which
	// re-paces the pending transmission and pulls the NIC's wake-up
	// earlier (QbbNetDevice::UpdateNextAvail): HPCC's UpdateRateHp does;
	// DCQCN, TIMELY and DCTCP assign m_rate directly. Only the ns-3
	// profile reads it (rnic.Compat.RepaceOnChangeRate).
	ChangeRate bool
	// New builds the state machine for one QP.
	New func(env Env) Algorithm
}
