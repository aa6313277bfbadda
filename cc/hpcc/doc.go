// Package hpcc is HPCC (High Precision Congestion Control, SIGCOMM 2019)
// as the reference ns-3 RDMA model implements it (docs/model.md §5.3,
// reference CC mode 3): a window- and rate-based sender driven by in-band
// telemetry (INT) from every switch on the path.
//
// # Model
//
// Switches stamp each data packet at egress dequeue with a hop record
// (fabric.INTHop: link rate, time, bytes sent before the packet, bytes
// queued behind it); the receiver echoes the stack in the ACK. Per QP the
// sender keeps R (the rate in use), R_c (the reference rate), the stage,
// U (an EWMA of utilisation, initially 1) and the last record per hop.
//
// On each ACK, the first ever only stores the records. Otherwise, per hop i:
//
//	tau_i = time_i - time_i'                    (' = stored record)
//	u_i   = (bytes_i - bytes_i')*8/tau_i / B_i + min(qlen_i, qlen_i') * R_max / (B_i * W)
//
// and the stored record is replaced. With multi_rate off, u = max_i u_i
// and dt = tau of that hop, capped at T; U = (U*(T-dt) + u*dt)/T; k = U/eta;
// R = R_c/k + W_AI (stage reset) if k >= 1 or stage >= mi_thresh, else
// R = R_c + W_AI (stage + 1); R is clamped to [min_rate, R_max] and used at
// once. Only on the first ACK of a new RTT (ack_seq > last_update_seq) do
// R_c and the stage take the new values and last_update_seq become snd_nxt;
// the other ACKs react from the unchanged R_c (fast_react), or are ignored
// without fast_react. With multi_rate, each hop keeps its own (U, R_c,
// stage) and R is the smallest hop rate. With sample_feedback, hops with an
// empty queue are skipped on ACKs that do not start an RTT.
//
// T is env.BaseRTT (maxRtt, GLOBAL_T = 1) and W is env.BDP (maxBdp); the
// window, with has_win and var_win, is max(1, W*R/R_max) bytes (the
// reference's one-byte floor, not one MTU). The queue term always uses W,
// whatever has_win says; with W = 0 it is left out, and with T = 0 each
// sample replaces U.
//
// # INT records are exact
//
// The reference quantises records into 24-bit ns times, 20-bit byte counts
// in 128*int_multi B units and 17-bit queue lengths in 80*int_multi B
// units, and takes deltas modulo the field width. dcsim's records are exact
// (see fabric/int.go), so deltas are plain differences and int_multi only
// documents the reference setting. A record that does not move forward
// (tau <= 0 or fewer bytes than the stored one, e.g. after a path change
// puts another switch at the same index) yields no sample but is stored;
// the reference's modular arithmetic would read it as a huge sample. An
// INT stack longer than fabric.MaxINTHops is ignored, as in the reference.
//
// # Parameters
//
// Defaults are `run.py --cc hp` (dcsim's default); bw is the NIC rate in
// Gbps.
//
//	YAML key          default at 100 Gbps   unit     reference key
//	u_target          0.95                  -        U_TARGET (eta)
//	mi_thresh         0                     count    MI_THRESH (maxStage)
//	rate_ai           40Mbps (10*bw/25)     bit/s    RATE_AI (W_AI)
//	int_multi         4 (bw/25, at least 1) -        INT_MULTI (no effect, see above)
//	multi_rate        false                 bool     MULTI_RATE
//	sample_feedback   false                 bool     SAMPLE_FEEDBACK
//	fast_react        true                  bool     FAST_REACT
//	min_rate          1000Mbps              bit/s    MIN_RATE
//	has_win           true                  bool     HAS_WIN
//	var_win           true                  bool     VAR_WIN
//	ack_high_prio     false                 bool     ACK_HIGH_PRIO
//
// ack_high_prio is an rnic setting the reference ties to the CC choice
// (cc.Spec.AckHighPrio): it lets the NIC send ACKs while their class is
// paused; switches carry ACKs in the data's class either way. The
// effective floor is the larger of min_rate and cc.Env.MinRate.
// Rate arithmetic follows the reference's DataRate: R_c/k is truncated to
// whole bit/s before W_AI is added.
//
// # Paper versus reference model
//
// The paper's sender is window-based: W = W_c/k + W_AI with W_AI in bytes,
// and the rate is W/T. The reference (and dcsim) runs the same law on a
// rate, R = R_c/k + W_AI with W_AI a rate, and derives the window from it;
// the two agree up to the constant W/T = R_max. The paper recommends
// maxStage = 5; the reference launch script uses 0 (no additive phase),
// and so does dcsim by default. htsim's HPCC (Broadcom/csg-htsim) is the
// paper's window form with maxStage 5, W_AI = 1 MSS and T = 12 us.
//
// A packet-level closed-loop test (one FIFO bottleneck, windowed flows)
// reaches 0.951 of the link with 1, 2 and 4 flows and an almost empty
// queue, as the law predicts (U = eta*(1 + W_AI/R)).
package hpcc
