package storm

import "github.com/dcsim/dcsim/fabric"

// Typed binary heaps with positions kept in their items, so that a QP or a
// receiver candidate can be re-ranked or removed in O(log n) and nothing
// is boxed or allocated in steady state.
//
// The same heap code stands in rnic (pacedHeap), typed for its element;
// sched/baselines uses internal/iheap. A generic heap whose order is a
// method of the type parameter was tried and measured (2026-12-01,
// interleaved benchstat, n=6): Pick 11-85% slower, because Go calls a type
// parameter's methods through a dictionary, never inlined. internal/iheap
// avoids that (keys of four int64s in an embedded iheap.Node, compared
// without calling the item), and costs SRPT and PIAS nothing, but STORM
// still measured slower with it (2026-12-02, CPU seconds of 3M decisions
// with 1,000 ready QPs, 8 interleaved runs each: storm 0.58 -> 0.65 s,
// +12%, p < 0.001; storm-sw 0.335 -> 0.40 s, +19%, p < 0.001; fair, not
// changed, 0.28 -> 0.28), so these two copies stay.

// lessQP orders eligible QPs within a class: (k1, k2, k3, id) ascending.
// Urgency order sets k1 = -backlog, k2 = remaining bytes, k3 = the stamp
// of the last service; round robin sets only k3.
func lessQP(a, b *qpState) bool {
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

// classHeaps are one heap of eligible QPs per data class.
type classHeaps struct {
	h [fabric.NumClasses][]*qpState
}

// set puts q into class c's heap with the given keys, moving it if needed.
func (hs *classHeaps) set(q *qpState, c uint8, k1, k2, k3 int64) {
	if q.class == c {
		if q.k1 != k1 || q.k2 != k2 || q.k3 != k3 {
			q.k1, q.k2, q.k3 = k1, k2, k3
			if !hs.down(c, q.idx) {
				hs.up(c, q.idx)
			}
		}
		return
	}
	hs.remove(q)
	q.k1, q.k2, q.k3 = k1, k2, k3
	q.class = c
	q.idx = len(hs.h[c])
	hs.h[c] = append(hs.h[c], q)
	hs.up(c, q.idx)
}

func (hs *classHeaps) remove(q *qpState) {
	c := q.class
	if c == 0 {
		return
	}
	h := hs.h[c]
	i, n := q.idx, len(h)-1
	if i != n {
		hs.swap(c, i, n)
	}
	h[n] = nil
	hs.h[c] = h[:n]
	if i != n && !hs.down(c, i) {
		hs.up(c, i)
	}
	q.class, q.idx = 0, -1
}

// first is the head of the highest-priority class not in paused.
func (hs *classHeaps) first(paused uint8) *qpState {
	for c := uint8(1); c < fabric.NumClasses; c++ {
		if paused&(1<<c) == 0 && len(hs.h[c]) > 0 {
			return hs.h[c][0]
		}
	}
	return nil
}

func (hs *classHeaps) swap(c uint8, i, j int) {
	h := hs.h[c]
	h[i], h[j] = h[j], h[i]
	h[i].idx = i
	h[j].idx = j
}

func (hs *classHeaps) up(c uint8, i int) {
	h := hs.h[c]
	for i > 0 {
		p := (i - 1) / 2
		if !lessQP(h[i], h[p]) {
			return
		}
		hs.swap(c, i, p)
		i = p
	}
}

func (hs *classHeaps) down(c uint8, i int) bool {
	h := hs.h[c]
	start, n := i, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && lessQP(h[r], h[l]) {
			m = r
		}
		if !lessQP(h[m], h[i]) {
			break
		}
		hs.swap(c, i, m)
		i = m
	}
	return i > start
}

// moreUrgent ranks receiver candidates: backlog desc, remaining bytes
// asc, then announcement order.
func moreUrgent(a, b *rxTxn) bool {
	switch {
	case a.backlog != b.backlog:
		return a.backlog > b.backlog
	case a.rem() != b.rem():
		return a.rem() < b.rem()
	}
	return a.seq < b.seq
}

// rxHeap is a heap of receiver candidates, most urgent first.
type rxHeap struct{ h []*rxTxn }

func (x *rxHeap) len() int      { return len(x.h) }
func (x *rxHeap) best() *rxTxn  { return x.h[0] }
func (x *rxHeap) push(r *rxTxn) { r.idx = len(x.h); x.h = append(x.h, r); x.up(r.idx) }

func (x *rxHeap) remove(r *rxTxn) {
	i, n := r.idx, len(x.h)-1
	if i != n {
		x.swap(i, n)
	}
	x.h[n] = nil
	x.h = x.h[:n]
	if i != n && !x.down(i) {
		x.up(i)
	}
	r.idx = -1
}

func (x *rxHeap) fix(r *rxTxn) {
	if !x.down(r.idx) {
		x.up(r.idx)
	}
}

func (x *rxHeap) swap(i, j int) {
	x.h[i], x.h[j] = x.h[j], x.h[i]
	x.h[i].idx = i
	x.h[j].idx = j
}

func (x *rxHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !moreUrgent(x.h[i], x.h[p]) {
			return
		}
		x.swap(i, p)
		i = p
	}
}

func (x *rxHeap) down(i int) bool {
	start, n := i, len(x.h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && moreUrgent(x.h[r], x.h[l]) {
			m = r
		}
		if !moreUrgent(x.h[m], x.h[i]) {
			break
		}
		x.swap(i, m)
		i = m
	}
	return i > start
}
