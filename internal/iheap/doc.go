// Package iheap is an indexed binary min-heap: each item keeps its place,
// so that it can be re-keyed or removed in O(log n), and nothing is boxed
// or allocated in steady state.
//
// An item type embeds a Node as its first field. The Node holds the item's
// Key (four int64s compared lexicographically; a struct, which Go keeps in
// registers, where an array of four is copied through memory at every
// comparison) and its index in the heap,
// so the heap is a slice of *Node: comparisons read the keys through the
// pointers and a move writes the new index, as a heap written by hand for
// the type does, and the type parameter T only converts a *Node back to
// the *T that holds it (the first Push checks, once per heap, that T
// starts with a Node, so that the conversion is sound). No method of T is
// ever called: a generic heap whose order was a method of the type
// parameter was tried first and made a scheduler's Pick slower, because
// Go calls a type parameter's methods through a dictionary and never
// inlines them (measurements: docs/performance-notes.md, section 3.4).
//
// The caller gives the key whenever it changes (Fix, Classes.Set). The
// algorithms are the hand-written heaps' own (sift up on a strict less,
// sift down preferring the left child on ties, removal by swapping with
// the last entry), so that equal keys break the same way and a scheduler
// moved onto this package makes the same decisions.
//
// Classes is one heap per data class (NumClasses, fabric's eight; class
// 0 means "in no heap"), with the two reads a scheduler makes: the head of
// the highest-priority unpaused class (First) and the smallest key over
// the unpaused heads (Best).
//
// sched/baselines (SRPT, PIAS) and sched/storm (class heaps and receiver
// candidates) use it, at the CPU cost of their hand-written heaps
// (sched/storm/heap.go has the figures). rnic's pacing heap is left to the NIC's split into requester
// and responder.
//
//	type qp struct {
//		iheap.Node
//		remaining int64
//	}
//	var h iheap.Heap[qp]
//	h.Push(q, iheap.Key{A: q.remaining, B: id})
//	best := h.Min()
//	h.Fix(q, iheap.Key{A: q.remaining - 1000, B: id})
//	h.Remove(q)
package iheap
