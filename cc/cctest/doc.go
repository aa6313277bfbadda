// Package cctest is the conformance suite for cc.Algorithm implementations,
// in the spirit of testing/fstest.TestFS: every algorithm's tests call
//
//	cctest.Run(t, dcqcn.Spec(p), env,
//		cctest.Congest(func() cctest.Signal { return eceOnEveryAck }),
//		cctest.RecoverWithin(20*engine.Millisecond, 0.9))
//
// and get one subtest per property (see Run for the list). The properties
// are the invariants stated in package cc's documentation: rate within
// [Env.MinRate, Env.LineRate], Window() >= 0, NextTimer() strictly after
// now once OnTimer(now) returns, determinism, INT slices neither modified
// nor retained, no allocation per ACK; plus two closed-loop behaviours,
// reaction to sustained congestion and recovery once it stops.
//
// # Random feedback
//
// The bounds, determinism and INT checks replay seeded random sequences
// (engine.NewStream, so a failure names its sequence and is reproducible):
// ACKs and NACKs with advancing, stale and zero sequence numbers, ECE on a
// third of them, RTTs from 0 to 2 ms, INT stacks of 0 to 6 hops whose
// records mostly advance but sometimes repeat or go back, standalone CNPs,
// and gaps from 0 to 20 ms. Timers are fired on time (the rnic's contract)
// on three steps in four and left late on the fourth; spurious OnTimer
// calls are mixed in. The sequences are deliberately harsher than a real
// network: an algorithm must stay within bounds on any input, not only on
// a plausible one.
//
// # The toy closed loop
//
// Loop paces full packets at Rate(), honours Window(), and returns each
// ACK exactly Env.BaseRTT after its packet left: there is no queue, so the
// congestion an algorithm sees is what the caller's Signal says. The
// caller supplies the Signals because what "congested" means differs: ECE
// on every ACK for DCQCN and DCTCP, a rising RTT for TIMELY, INT showing a
// full bottleneck for HPCC. The Congestion check wants the rate below line
// rate (or the window below its start) after CongestFor (default 2 ms);
// the Recovery check wants the rate at least the stated fraction of line
// rate RecoverWithin after the signal stops (default 90% within 20 ms).
//
// The checks are also exported one by one (CheckStart, CheckBounds, ...)
// returning errors, so that the suite itself can be tested against
// deliberately broken algorithms.
package cctest
