// Package dcqcn is DCQCN as the reference ns-3 RDMA model implements it
// (docs/model.md §5.2; Mellanox CX4+ variant, reference CC mode 1): a
// rate-based reaction point driven by CNPs and three timers.
//
// # Model
//
// Per QP: the rate R, the target rate R_T, alpha, the increase stage, and
// two "a CNP arrived" flags. A CNP is the ECE flag of an ACK or NACK
// (cnp = ack_flag, one per CE-marked data packet) or a standalone CNP
// packet (cnp = packet, OnCNP); both mean the same. The first CNP sets
// alpha to 1, multiplies R by rate_on_first_cnp, and starts
//
//   - the alpha timer, every alpha_resume_interval:
//     alpha = (1-g)*alpha + g if a CNP arrived since the last update, else
//     (1-g)*alpha;
//   - the decrease timer, every rate_decrease_interval, its first firing
//     1 ns after its period (so it follows the alpha update due at the same
//     time): if a CNP arrived since the last check, R_T = R when
//     clamp_target_rate or stage > 0, R = max(min_rate, R*(1 - alpha/2)),
//     stage = 0, and the increase timer restarts;
//   - the increase timer, every rp_timer, only after a decrease: fast
//     recovery R = (R+R_T)/2 while stage < F, additive increase (R_T +=
//     rate_ai) at stage F, hyper increase (R_T += rate_hai) beyond, R_T
//     capped at line rate; then stage += 1.
//
// There is no byte counter: increases are timer-driven only.
//
// Arithmetic follows the reference's DataRate: a product such as
// R*(1 - alpha/2) is truncated to whole bit/s, and (R+R_T)/2 is R/2 + R_T/2
// with each half truncated; R can therefore settle 1 bit/s below line rate.
//
// # Timers without events
//
// The state machine keeps the reference's timer phases exactly but asks the
// rnic (NextTimer) only for firings that can change the rate: the decrease
// check while a CNP is pending, and increase firings until R and R_T reach
// their fixed point. Alpha updates and idle checks are replayed in order
// when the QP is next entered. A test drives the QP side by side with a
// transcription of the reference in which every timer is an event, ordered
// like ns-3's scheduler, and finds R and R_T identical after every firing
// on random CNP patterns. Once alpha falls below g*2^-54 it is set to 0;
// this cannot change any rate (see decayAlpha) and bounds the replay work.
// (Only with g below 1/4096 can more than 2^18 quiet alpha periods pass
// before that; those are then applied as one power of 1-g.)
// At the same instant, timers fire before a CNP is handled; two timers due
// at once fire in the order they were armed (as ns-3 does), and timers
// armed at the same instant in the order alpha, decrease, increase.
//
// With cc.Env.NS3Arith (scenario compat: hpcc-ns3) a CNP-carrying ACK
// and an alpha update on the same ns run in ns-3's order instead. ns-3
// runs same-time events in the order they were scheduled; the update was
// scheduled one alpha period earlier (UpdateAlphaMlx schedules the next),
// the ACK's Receive when its last hop began sending it, a link delay and
// a serialization earlier (qbb-channel.cc TransmitStart; rnic sets
// cc.Feedback.Scheduled). When the ACK was scheduled first, as with the
// reference's 1 µs links and 1 µs alpha period, ReceiveAck's
// cnp_received_mlx runs first and that update counts the CNP: alpha
// becomes (1-g)*alpha + g at once, where the default decays it and counts
// the CNP one period later. Decrease and increase checks were scheduled
// 4 and 300 µs earlier, before any ACK, and keep firing first.
// NextTimer then also asks for every decrease check, CNP or not, so that
// the rnic's timer event is scheduled at the previous check as ns-3's
// CheckRateDecreaseMlx schedules it: a decrease on the ns of a paced
// transmission runs before it whenever ns-3's does, and that packet's
// pacing gap uses the decreased rate.
//
// # Parameters
//
// Defaults are `run.py --cc dcqcn` (dcsim's default); bw is the NIC rate in
// Gbps.
//
//	YAML key                 default at 100 Gbps   unit     reference key
//	alpha_resume_interval    1us                   time     ALPHA_RESUME_INTERVAL
//	rate_decrease_interval   4us                   time     RATE_DECREASE_INTERVAL
//	rp_timer                 300us                 time     RP_TIMER
//	ewma_gain                0.00390625 (1/256)    -        EWMA_GAIN (g)
//	fast_recovery_times      1                     count    FAST_RECOVERY_TIMES (F)
//	rate_ai                  20Mbps (5*bw/25)      bit/s    RATE_AI
//	rate_hai                 200Mbps (50*bw/25)    bit/s    RATE_HAI
//	min_rate                 1000Mbps              bit/s    MIN_RATE
//	clamp_target_rate        false                 bool     CLAMP_TARGET_RATE
//	rate_on_first_cnp        1.0                   -        RateOnFirstCnp attribute
//	has_win                  false                 bool     HAS_WIN
//	var_win                  false                 bool     VAR_WIN
//	ack_high_prio            true                  bool     ACK_HIGH_PRIO
//
// Preset gives the reference's other launch variants: dcqcn_paper (50 us,
// 50 us, 55 us), dcqcn_vwin and dcqcn_paper_vwin (has_win, var_win, ACKs at
// normal priority). The reference computes rate_ai with Python 2 integer
// division, i.e. whole Mb/s; dcsim scales exactly (line rate / 5000), which
// agrees for every NIC rate that is a multiple of 5 Gbps.
//
// The window, when has_win, is env.BDP (maxBdp, GLOBAL_T = 1), scaled by
// R/line rate with var_win and never below 1 byte, as in the reference.
// ack_high_prio is an rnic setting the reference ties to the CC choice
// (cc.Spec.AckHighPrio): it lets the NIC send ACKs while their class is
// paused; switches carry ACKs in the data's class either way.
// The effective floor is the larger of min_rate and cc.Env.MinRate
// (cc.RateFloor); the reference applies min_rate only to decreases, dcsim
// also floors the first-CNP cut so the rate never leaves [floor, line].
//
// # Paper versus reference model
//
// The SIGCOMM 2015 paper's reaction point also counts bytes (an increase
// every B bytes) and runs the increase timer from the first CNP; the
// reference (and so dcsim) has no byte counter and starts the increase
// timer at the first decrease. The paper's timers are 55 us (alpha and
// increase) and 50 us (CNP generation); the reference's launch script uses
// 1 us, 4 us and 300 us. The paper's CNP is a separate packet at most once
// per 50 us; the reference's is a flag on every ACK of a marked packet.
package dcqcn
