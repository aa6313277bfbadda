package storm

import (
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/iheap"
)

// Binary heaps with positions kept in their items (internal/iheap), so
// that a QP or a receiver candidate can be re-ranked or removed in
// O(log n) and nothing is boxed or allocated in steady state.

// Less orders eligible QPs within a class: (k1, k2, k3, id) ascending.
// Urgency order sets k1 = -backlog, k2 = remaining bytes, k3 = the stamp
// of the last service; round robin sets only k3.
func (a *qpState) Less(b *qpState) bool {
	switch {
	case a.k1 != b.k1:
		return a.k1 < b.k1
	case a.k2 != b.k2:
		return a.k2 < b.k2
	case a.k3 != b.k3:
		return a.k3 < b.k3
	}
	return a.id < b.id
}

func (a *qpState) Index() *int { return &a.idx }

// classHeaps are one heap of eligible QPs per data class.
type classHeaps struct {
	h [fabric.NumClasses]iheap.Heap[qpState, *qpState]
}

// set puts q into class c's heap with the given keys, moving it if needed.
func (hs *classHeaps) set(q *qpState, c uint8, k1, k2, k3 int64) {
	if q.class == c {
		if q.k1 != k1 || q.k2 != k2 || q.k3 != k3 {
			q.k1, q.k2, q.k3 = k1, k2, k3
			hs.h[c].Fix(q)
		}
		return
	}
	hs.remove(q)
	q.k1, q.k2, q.k3 = k1, k2, k3
	q.class = c
	hs.h[c].Push(q)
}

func (hs *classHeaps) remove(q *qpState) {
	if q.class == 0 {
		return
	}
	hs.h[q.class].Remove(q)
	q.class = 0
}

// first is the head of the highest-priority class not in paused.
func (hs *classHeaps) first(paused uint8) *qpState {
	for c := uint8(1); c < fabric.NumClasses; c++ {
		if paused&(1<<c) == 0 && hs.h[c].Len() > 0 {
			return hs.h[c].Min()
		}
	}
	return nil
}

// Less ranks receiver candidates, most urgent first: backlog desc,
// remaining bytes asc, then announcement order.
func (a *rxTxn) Less(b *rxTxn) bool {
	switch {
	case a.backlog != b.backlog:
		return a.backlog > b.backlog
	case a.rem() != b.rem():
		return a.rem() < b.rem()
	}
	return a.seq < b.seq
}

func (a *rxTxn) Index() *int { return &a.idx }

// rxHeap is a heap of receiver candidates, most urgent first.
type rxHeap = iheap.Heap[rxTxn, *rxTxn]
