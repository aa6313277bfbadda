package storm

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/iheap"
)

// Receiver slot kinds.
const (
	slotBacklog = 0 // candidates with backlog > 0, granted at P_backlog
	slotOther   = 1 // candidates with backlog == 0, granted at P_low
	slotNone    = -1
	slotParked  = -2 // released, waiting out releaseAfter before it is a candidate again
)

type rxKey struct {
	qp  int64
	ord uint16
}

// rxTxn is a transaction as its receiver knows it.
type rxTxn struct {
	iheap.Node // position in its candidate heap; first, as iheap needs
	key        rxKey
	src        int32
	end        int64 // stream offset after its last byte (endUnknown if too far to announce)
	rcvd       int64 // highest stream offset received + 1
	backlog    int
	small      bool
	slot       int8        // slotBacklog, slotOther, or slotNone for a candidate
	granted    int64       // offset granted so far
	class      uint8       // class of its grants (its kind's when first granted)
	lastAt     engine.Time // occupant: when it was granted or its last byte arrived; parked: when it may return
	seq        int64       // announcement order
	heap       int8        // which candidate heap (the kind when it was pushed)
}

func (r *rxTxn) rem() int64 {
	if r.end == endUnknown {
		return endUnknown
	}
	return r.end - r.rcvd
}

// kind is the slot kind a candidate waits for.
func (r *rxTxn) kind() int8 {
	if r.backlog > 0 {
		return slotBacklog
	}
	return slotOther
}

// receiver is one NIC's active set: candidates are super-BDP
// transactions announced by their first-BDP packets and not finished;
// occupants hold a slot and have been granted.
type receiver struct {
	s     *Scheduler
	txns  map[rxKey]*rxTxn
	cand  [2]rxHeap
	occ   [2][]*rxTxn
	slots [2]int
	seq   int64
	free  []*rxTxn

	parked       []*rxTxn    // released occupants, in release order
	releaseAfter engine.Time // 0 = never release
	timerAt      engine.Time // pending release check, Never if none
}

func (x *receiver) get() *rxTxn {
	if n := len(x.free); n > 0 {
		r := x.free[n-1]
		x.free = x.free[:n-1]
		*r = rxTxn{}
		return r
	}
	return new(rxTxn)
}

func (x *receiver) pushCand(r *rxTxn) {
	r.slot = slotNone
	r.heap = r.kind()
	x.cand[r.heap].push(r)
}

// data handles an announcing data packet.
func (x *receiver) data(now engine.Time, p *fabric.Packet) {
	a := decodeAnnounce(p.Arg)
	if a.kind == kindNone {
		return
	}
	hi := p.Seq + int64(p.Payload)
	end := int64(endUnknown)
	if a.remAfter != remUnknown {
		end = hi + a.remAfter
	}
	k := rxKey{int64(p.QP), a.ord}
	r := x.txns[k]
	if r == nil {
		if a.kind == kindSmall && !x.s.p.SmallInActiveSet || hi >= end {
			return // not tracked, or already complete (a tail or a duplicate)
		}
		r = x.get()
		r.key, r.src, r.end, r.rcvd, r.backlog = k, p.Src, end, hi, a.backlog
		r.small = a.kind == kindSmall
		r.seq = x.seq
		x.seq++
		x.txns[k] = r
		if r.small {
			r.slot = r.kind() // admitted without a grant; it may overfill the slot
			x.occ[r.slot] = append(x.occ[r.slot], r)
		} else {
			x.s.stats.Announced++
			x.pushCand(r)
			x.preempt(now, r)
		}
		x.fill(now)
		return
	}
	r.rcvd = max(r.rcvd, hi)
	if end != endUnknown {
		if r.end == endUnknown {
			r.end = end
		} else {
			r.end = max(r.end, end) // the transaction grew
		}
	}
	r.backlog = a.backlog
	if r.rcvd >= r.end {
		x.finish(r)
		x.fill(now)
		return
	}
	if r.slot == slotParked {
		return // a packet sent before the release
	}
	if r.small && a.kind == kindBig {
		// The transaction grew past 1 BDP: from now on it needs grants.
		x.leave(r)
		r.small = false
		x.s.stats.Announced++
		x.pushCand(r)
		x.preempt(now, r)
		x.fill(now)
		return
	}
	if r.slot != slotNone {
		r.lastAt = now
		if !r.small {
			x.grant(now, r)
		}
		return
	}
	// A candidate's own data is the tail of a revoked grant (or of its
	// first BDP): it re-ranks the candidate but does not preempt, or two
	// transactions would take the slot back and forth, each revocation's
	// bytes in flight making the revoked one look the more urgent.
	if r.kind() != r.heap {
		x.cand[r.heap].remove(r)
		x.pushCand(r)
	} else {
		x.cand[r.heap].fix(r)
	}
	x.fill(now)
}

// finish forgets a transaction whose last byte arrived.
func (x *receiver) finish(r *rxTxn) {
	switch r.slot {
	case slotNone:
		x.cand[r.heap].remove(r)
	case slotParked:
		x.unpark(r)
	default:
		x.leave(r)
	}
	delete(x.txns, r.key)
	x.free = append(x.free, r)
}

// leave takes an occupant out of its slot.
func (x *receiver) leave(r *rxTxn) {
	o := x.occ[r.slot]
	for i, y := range o {
		if y == r {
			x.occ[r.slot] = append(o[:i], o[i+1:]...)
			o[len(o)-1] = nil
			break
		}
	}
	r.slot = slotNone
}

// fill gives every free slot to the best candidate of its kind or, with
// Lend and none of its kind waiting, of the other kind. A candidate is
// granted in its own kind's class.
func (x *receiver) fill(now engine.Time) {
	for k := range x.occ {
		for len(x.occ[k]) < x.slots[k] {
			from := k
			if x.cand[k].len() == 0 {
				if !x.s.p.Lend || x.cand[1-k].len() == 0 {
					break
				}
				from = 1 - k
			}
			r := x.cand[from].best()
			x.cand[from].remove(r)
			r.slot = int8(k)
			r.class = x.s.pLow
			if from == slotBacklog {
				r.class = x.s.pBacklog
			}
			r.lastAt = now
			x.occ[k] = append(x.occ[k], r)
			x.grant(now, r)
		}
	}
	x.arm(now)
}

// waiting reports whether a candidate could take a slot of kind k.
func (x *receiver) waiting(k int) bool {
	return x.cand[k].len() > 0 || x.s.p.Lend && x.cand[1-k].len() > 0
}

// arm schedules the release check at the earliest time an occupant could
// be released or a parked transaction return, if candidates wait or
// transactions are parked and none is pending.
func (x *receiver) arm(now engine.Time) {
	if x.releaseAfter == 0 || x.timerAt != engine.Never {
		return
	}
	at := engine.Never
	for k := range x.occ {
		if !x.waiting(k) {
			continue
		}
		for _, o := range x.occ[k] {
			if !o.small {
				at = min(at, engine.SatAdd(o.lastAt, x.releaseAfter))
			}
		}
	}
	if len(x.parked) > 0 {
		at = min(at, x.parked[0].lastAt)
	}
	if at == engine.Never {
		return
	}
	x.timerAt = max(at, now)
	x.s.sim.At(x.timerAt, x.s, fireRelease)
}

// check releases every occupant of which no byte arrived for
// releaseAfter while a candidate waits for its slot, and returns parked
// transactions whose wait is over to the candidates.
func (x *receiver) check(now engine.Time) {
	x.timerAt = engine.Never
	for len(x.parked) > 0 && x.parked[0].lastAt <= now {
		r := x.parked[0]
		x.unpark(r)
		x.pushCand(r)
		x.preempt(now, r)
	}
	for k := range x.occ {
		if !x.waiting(k) {
			continue
		}
		for i := 0; i < len(x.occ[k]); {
			o := x.occ[k][i]
			if o.small || now < engine.SatAdd(o.lastAt, x.releaseAfter) {
				i++
				continue
			}
			x.leave(o)
			x.s.stats.GrantsRevoked++
			x.s.stats.GrantsReleased++
			o.granted = o.rcvd
			x.send(now, o, o.granted, true)
			o.slot = slotParked
			o.lastAt = engine.SatAdd(now, x.releaseAfter)
			x.parked = append(x.parked, o)
		}
	}
	x.fill(now)
}

// unpark takes r out of the parked list.
func (x *receiver) unpark(r *rxTxn) {
	for i, y := range x.parked {
		if y == r {
			x.parked = append(x.parked[:i], x.parked[i+1:]...)
			x.parked[len(x.parked):cap(x.parked)][0] = nil
			break
		}
	}
	r.slot = slotNone
}

// update applies a backlog update for transaction ord of QP qp.
func (x *receiver) update(now engine.Time, qp int32, ord uint16, backlog int) {
	r := x.txns[rxKey{int64(qp), ord}]
	if r == nil || r.small {
		x.s.stats.UpdatesStale++
		return
	}
	r.backlog = backlog
	if r.slot != slotNone {
		return // an occupant keeps its slot; a parked one is re-ranked when it returns
	}
	if r.kind() != r.heap {
		x.cand[r.heap].remove(r)
		x.pushCand(r)
	} else {
		x.cand[r.heap].fix(r)
	}
	x.preempt(now, r)
	x.fill(now)
}

// preempt lets candidate r take the slot of the least urgent occupant of
// its kind, if r is more urgent and Preempt is on.
func (x *receiver) preempt(now engine.Time, r *rxTxn) {
	k := r.kind()
	if !x.s.p.Preempt || len(x.occ[k]) < x.slots[k] {
		return
	}
	var worst *rxTxn
	for _, o := range x.occ[k] {
		if !o.small && (worst == nil || moreUrgent(worst, o)) {
			worst = o
		}
	}
	if worst == nil || !moreUrgent(r, worst) {
		return
	}
	x.leave(worst)
	x.s.stats.GrantsRevoked++
	worst.granted = worst.rcvd
	x.send(now, worst, worst.granted, true)
	x.pushCand(worst)
	x.fill(now)
}

// grant extends an occupant's grant: the whole remainder, or one chunk
// ahead of what has arrived.
func (x *receiver) grant(now engine.Time, r *rxTxn) {
	target := r.end
	if x.s.p.GrantGranularity == GrantChunk {
		if r.end != endUnknown && r.granted >= r.end || r.granted-r.rcvd >= x.s.chunk {
			return
		}
		target = max(r.granted, r.rcvd) + x.s.chunk
		if r.end != endUnknown {
			target = min(target, r.end)
		}
	}
	if target <= r.granted {
		return
	}
	r.granted = target
	x.send(now, r, target, false)
}

// send puts a grant (or revocation) for r on the wire to its sender.
func (x *receiver) send(now engine.Time, r *rxTxn, seq int64, revoke bool) {
	s := x.s
	class := r.class
	g := s.h.NewControl(int(r.src), fabric.Grant, uint8(s.p.GrantClass), uint16(s.p.GrantBytes))
	g.QP = int32(r.key.qp)
	g.Seq = seq
	g.Arg = grantArg{class: class, ord: r.key.ord, revoke: revoke}.encode()
	g.SentAt = now
	s.h.SendControl(g)
	s.stats.GrantsSent++
}
