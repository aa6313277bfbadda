package iheap

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Key orders items: lexicographically by A, B, C, D, smallest first.
// Unused trailing fields are 0. A struct of four words, which Go keeps in
// registers, rather than an array, which it copies through memory.
type Key struct{ A, B, C, D int64 }

// Less reports whether a orders before b.
func (a Key) Less(b Key) bool {
	switch {
	case a.A != b.A:
		return a.A < b.A
	case a.B != b.B:
		return a.B < b.B
	case a.C != b.C:
		return a.C < b.C
	}
	return a.D < b.D
}

// Node is what the heap keeps of an item: its key and its place. An item
// type embeds a Node as its first field (Push checks that once per heap),
// so that the heap holds plain pointers and reads keys through them, as a
// heap written for the type would.
type Node struct {
	key   Key
	i     int32 // index in the heap + 1; 0: in none
	class uint8 // Classes: the item's class; 0: in none
}

// In reports whether the item is in a heap.
func (n *Node) In() bool { return n.i > 0 }

// Class is the item's class in a Classes (0: in none).
func (n *Node) Class() uint8 { return n.class }

// Key is the item's key (the last one it was given).
func (n *Node) Key() Key { return n.key }

// Heap is a min-heap of *T by Key, T being a struct whose first field is a
// Node. The zero Heap is empty and ready.
type Heap[T any] struct {
	e       []*Node
	checked bool
}

func nodeOf[T any](t *T) *Node  { return (*Node)(unsafe.Pointer(t)) }
func itemOf[T any](n *Node) *T  { return (*T)(unsafe.Pointer(n)) }
func checkLayout[T any]() error { return layoutError(reflect.TypeFor[T]()) }

var nodeType = reflect.TypeFor[Node]()

func layoutError(t reflect.Type) error {
	if t.Kind() != reflect.Struct || t.NumField() == 0 || t.Field(0).Type != nodeType || t.Field(0).Offset != 0 {
		return fmt.Errorf("iheap: %v does not have an iheap.Node as its first field", t)
	}
	return nil
}

// Len is the number of items.
func (h *Heap[T]) Len() int { return len(h.e) }

// Min is the item with the smallest key, or nil when empty.
func (h *Heap[T]) Min() *T {
	if len(h.e) == 0 {
		return nil
	}
	return itemOf[T](h.e[0])
}

// Push adds item, which must not be in a heap, with key k.
func (h *Heap[T]) Push(item *T, k Key) {
	if !h.checked {
		if err := checkLayout[T](); err != nil {
			panic(err)
		}
		h.checked = true
	}
	n := nodeOf(item)
	n.key = k
	h.e = append(h.e, n)
	n.i = int32(len(h.e))
	h.up(len(h.e) - 1)
}

// Remove takes item out of h (it must be in h).
func (h *Heap[T]) Remove(item *T) { h.remove(nodeOf(item)) }

func (h *Heap[T]) remove(nd *Node) {
	i, n := int(nd.i-1), len(h.e)-1
	if i != n {
		h.swap(i, n)
	}
	h.e[n] = nil
	h.e = h.e[:n]
	if i != n && !h.down(i) {
		h.up(i)
	}
	nd.i = 0
}

// Fix gives item (in h) key k and restores the order.
func (h *Heap[T]) Fix(item *T, k Key) { h.fix(nodeOf(item), k) }

func (h *Heap[T]) fix(n *Node, k Key) {
	n.key = k
	i := int(n.i - 1)
	if !h.down(i) {
		h.up(i)
	}
}

func (h *Heap[T]) swap(i, j int) {
	e := h.e
	e[i], e[j] = e[j], e[i]
	e[i].i = int32(i) + 1
	e[j].i = int32(j) + 1
}

func (h *Heap[T]) up(i int) {
	e := h.e
	for i > 0 {
		p := (i - 1) / 2
		if !e[i].key.Less(e[p].key) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

// down sifts entry i down and reports whether it moved.
func (h *Heap[T]) down(i int) bool {
	e := h.e
	start, n := i, len(e)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && e[r].key.Less(e[l].key) {
			m = r
		}
		if !e[m].key.Less(e[i].key) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

// NumClasses is the number of data classes, fabric.NumClasses (each user
// checks at compile time that they agree).
const NumClasses = 8

// Classes is one Heap per class 1..NumClasses-1; an item is in at most one.
type Classes[T any] struct {
	h [NumClasses]Heap[T]
}

// Len is the number of items in class c.
func (cs *Classes[T]) Len(c uint8) int { return cs.h[c].Len() }

// Set puts item in class c (>= 1) with key k, moving it from the class it
// was in, or re-keying it in place when c is its class and k changed.
func (cs *Classes[T]) Set(item *T, c uint8, k Key) {
	n := nodeOf(item)
	if n.class == c {
		if n.key != k {
			cs.h[c].fix(n, k)
		}
		return
	}
	cs.Remove(item)
	n.class = c
	cs.h[c].Push(item, k)
}

// Remove takes item out of its class, if it is in one.
func (cs *Classes[T]) Remove(item *T) {
	n := nodeOf(item)
	if n.class == 0 {
		return
	}
	cs.h[n.class].remove(n)
	n.class = 0
}

// First is the head of the highest-priority (lowest-numbered) class not in
// the bit mask paused, or nil.
func (cs *Classes[T]) First(paused uint8) *T {
	for c := uint8(1); c < NumClasses; c++ {
		if paused&(1<<c) == 0 && len(cs.h[c].e) > 0 {
			return itemOf[T](cs.h[c].e[0])
		}
	}
	return nil
}

// Best is the item with the smallest key over the heads of every class not
// in paused, the lower class on equal keys, or nil.
func (cs *Classes[T]) Best(paused uint8) *T {
	var b *Node
	for c := uint8(1); c < NumClasses; c++ {
		if paused&(1<<c) == 0 && len(cs.h[c].e) > 0 && (b == nil || cs.h[c].e[0].key.Less(b.key)) {
			b = cs.h[c].e[0]
		}
	}
	if b == nil {
		return nil
	}
	return itemOf[T](b)
}
