// Package iheap is a binary min-heap of pointers whose elements keep their
// own position, so that an element can be re-ranked or removed in
// O(log n): the schedulers' per-class QP heaps, STORM's receiver
// candidates and the NIC's paced QPs. It allocates nothing once its slice
// has grown to the peak number of elements, and its zero value is an empty
// heap.
//
// The element type supplies the order and the position field through
// methods on its pointer (an unexported type can satisfy Elem, or a
// defined type over an exported one, so that no exported API grows a Less
// method). The order must be total (break ties by an id): the heap is
// deterministic only if no two elements compare equal.
package iheap

// Elem is a pointer to T that orders itself against another and holds its
// index in the heap (-1 when in none).
type Elem[T any] interface {
	*T
	Less(other *T) bool
	Index() *int
}

// Heap is a binary min-heap by Less. The zero value is empty.
type Heap[T any, P Elem[T]] struct {
	h []P
}

// Len is the number of elements.
func (x *Heap[T, P]) Len() int { return len(x.h) }

// Min is the least element; the heap must not be empty.
func (x *Heap[T, P]) Min() P { return x.h[0] }

// Push adds e, which must not be in a heap.
func (x *Heap[T, P]) Push(e P) {
	*e.Index() = len(x.h)
	x.h = append(x.h, e)
	x.up(len(x.h) - 1)
}

// Pop removes and returns the least element; the heap must not be empty.
func (x *Heap[T, P]) Pop() P {
	e := x.h[0]
	x.removeAt(0)
	return e
}

// Remove takes e, which must be in this heap, out of it.
func (x *Heap[T, P]) Remove(e P) { x.removeAt(*e.Index()) }

// Fix restores the order after e's key changed.
func (x *Heap[T, P]) Fix(e P) {
	if i := *e.Index(); !x.down(i) {
		x.up(i)
	}
}

func (x *Heap[T, P]) removeAt(i int) {
	e := x.h[i]
	n := len(x.h) - 1
	if i != n {
		x.swap(i, n)
	}
	x.h[n] = nil
	x.h = x.h[:n]
	if i != n && !x.down(i) {
		x.up(i)
	}
	*e.Index() = -1
}

func (x *Heap[T, P]) swap(i, j int) {
	h := x.h
	h[i], h[j] = h[j], h[i]
	*h[i].Index() = i
	*h[j].Index() = j
}

func (x *Heap[T, P]) up(i int) {
	h := x.h
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].Less(h[p]) {
			return
		}
		x.swap(i, p)
		i = p
	}
}

// down sifts i towards the leaves, reporting whether it moved.
func (x *Heap[T, P]) down(i int) bool {
	h := x.h
	start, n := i, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].Less(h[l]) {
			m = r
		}
		if !h[m].Less(h[i]) {
			break
		}
		x.swap(i, m)
		i = m
	}
	return i > start
}
