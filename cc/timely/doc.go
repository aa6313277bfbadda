// Package timely is TIMELY, RTT-gradient congestion control, as the
// reference ns-3 RDMA model implements it (docs/model.md §5.4, reference CC
// mode 7). The reference README calls its TIMELY "based on our own
// understanding"; this package is that model, not the SIGCOMM 2015 paper.
//
// # Model
//
// Each data packet carries its send time (8 B, Spec.HeaderBytes) and the
// ACK echoes it, so the rnic hands OnAck an RTT sample (Feedback.RTT, now
// minus the echoed time). Only the first ACK of each RTT (ack_seq >
// last_update_seq) counts; the ones in between are ignored. The first such
// ACK only records the RTT. Then, per RTT:
//
//	rtt_diff = (1 - alpha)*rtt_diff + alpha*(rtt - prev_rtt)
//	gradient = rtt_diff / min_rtt
//	rtt < t_low:    R += rate_ai (rate_hai after 5 increases in a row)
//	rtt > t_high:   R = max(min_rate, R*(1 - beta*(1 - t_high/rtt)))
//	gradient <= 0:  increase as above
//	otherwise:      R = max(min_rate, R*max(0, 1 - beta*gradient))
//
// with R capped at line rate, the increase count reset by a decrease, and
// prev_rtt and last_update_seq = snd_nxt updated when snd_nxt has moved.
// Times are ps rather than the reference's ns; the gradient and the
// thresholds are ratios or comparisons, so only sub-ns rounding differs.
// Products are truncated to whole bit/s, as the reference's DataRate does.
//
// # Parameters
//
// Defaults are `run.py --cc timely`; bw is the NIC rate in Gbps.
//
//	YAML key        default at 100 Gbps    unit    reference
//	alpha           0.875                  -       TimelyAlpha (weight of the new sample)
//	beta            0.8                    -       TimelyBeta
//	t_low           50us                   time    TimelyTLow
//	t_high          500us                  time    TimelyTHigh
//	min_rtt         20us                   time    TimelyMinRtt
//	rate_ai         100Mbps (10*bw/10)     bit/s   RATE_AI
//	rate_hai        500Mbps (50*bw/10)     bit/s   RATE_HAI
//	min_rate        1000Mbps               bit/s   MIN_RATE
//	has_win         false                  bool    HAS_WIN
//	var_win         false                  bool    VAR_WIN
//	ack_high_prio   true                   bool    ACK_HIGH_PRIO
//
// Preset("timely_vwin") sets has_win and var_win, like the reference's
// timely_vwin. The window is env.BDP scaled by R/line rate, never below
// one byte. The five-increase threshold before rate_hai is fixed, as in
// the reference. ack_high_prio is an rnic setting the reference ties to
// the CC choice (cc.Spec.AckHighPrio): it lets the NIC send ACKs while
// their class is paused; switches carry ACKs in the data's class either
// way. The effective floor is the larger of min_rate and cc.Env.MinRate.
// OnCNP does nothing: TIMELY ignores ECN.
//
// # Paper versus reference model
//
// The paper (Mittal et al., SIGCOMM 2015) updates on every completion
// event of a 16-64 KB segment, uses alpha = 0.02 as the weight of the new
// sample (the reference's 0.875 weights it far more), beta = 0.8,
// T_low = 50 us, T_high = 500 us, an additive step delta = 10 Mb/s and
// hyperactive increase after N = 5 completions with a negative gradient,
// and multiplies the step by the count in HAI mode. The reference keeps
// the structure but updates once per RTT, uses a fixed rate_hai, counts
// increases of either cause toward the HAI threshold, and floors the
// gradient factor at 0 rather than bounding the decrease.
package timely
