package storm

import (
	"cmp"
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/iheap"
	"github.com/dcsim/dcsim/rnic"
)

// Scheduler is one NIC's STORM: the sender side (transactions, tags,
// eligibility, egress order) and the receiver side (active set, grants).
type Scheduler struct {
	p     Params
	env   Env
	h     *rnic.Host
	sim   *engine.Sim
	bdp   int64
	chunk int64

	pSmall, pBacklog, pLow uint8

	qps   map[int64]*qpState // open QPs by id, to route grants
	heaps classHeaps
	clock int64 // packets sent: the service stamp

	freeTxn []*txn

	// storm-sw: messages waiting for the software decision, in post
	// order (the delay is constant, so release times are too).
	releases    []release
	releaseHead int
	releaseAt   engine.Time // pending release event, Never if none

	// storm with backlog updates: QPs whose update waits for the end of
	// its rate-limit gap, in order of due time (the gap is constant).
	updGap     engine.Time
	updates    []release
	updateHead int
	updateAt   engine.Time // pending update event, Never if none

	rx receiver

	stats Stats

	// The variant's policies (variant.go), installed by newScheduler.
	tagPosted     func(s *Scheduler, t *txn)
	classify      func(s *Scheduler, q *qpState, t *txn, sp int64) (uint8, verdict)
	gate          gate
	handOver      func(s *Scheduler, q *qpState, now engine.Time)
	postedUpdate  func(q *qpState, now engine.Time)
	stampAnnounce func(q *qpState, p *fabric.Packet)
	rxUpdate      func(now engine.Time, p *fabric.Packet)
	rxData        func(now engine.Time, p *fabric.Packet)
}

// Kinds of the Scheduler's engine events.
const (
	fireSoftware = 0 // storm-sw decisions due
	fireUpdate   = 1 // rate-limited backlog updates due
	fireRelease  = 2 // the receiver's release check
)

type release struct {
	at  engine.Time
	q   *qpState
	end int64
}

// qpState is the scheduler's view of one QP (kept in rnic.QP.SchedState).
type qpState struct {
	// Place and key in the class heaps (class 0 = not eligible); first,
	// as iheap needs.
	iheap.Node

	qp *rnic.QP
	id int64

	// Transactions not yet fully acknowledged, in posting order:
	// txns[head:] are live, txns[hol] holds the send point.
	txns    []*txn
	head    int
	hol     int
	posted  int64 // stream bytes posted
	nextOrd uint16

	maxSent    int64 // highest stream offset sent + 1
	released   int64 // storm-sw: bytes handed to the NIC by software
	stamp      int64 // clock at the last packet sent
	stalled    bool  // the guard holds the QP back
	inheriting bool  // the guard keeps the QP in its old class

	// Backlog updates: what the receiver was last told about the HOL
	// transaction (by a data packet or an update), and when the last
	// update went.
	told         bool
	toldOrd      uint16
	toldBacklog  int
	lastUpdate   engine.Time
	updated      bool // an update went (lastUpdate is set)
	updateQueued bool
}

// txn is one transaction on a QP: consecutive messages grouped together.
type txn struct {
	ord        uint16
	id         int64 // TxnID of its messages (0 = none)
	start, end int64 // stream offsets
	lastPost   engine.Time
	bPost      int   // storm-sw: live transactions ahead of it when posted
	started    bool  // it has been the HOL (first-BDP class decided)
	firstClass uint8 // class of its first BDP (backlog at HOL time)
	swClass    uint8 // storm-sw: class decided at post time
	grantEnd   int64 // storm: bytes below this offset are granted
	grantClass uint8
}

func (t *txn) size() int64 { return t.end - t.start }

// New returns a factory of variant p.Variant's schedulers, one per NIC. p
// must be valid (Validate); the scenario layer validates before building.
func New(p Params, env Env) func(h *rnic.Host) rnic.Scheduler {
	p.Variant = cmp.Or(p.Variant, Full)
	if err := p.Validate(); err != nil {
		panic(fmt.Sprintf("storm: New with invalid params: %v", err))
	}
	return func(*rnic.Host) rnic.Scheduler { return newScheduler(p, env) }
}

func newScheduler(p Params, env Env) *Scheduler {
	s := &Scheduler{p: p, env: env, qps: map[int64]*qpState{}, releaseAt: engine.Never, updateAt: engine.Never}
	s.pSmall, s.pBacklog, s.pLow = p.wireClasses()
	s.rx.s = s
	s.rx.txns = map[rxKey]*rxTxn{}
	s.rx.slots = [2]int{p.SlotsBacklog, p.SlotsOther}
	s.rx.timerAt = engine.Never
	s.install(compositions[p.Variant])
	return s
}

// Attach implements rnic.Scheduler.
func (s *Scheduler) Attach(h *rnic.Host) {
	s.h = h
	s.sim = h.Sim() // its unit's, on an engine.World
	s.bdp = s.p.BDPBytes
	if s.bdp == 0 {
		s.bdp = s.env.BDP
	}
	if s.bdp == 0 {
		s.bdp = h.Cluster().Cfg.CCEnv.BDP
	}
	if s.bdp <= 0 {
		panic(fmt.Sprintf("storm: host %d: no BDP (bdp_bytes, Env.BDP and cc.Env.BDP are all 0)", h.ID))
	}
	s.chunk = s.p.GrantChunkBytes
	if s.chunk == 0 {
		s.chunk = s.bdp
	}
	rtt := h.Cluster().Cfg.CCEnv.BaseRTT
	s.updGap = s.p.BacklogUpdateGap
	if s.updGap == 0 {
		s.updGap = max(0, rtt)
	}
	if s.p.ReleaseAfterRTTs > 0 {
		// Saturated at MaxSpan, which a topology with no usable base RTT
		// (0, or overflowed by absurd link delays) also gets: it never
		// releases.
		ra := s.p.ReleaseAfterRTTs * float64(rtt)
		s.rx.releaseAfter = engine.MaxSpan
		if rtt > 0 && ra < float64(engine.MaxSpan) {
			s.rx.releaseAfter = max(1, engine.Time(ra))
		}
	}
}

// Params returns the scheduler's settings.
func (s *Scheduler) Params() Params { return s.p }

// BDP is the first-BDP size in use, bytes.
func (s *Scheduler) BDP() int64 { return s.bdp }

// QPOpened implements rnic.Scheduler.
func (s *Scheduler) QPOpened(qp *rnic.QP) {
	q := &qpState{qp: qp, id: qp.ID}
	qp.SchedState = q
	s.qps[qp.ID] = q
}

// QPClosed implements rnic.Scheduler.
func (s *Scheduler) QPClosed(qp *rnic.QP) {
	q := qp.SchedState.(*qpState)
	s.heaps.remove(q)
	for _, t := range q.txns[q.head:] {
		s.putTxn(t)
	}
	delete(s.qps, qp.ID)
	qp.SchedState = nil
}

func (s *Scheduler) getTxn() *txn {
	if n := len(s.freeTxn); n > 0 {
		t := s.freeTxn[n-1]
		s.freeTxn = s.freeTxn[:n-1]
		*t = txn{}
		return t
	}
	return new(txn)
}

func (s *Scheduler) putTxn(t *txn) { s.freeTxn = append(s.freeTxn, t) }

// joins reports whether a message with TxnID id posted now extends
// transaction last.
func (s *Scheduler) joins(last *txn, id int64, now engine.Time) bool {
	temporal := now-last.lastPost <= s.p.GroupWindow
	switch s.p.Grouping {
	case GroupID:
		return id != 0 && id == last.id
	case GroupTemporal:
		return temporal
	case GroupAuto:
		if id != 0 || last.id != 0 {
			return id == last.id
		}
		return temporal
	}
	return false
}

// swClass is storm-sw's decision for a transaction of size bytes with
// bPost live transactions ahead of it.
func (s *Scheduler) swClass(size int64, bPost int) uint8 {
	switch {
	case size <= s.bdp:
		return s.pSmall
	case bPost > 0:
		return s.pBacklog
	}
	return s.pLow
}

// Posted implements rnic.Scheduler: the message joins the QP's last
// transaction or starts a new one.
func (s *Scheduler) Posted(qp *rnic.QP, m *rnic.Message) {
	q := qp.SchedState.(*qpState)
	now := s.sim.Now()
	start := q.posted
	q.posted += m.Verb.Units(m.Size) // the QP's stream: one unit for a READ request or an ATOMIC
	live := len(q.txns) - q.head
	// A transaction takes more messages only while it has unsent bytes:
	// growth then reaches the receiver on the packets still to come.
	if live > 0 {
		last := q.txns[len(q.txns)-1]
		if qp.SendPoint() < last.end && s.joins(last, m.TxnID, now) {
			last.end = q.posted
			last.lastPost = now
			s.tagPosted(s, last)
			s.stats.GroupedMessages++
			s.posted(q, now)
			return
		}
	}
	t := s.getTxn()
	t.ord = q.nextOrd
	q.nextOrd++
	t.id = m.TxnID
	t.start, t.end = start, q.posted
	t.lastPost = now
	t.bPost = live
	s.tagPosted(s, t)
	q.txns = append(q.txns, t)
	s.stats.Transactions++
	s.posted(q, now)
	s.postedUpdate(q, now)
}

// posted hands the new bytes to the NIC, after the software delay in
// storm-sw, and re-ranks the QP (its backlog may have grown).
func (s *Scheduler) posted(q *qpState, now engine.Time) {
	s.handOver(s, q, now)
	s.refresh(q)
}

// Fire implements engine.Handler: software decisions, backlog updates or
// the receiver's release check that are due.
func (s *Scheduler) Fire(now engine.Time, kind uint8) {
	switch kind {
	case fireUpdate:
		s.fireUpdates(now)
		return
	case fireRelease:
		s.rx.check(now)
		return
	}
	s.releaseAt = engine.Never
	for s.releaseHead < len(s.releases) && s.releases[s.releaseHead].at <= now {
		r := s.releases[s.releaseHead]
		s.releases[s.releaseHead] = release{}
		s.releaseHead++
		if !r.q.qp.Closed() {
			r.q.released = max(r.q.released, r.end)
			s.refresh(r.q)
		}
	}
	if s.releaseHead == len(s.releases) {
		s.releases, s.releaseHead = s.releases[:0], 0
	} else {
		s.releaseAt = s.releases[s.releaseHead].at
		s.sim.At(s.releaseAt, s, 0)
	}
	s.h.Wake(now)
}

// HOLChanged implements rnic.Scheduler.
func (s *Scheduler) HOLChanged(qp *rnic.QP) { s.refresh(qp.SchedState.(*qpState)) }

// ReadyChanged implements rnic.Scheduler.
func (s *Scheduler) ReadyChanged(qp *rnic.QP) { s.refresh(qp.SchedState.(*qpState)) }

// Rewound implements rnic.Rewinder.
func (s *Scheduler) Rewound(qp *rnic.QP) { s.refresh(qp.SchedState.(*qpState)) }

// Acked implements rnic.Scheduler: finished transactions leave, the guard
// may release the QP, go-back-N may have moved the send point.
func (s *Scheduler) Acked(qp *rnic.QP) {
	q := qp.SchedState.(*qpState)
	una := qp.Acked()
	for q.head < len(q.txns) && q.txns[q.head].end <= una {
		s.putTxn(q.txns[q.head])
		q.txns[q.head] = nil
		q.head++
	}
	if q.head == len(q.txns) {
		q.txns, q.hol, q.head = q.txns[:0], 0, 0
	} else if q.head >= 32 && 2*q.head >= len(q.txns) {
		n := copy(q.txns, q.txns[q.head:])
		clear(q.txns[n:])
		q.txns = q.txns[:n]
		q.hol -= q.head
		q.head = 0
	}
	s.refresh(q)
}

// holTxn is the transaction holding the send point, or nil.
func (q *qpState) holTxn() *txn {
	sp := q.qp.SendPoint()
	if q.hol < q.head {
		q.hol = q.head
	}
	for q.hol < len(q.txns) && q.txns[q.hol].end <= sp {
		q.hol++
	}
	for q.hol > q.head && q.txns[q.hol-1].end > sp {
		q.hol-- // go-back-N moved the send point into an earlier transaction
	}
	if q.hol == len(q.txns) {
		return nil
	}
	return q.txns[q.hol]
}

// backlog is the number of transactions queued behind the HOL one.
func (q *qpState) backlog() int { return max(0, len(q.txns)-q.hol-1) }

// txnAt is the index in txns of the live transaction holding stream
// offset off, or -1. It starts from the HOL, where packets being sent are.
func (q *qpState) txnAt(off int64) int {
	i := min(q.hol, len(q.txns)-1)
	for i >= q.head && q.txns[i].start > off {
		i--
	}
	for i >= q.head && i < len(q.txns) && q.txns[i].end <= off {
		i++
	}
	if i < q.head || i >= len(q.txns) {
		return -1
	}
	return i
}

// firstClass is the first-BDP class of HOL transaction t: P_backlog when
// work is queued behind it, else P_low.
func (s *Scheduler) firstClass(q *qpState, t *txn) uint8 {
	if t.started {
		return t.firstClass
	}
	if q.backlog() > 0 {
		return s.pBacklog
	}
	return s.pLow
}

// verdict is why a QP may or may not send now.
type verdict uint8

const (
	mayPick  verdict = iota
	notReady         // the NIC says no: nothing to send, window, pacing
	gated            // waiting for a grant
	waiting          // storm-sw: the software has not handed the bytes over yet
	stalled          // the in-order guard
)

// evaluate is the class of q's next packet and whether it may go now. It
// has no side effects.
func (s *Scheduler) evaluate(q *qpState) (class uint8, v verdict, inherited bool) {
	qp := q.qp
	if !qp.Ready() {
		return 0, notReady, false
	}
	t := q.holTxn()
	if t == nil {
		return 0, notReady, false // the last byte just went; Ready follows
	}
	sp := qp.SendPoint()
	guard := s.p.Guard != GuardOff
	unacked := qp.Acked() < q.maxSent
	if sp < q.maxSent && guard && unacked {
		// A go-back-N retransmission resends bytes that already went, in
		// the class of the packets it replaces, without asking any gate.
		return qp.LastClass(), mayPick, false
	}
	class, v = s.classify(s, q, t, sp)
	if v != mayPick {
		return 0, v, false
	}
	if guard && unacked && class != qp.LastClass() {
		if s.p.Guard == GuardInherit {
			return qp.LastClass(), mayPick, true
		}
		return 0, stalled, false
	}
	return class, mayPick, false
}

// refresh re-evaluates q and moves it in, within or out of the heaps.
func (s *Scheduler) refresh(q *qpState) {
	if t := q.holTxn(); t != nil && !t.started {
		t.firstClass = s.firstClass(q, t)
		t.started = true
	}
	class, v, inherited := s.evaluate(q)
	if v == stalled && !q.stalled {
		s.stats.GuardStalls++
	}
	q.stalled = v == stalled
	q.inheriting = inherited
	if v != mayPick {
		s.heaps.remove(q)
		return
	}
	if s.p.WithinClassOrder == OrderRR {
		s.heaps.set(q, class, 0, 0, q.stamp)
		return
	}
	t := q.txns[q.hol]
	s.heaps.set(q, class, -int64(q.backlog()), t.end-q.qp.SendPoint(), q.stamp)
}

// Pick implements rnic.Scheduler: strict priority over classes, then the
// within-class order.
func (s *Scheduler) Pick(_ engine.Time, paused uint8) (*rnic.QP, uint8) {
	q := s.heaps.first(paused)
	if q == nil {
		return nil, 0
	}
	return q.qp, q.Class()
}

// Eligible reports whether Pick could choose qp with these classes paused
// (the schedtest conformance suite's view of the gates).
func (s *Scheduler) Eligible(qp *rnic.QP, paused uint8) bool {
	class, v, _ := s.evaluate(qp.SchedState.(*qpState))
	return v == mayPick && paused&(1<<class) == 0
}

// Sent implements rnic.Scheduler: the packet is stamped with what its
// receiver needs to know, and the QP re-ranked.
func (s *Scheduler) Sent(qp *rnic.QP, p *fabric.Packet) {
	q := qp.SchedState.(*qpState)
	s.clock++
	q.stamp = s.clock
	q.maxSent = max(q.maxSent, p.Seq+int64(p.Payload))
	if q.inheriting {
		s.stats.GuardInherited++
	}
	s.refresh(q)
}

// Stamp implements rnic.Stamper: before the packet's pacing is computed,
// storm writes what its receiver needs to know into it (announce).
func (s *Scheduler) Stamp(qp *rnic.QP, p *fabric.Packet) {
	s.stampAnnounce(qp.SchedState.(*qpState), p)
}

// announce writes the transaction's kind, ordinal, the QP's backlog and
// the bytes still to come into p.Arg, and charges StormHeaderBytes on
// packets that announce (first-BDP packets of super-BDP transactions, and
// small ones when they join the active set).
func (s *Scheduler) announce(q *qpState, p *fabric.Packet) {
	i := q.txnAt(p.Seq)
	if i < 0 {
		return
	}
	t := q.txns[i]
	big := t.size() > s.bdp
	if !big && !s.p.SmallInActiveSet {
		return
	}
	a := announce{kind: kindSmall, ord: t.ord, backlog: len(q.txns) - i - 1, remAfter: t.end - p.Seq - int64(p.Payload)}
	if big {
		a.kind = kindBig
	}
	p.Arg = a.encode()
	q.told, q.toldOrd, q.toldBacklog = true, t.ord, min(a.backlog, maxWireBacklog)
	if s.p.StormHeaderBytes > 0 && (!big || p.Seq < t.start+s.bdp) {
		p.Size += uint16(s.p.StormHeaderBytes)
	}
}

// Control implements rnic.Scheduler: a grant for one of this NIC's QPs,
// or a backlog update for this NIC's receiver.
func (s *Scheduler) Control(now engine.Time, p *fabric.Packet) {
	if p.Kind == fabric.Control {
		s.rxUpdate(now, p)
		return
	}
	if p.Kind != fabric.Grant {
		return
	}
	s.stats.GrantsReceived++
	q := s.qps[int64(p.QP)]
	if q == nil {
		s.stats.GrantsStale++
		return
	}
	g := decodeGrant(p.Arg)
	var t *txn
	for _, x := range q.txns[q.head:] {
		if x.ord == g.ord {
			t = x
			break
		}
	}
	if t == nil {
		s.stats.GrantsStale++
		return
	}
	if lat := now - p.SentAt; s.stats.GrantLatencyMin == 0 || lat < s.stats.GrantLatencyMin {
		s.stats.GrantLatencyMin = lat
	}
	if g.revoke {
		t.grantEnd = p.Seq
	} else {
		t.grantEnd = max(t.grantEnd, p.Seq)
		t.grantClass = g.class
	}
	s.refresh(q)
	s.h.Wake(now)
}

// Received implements rnic.Scheduler: the receiver side of storm.
func (s *Scheduler) Received(now engine.Time, p *fabric.Packet) { s.rxData(now, p) }

// maybeUpdate tells q's receiver the backlog behind q's HOL transaction if
// it changed since the receiver last heard, the transaction is super-BDP,
// announced (a packet of it went) and not fully sent: such a transaction
// may wait for a grant and then carries no data. At most one update per
// QP per updGap; a change within the gap goes at its end.
func (s *Scheduler) maybeUpdate(q *qpState, now engine.Time) {
	if q.updateQueued || q.qp.Closed() {
		return
	}
	t := q.holTxn()
	if t == nil || t.size() <= s.bdp || q.maxSent <= t.start || q.maxSent >= t.end {
		return
	}
	b := q.backlog()
	if q.told && q.toldOrd == t.ord && q.toldBacklog == min(b, maxWireBacklog) {
		return
	}
	if at := engine.SatAdd(q.lastUpdate, s.updGap); q.updated && now < at {
		q.updateQueued = true
		s.updates = append(s.updates, release{at: at, q: q})
		if s.updateAt == engine.Never {
			s.updateAt = at
			s.sim.At(at, s, fireUpdate)
		}
		return
	}
	g := s.h.NewControl(int(q.qp.Dst), fabric.Control, uint8(s.p.GrantClass), uint16(s.p.BacklogUpdateBytes))
	g.QP = int32(q.id)
	g.Arg = announce{kind: kindUpdate, ord: t.ord, backlog: b}.encode()
	g.SentAt = now
	s.h.SendControl(g)
	s.stats.BacklogUpdates++
	q.told, q.toldOrd, q.toldBacklog = true, t.ord, min(b, maxWireBacklog)
	q.lastUpdate, q.updated = now, true
}

// fireUpdates sends the rate-limited updates that are due.
func (s *Scheduler) fireUpdates(now engine.Time) {
	s.updateAt = engine.Never
	for s.updateHead < len(s.updates) && s.updates[s.updateHead].at <= now {
		q := s.updates[s.updateHead].q
		s.updates[s.updateHead] = release{}
		s.updateHead++
		q.updateQueued = false
		s.maybeUpdate(q, now)
	}
	if s.updateHead == len(s.updates) {
		s.updates, s.updateHead = s.updates[:0], 0
	} else {
		s.updateAt = s.updates[s.updateHead].at
		s.sim.At(s.updateAt, s, fireUpdate)
	}
}
