package storm

import (
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/iheap"
)

// The scheduler's heaps are internal/iheap's, keyed here: the class heaps
// of eligible QPs by (k1, k2, k3, id) ascending (urgency order sets k1 =
// -backlog, k2 = remaining bytes, k3 = the stamp of the last service;
// round robin sets only k3), and the receiver's candidate heaps most
// urgent first: backlog descending, remaining bytes ascending, then
// announcement order. An rxTxn's key follows its live fields, so every
// change to its backlog, end or received offset while it is a candidate is
// followed by fix (or a remove).
//
// These were two hand-written heaps. On internal/iheap STORM's Pick costs
// the same CPU, because iheap's Key is a struct of four int64s kept in
// registers, not an array that Go copies through memory at every
// comparison (measurements: docs/performance-notes.md, section 4, "the
// schedulers' heaps").

// classHeaps are one heap of eligible QPs per data class.
type classHeaps struct {
	h iheap.Classes[qpState]
}

// set puts q into class c's heap with the given keys, moving it if needed.
func (hs *classHeaps) set(q *qpState, c uint8, k1, k2, k3 int64) {
	hs.h.Set(q, c, iheap.Key{A: k1, B: k2, C: k3, D: q.id})
}

func (hs *classHeaps) remove(q *qpState) { hs.h.Remove(q) }

// first is the head of the highest-priority class not in paused.
func (hs *classHeaps) first(paused uint8) *qpState { return hs.h.First(paused) }

// urgency is a receiver candidate's key.
func (r *rxTxn) urgency() iheap.Key { return iheap.Key{A: -int64(r.backlog), B: r.rem(), C: r.seq} }

// rxHeap is a heap of receiver candidates, most urgent first.
type rxHeap struct{ h iheap.Heap[rxTxn] }

func (x *rxHeap) len() int        { return x.h.Len() }
func (x *rxHeap) best() *rxTxn    { return x.h.Min() }
func (x *rxHeap) push(r *rxTxn)   { x.h.Push(r, r.urgency()) }
func (x *rxHeap) remove(r *rxTxn) { x.h.Remove(r) }
func (x *rxHeap) fix(r *rxTxn)    { x.h.Fix(r, r.urgency()) }

// moreUrgent ranks receiver transactions as the candidate heaps do, on
// their live fields.
func moreUrgent(a, b *rxTxn) bool { return a.urgency().Less(b.urgency()) }

// iheap's classes are the fabric's (this fails to compile otherwise).
const _ = uint(iheap.NumClasses-fabric.NumClasses) + uint(fabric.NumClasses-iheap.NumClasses)
