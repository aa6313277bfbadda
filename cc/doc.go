// Package cc is dcsim's congestion-control interface: the per-QP
// state machine [Algorithm], the [Feedback] it is handed, the [Env] it is
// built for, and the [Spec] that tells the rest of the simulator what an
// algorithm needs on the wire and at the switches.
//
// # Model
//
// An Algorithm is pure: it never touches the event queue, a clock or a
// random source. The rnic owns one per QP and drives it:
//
//   - every ACK or NACK of the QP goes to OnAck, with Feedback.Now the
//     arrival time, AckSeq the cumulative sequence it carries, SndNxt the
//     sender's next new byte at that moment, ECE the CNP flag, RTT (when
//     Spec.NeedsTimestamp) and INT (when Spec.NeedsINT);
//   - a standalone CNP packet (scenario setting cnp = packet) goes to OnCNP;
//   - the rnic schedules OnTimer at NextTimer() whenever that is not
//     engine.Never, and asks NextTimer again after every call into the
//     algorithm, since any call may move it;
//   - after every call the rnic reads Rate() (the pacing rate, applied with
//     docs/model.md §5.1's next_avail rescheduling) and Window() (bytes in
//     flight allowed; 0 means no window);
//   - an algorithm that also implements [Resetter] may be reset and reused
//     for a later QP of the same NIC (rnic reuses a closed per-flow QP
//     whose CC never queued a timer); Reset must give exactly what New
//     gave. DCQCN implements it (TestReset checks every field).
//
// # Units and invariants
//
// Times are engine.Time (ps), rates engine.Rate (bit/s), sizes bytes.
// Sequence numbers are byte offsets within the QP, as in the reference
// model. Every implementation in dcsim keeps these invariants, and the
// conformance suite in cc/cctest checks them:
//
//   - a QP starts at Env.LineRate, and Rate() stays in [Env.MinRate,
//     Env.LineRate] whatever the feedback;
//   - Window() >= 0;
//   - after OnTimer(now), NextTimer() is later than now (or Never), so the
//     rnic can never spin on one instant;
//   - a timer that falls due at or before the time of an OnAck or OnCNP
//     fires before that input is handled, so the result does not depend on
//     how the rnic orders a timer and an ACK that share an instant, and a
//     spurious or late OnTimer call is harmless;
//   - the same calls in the same order give the same outputs;
//   - Feedback.INT is read during OnAck only: algorithms copy hop values,
//     never keep or modify the slice, and OnAck allocates nothing.
//
// # Helpers
//
// ScaleRate, DivRate and AddRate reproduce the reference model's DataRate
// arithmetic (a double product truncated back to integer bit/s) without
// overflow; RateFloor combines an algorithm's min_rate with Env.MinRate;
// Window is the reference model's HAS_WIN/VAR_WIN window.
//
// Each algorithm's Params end with the embedded [NICParams] (has_win,
// var_win, ack_high_prio), tagged `yaml:",inline"`: the scenario
// package's YAML decoder, encoder, --set and field reference flatten it,
// so the keys stay the algorithm's own (cc.dcqcn.has_win) in the order
// they had when each algorithm declared them. min_rate is declared in each
// Params, since DCQCN prints it among its own fields. ack_high_prio is a
// NIC setting that the reference ties to the CC choice; it stays under
// cc.<algorithm> rather than moving to nic, because moving it would change
// the schema users write and lose the per-CC defaults the reference's
// launch script sets (on for DCQCN and TIMELY, off for HPCC and DCTCP).
// It reaches rnic through Spec.AckHighPrio, and nic.ack_class decides
// whether it applies. Their Validate states one bound per field with
// CheckParams and the shared bounds (Positive, NonNegative, AtLeast,
// Fraction, Weight), whose messages every algorithm shares (ParamError:
// "dcqcn: rate_ai: must be >= 0, got ...").
//
// # Example
//
// Building one QP's state machine from a Spec (here DCQCN with its
// reference defaults at 100 Gbps):
//
//	spec := dcqcn.Spec(dcqcn.DefaultParams(100 * engine.Gbps))
//	alg := spec.New(cc.Env{LineRate: 100 * engine.Gbps, MinRate: engine.Gbps,
//		BaseRTT: 8 * engine.Microsecond, BDP: 100_000, MTU: 1000})
//	alg.OnAck(&cc.Feedback{Now: t, AckSeq: 1000, SndNxt: 8000, ECE: true})
//	if next := alg.NextTimer(); next != engine.Never { /* schedule OnTimer */ }
package cc
