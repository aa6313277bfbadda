// Package dctcp is rate-based DCTCP as the reference ns-3 RDMA model
// implements it (docs/model.md §5.5, reference CC mode 8): a model of DCTCP
// in NIC hardware that starts at line rate, has no delayed ACKs, and
// adjusts a rate rather than a congestion window.
//
// # Model
//
// The ECN echo is the CNP flag of each ACK (Feedback.ECE), set when the
// data packet it answers was CE-marked. Per QP: R, alpha, the marks and
// the packet count of the current window, last_update_seq, and the CWR
// state with its high_seq. On each ACK or NACK:
//
//	marks += ECE
//	if ack_seq > last_update_seq:                 (a new window)
//	    first window: last_update_seq = snd_nxt; batch = snd_nxt/MTU + 1
//	    otherwise:    alpha = (1-g)*alpha + g*min(1, marks/batch)
//	                  last_update_seq = snd_nxt; marks = 0
//	                  batch = (snd_nxt - ack_seq)/MTU + 1
//	if in CWR and ack_seq > high_seq: leave CWR
//	if ECE and not in CWR: R = max(min_rate, R*(1 - alpha/2)); enter CWR; high_seq = snd_nxt
//	if not in CWR and a new window began: R = min(R_max, R + rate_ai)
//
// MTU is cc.Env.MTU (the reference's PACKET_PAYLOAD_SIZE). The product is
// truncated to whole bit/s as the reference's DataRate does. The marking
// itself is the switches' business: the reference launch script uses
// K_min = K_max = 30*bw/10 KB (30 KB at 10 Gbps, 300 KB at 100 Gbps) with
// p_max = 1, i.e. a step at K (docs/model.md §3.4).
//
// A standalone CNP packet (cnp = packet, OnCNP) counts as one marked ACK
// that acknowledges nothing: it adds to the marks and cuts the rate unless
// CWR is in force, with high_seq the latest snd_nxt seen. This is a dcsim
// extension; the reference's CNP packets never reach DCTCP.
//
// # Parameters
//
// Defaults are `run.py --cc dctcp`; DCTCP_RATE_AI is a constant there, not
// scaled with the NIC rate.
//
//	YAML key        default        unit    reference
//	ewma_gain       0.0625 (1/16)  -       EWMA_GAIN (g)
//	alpha_init      1              -       initial m_alpha
//	rate_ai         615Mbps        bit/s   DCTCP_RATE_AI (1 KB per 13 us RTT; attribute default 1000 Mb/s)
//	min_rate        1000Mbps       bit/s   MIN_RATE
//	has_win         true           bool    HAS_WIN
//	var_win         true           bool    VAR_WIN
//	ack_high_prio   false          bool    ACK_HIGH_PRIO
//
// The window is env.BDP scaled by R/line rate, never below one byte.
// ack_high_prio is an rnic setting the reference ties to the CC choice
// (cc.Spec.AckHighPrio): it lets the NIC send ACKs while their class is
// paused; switches carry ACKs in the data's class either way. The
// effective floor is the larger of min_rate and cc.Env.MinRate.
//
// # Paper versus reference model
//
// DCTCP (Alizadeh et al., SIGCOMM 2010) is window-based TCP: cwnd *= 1 -
// alpha/2 at most once per window on ECN-Echo, +1 MSS per RTT otherwise,
// slow start, delayed ACKs with a two-state ECN-Echo machine, and alpha
// updated once per window of data with g = 1/16. The reference keeps
// alpha's update and the once-per-window cut (CWR until high_seq is ACKed)
// but moves it to a rate that starts at line rate, adds DCTCP_RATE_AI per
// window instead of an MSS, has no slow start and ACKs every packet.
package dctcp
