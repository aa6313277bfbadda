package storm

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// composition is what one variant of STORM is built from (docs/model.md
// §6.7): the three schedulers share the transactions, the heaps and the
// in-order guard, and differ only in these policies. newScheduler installs
// a variant's policies as function-valued fields; no method asks which
// variant it is.
type composition struct {
	// order is the variant's default within-class order.
	order string
	// tagger decides a transaction's class.
	tagger tagger
	// gate holds back a super-BDP transaction's bytes beyond its first
	// BDP (dynamic tags only; software tags are never gated).
	gate gate
	// handOver, when set, is how posted bytes reach the NIC (storm-sw's
	// software decision, when it takes time); nil hands them over at once.
	handOver func(s *Scheduler, q *qpState, now engine.Time)
	// grants runs the receiver side and the sender's announcements.
	grants bool
}

// tagger is how the class of a transaction's bytes is decided.
type tagger struct {
	// posted is called when transaction t was posted or grew.
	posted func(s *Scheduler, t *txn)
	// classify is the class of the next packet of q at send point sp of
	// HOL transaction t, or the verdict that holds it back.
	classify func(s *Scheduler, q *qpState, t *txn, sp int64) (uint8, verdict)
}

// gate is what sends a super-BDP transaction's bytes past its first BDP.
type gate func(s *Scheduler, q *qpState, t *txn, sp int64) (uint8, verdict)

var compositions = map[Variant]composition{
	Full:       {order: OrderUrgency, tagger: dynamicTags, gate: grantGate, grants: true},
	SenderOnly: {order: OrderUrgency, tagger: dynamicTags, gate: openGate},
	Software:   {order: OrderRR, tagger: softwareTags, handOver: handOverLater},
}

// softwareTags are storm-sw's: host software decides a transaction's
// class when it is posted, from its size and the transactions ahead of it
// then, and the NIC sends its bytes in that class once handed over.
var softwareTags = tagger{
	posted: func(s *Scheduler, t *txn) { t.swClass = s.swClass(t.size(), t.bPost) },
	classify: func(s *Scheduler, q *qpState, t *txn, sp int64) (uint8, verdict) {
		if sp >= q.released && sp >= q.maxSent {
			return 0, waiting
		}
		return t.swClass, mayPick
	},
}

// dynamicTags are the NIC's: a sub-BDP transaction in P_small, the first
// BDP of a larger one by the backlog at HOL time, the rest by the gate.
var dynamicTags = tagger{
	posted: func(*Scheduler, *txn) {},
	classify: func(s *Scheduler, q *qpState, t *txn, sp int64) (uint8, verdict) {
		switch {
		case t.size() <= s.bdp:
			return s.pSmall, mayPick
		case sp < t.start+s.bdp:
			return s.firstClass(q, t), mayPick
		}
		return s.gate(s, q, t, sp)
	},
}

// openGate is storm-sender's: no grants, the whole transaction in its
// first-BDP class.
func openGate(s *Scheduler, q *qpState, t *txn, _ int64) (uint8, verdict) {
	return s.firstClass(q, t), mayPick
}

// grantGate is storm's: bytes beyond the first BDP wait for the
// receiver's grant and go in its class.
func grantGate(s *Scheduler, q *qpState, t *txn, sp int64) (uint8, verdict) {
	switch {
	case sp < t.grantEnd:
		return t.grantClass, mayPick
	case sp < q.maxSent:
		return s.firstClass(q, t), mayPick // guard off: a retransmission beyond a revoked grant
	}
	return 0, gated
}

// install sets s's policies from its params: the variant's composition,
// the software hand-over delay and the receiver side.
func (s *Scheduler) install(c composition) {
	s.tagPosted, s.classify, s.gate = c.tagger.posted, c.tagger.classify, c.gate
	s.handOver = handOverNow
	if c.handOver != nil && s.p.SWDecisionDelay > 0 {
		s.handOver = c.handOver
	}
	s.postedUpdate, s.stampAnnounce = func(*qpState, engine.Time) {}, func(*qpState, *fabric.Packet) {}
	s.rxUpdate, s.rxData = func(engine.Time, *fabric.Packet) {}, func(engine.Time, *fabric.Packet) {}
	if !c.grants {
		return
	}
	if s.p.BacklogUpdates {
		s.postedUpdate = s.maybeUpdate
	}
	s.stampAnnounce = s.announce
	s.rxUpdate = func(now engine.Time, p *fabric.Packet) {
		if a := decodeAnnounce(p.Arg); a.kind == kindUpdate {
			s.rx.update(now, p.QP, a.ord, a.backlog)
		}
	}
	s.rxData = func(now engine.Time, p *fabric.Packet) {
		if p.Arg != 0 {
			s.rx.data(now, p)
		}
	}
}

// handOverNow gives the NIC a QP's posted bytes at once.
func handOverNow(s *Scheduler, q *qpState, _ engine.Time) { q.released = q.posted }

// handOverLater gives them after the software decision delay.
func handOverLater(s *Scheduler, q *qpState, now engine.Time) {
	s.releases = append(s.releases, release{at: now + s.p.SWDecisionDelay, q: q, end: q.posted})
	if s.releaseAt == engine.Never {
		s.releaseAt = now + s.p.SWDecisionDelay
		s.sim.At(s.releaseAt, s, 0)
	}
}
