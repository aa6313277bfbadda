package iheap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type item struct {
	Node
	id  int
	key Key // what the test last gave it
}

// checkHeap verifies the heap order and that every entry's Pos points at it.
func checkHeap(t *testing.T, h *Heap[item]) {
	t.Helper()
	for i, e := range h.e {
		it := itemOf[item](e)
		if got := int(e.i) - 1; got != i {
			t.Fatalf("entry %d (item %d): pos %d, want %d", i, it.id, got, i)
		}
		if e.key != it.key {
			t.Fatalf("entry %d (item %d): key %v, want %v", i, it.id, e.key, it.key)
		}
		if i > 0 && e.key.Less(h.e[(i-1)/2].key) {
			t.Fatalf("entry %d key %v is below its parent's %v", i, e.key, h.e[(i-1)/2].key)
		}
	}
}

func TestKeyLess(t *testing.T) {
	for _, c := range []struct {
		a, b Key
		want bool
	}{
		{key(1), key(2), true}, {key(2), key(1), false}, {key(1, 5), key(1, 6), true},
		{key(1, 5, 9), key(1, 5, 8), false}, {key(0, 0, 0, -1), key(), true}, {key(3, 3, 3, 3), key(3, 3, 3, 3), false},
		{key(-1, 9, 9, 9), key(0), true},
	} {
		if got := c.a.Less(c.b); got != c.want {
			t.Errorf("%v < %v: got %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestHeapAgainstSort: random pushes, re-keys and removals; after each,
// the heap is ordered, positions are right, and Min is the smallest key of
// the items in it (a sorted copy's first).
func TestHeapAgainstSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	items := make([]*item, 200)
	for i := range items {
		items[i] = &item{id: i}
	}
	var h Heap[item]
	for step := range 20000 {
		it := items[rng.IntN(len(items))]
		k := key(rng.Int64N(8), rng.Int64N(8), 0, int64(it.id))
		switch {
		case !it.In():
			it.key = k
			h.Push(it, k)
		case rng.IntN(3) == 0:
			h.Remove(it)
			if it.In() {
				t.Fatalf("step %d: removed item %d still In", step, it.id)
			}
		default:
			it.key = k
			h.Fix(it, k)
		}
		checkHeap(t, &h)
		var in []Key
		for _, x := range items {
			if x.In() {
				in = append(in, x.key)
			}
		}
		if len(in) != h.Len() {
			t.Fatalf("step %d: Len %d, want %d", step, h.Len(), len(in))
		}
		if len(in) == 0 {
			if h.Min() != nil {
				t.Fatalf("step %d: Min of an empty heap is not nil", step)
			}
			continue
		}
		slices.SortFunc(in, func(a, b Key) int {
			if a.Less(b) {
				return -1
			}
			if b.Less(a) {
				return 1
			}
			return 0
		})
		if got := h.Min().key; got != in[0] || h.Min().Key() != in[0] {
			t.Fatalf("step %d: Min key %v (Node key %v), want %v", step, got, h.Min().Key(), in[0])
		}
	}
}

// TestHeapPopOrder pops a fixed set: the keys come out sorted.
func TestHeapPopOrder(t *testing.T) {
	keys := []Key{key(5, 1), key(3, 9), key(3, 2), key(7), key(1, 1, 1, 1), key(3, 2, 0, -4), key(0)}
	want := []Key{key(0), key(1, 1, 1, 1), key(3, 2, 0, -4), key(3, 2), key(3, 9), key(5, 1), key(7)}
	var h Heap[item]
	its := make([]item, len(keys))
	for i := range its {
		its[i].key = keys[i]
		h.Push(&its[i], keys[i])
	}
	for i, w := range want {
		m := h.Min()
		if m.key != w {
			t.Fatalf("pop %d: got %v, want %v", i, m.key, w)
		}
		h.Remove(m)
	}
	if h.Len() != 0 {
		t.Fatalf("Len after popping all: got %d, want 0", h.Len())
	}
}

func TestClasses(t *testing.T) {
	var cs Classes[item]
	a, b, c := &item{id: 1}, &item{id: 2}, &item{id: 3}
	cs.Set(a, 3, key(10))
	cs.Set(b, 3, key(5))
	cs.Set(c, 5, key(1))
	if got := cs.First(0); got != b {
		t.Errorf("First(0): got item %d, want 2 (class 3's smallest)", got.id)
	}
	if got := cs.Best(0); got != c {
		t.Errorf("Best(0): got item %d, want 3 (key 1)", got.id)
	}
	if got := cs.First(1 << 3); got != c {
		t.Errorf("First(class 3 paused): got item %d, want 3", got.id)
	}
	if got := cs.Best(1<<3 | 1<<5); got != nil {
		t.Errorf("Best(3 and 5 paused): got item %d, want nil", got.id)
	}
	cs.Set(b, 3, key(20)) // re-key in place
	if got := cs.First(0); got != a {
		t.Errorf("after re-key: First got item %d, want 1", got.id)
	}
	cs.Set(a, 5, key(1)) // move; ties with c: Best keeps the lower class's head
	if a.Class() != 5 || cs.Len(3) != 1 || cs.Len(5) != 2 {
		t.Errorf("after move: class %d, lens %d/%d, want 5, 1/2", a.Class(), cs.Len(3), cs.Len(5))
	}
	cs.Set(b, 1, key(1))
	if got := cs.Best(0); got != b {
		t.Errorf("Best on a tie of keys: got item %d, want 2 (the lower class)", got.id)
	}
	cs.Remove(b)
	cs.Remove(b) // not in any: a no-op
	if b.In() || b.Class() != 0 || cs.Len(1) != 0 {
		t.Errorf("after Remove: In %v class %d len %d, want false 0 0", b.In(), b.Class(), cs.Len(1))
	}
}

// TestSteadyStateAllocs: re-keying and re-adding allocate nothing once the
// heap has grown.
func TestSteadyStateAllocs(t *testing.T) {
	var h Heap[item]
	its := make([]item, 64)
	for i := range its {
		h.Push(&its[i], key(int64(i)))
	}
	n := int64(0)
	allocs := testing.AllocsPerRun(1000, func() {
		it := h.Min()
		h.Remove(it)
		n++
		h.Push(it, key(n+64))
		h.Fix(&its[n%64], key(n))
	})
	if allocs != 0 {
		t.Errorf("got %v allocs per run, want 0", allocs)
	}
}

// TestLayoutChecked: an item type without a Node first is refused at the
// first Push, not misread.
func TestLayoutChecked(t *testing.T) {
	type bad struct {
		x int64
		Node
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("Push of a type whose Node is not first: got no panic")
		}
	}()
	var h Heap[bad]
	h.Push(&bad{}, key())
}

// key is a Key of its leading fields.
func key(v ...int64) Key {
	var k [4]int64
	copy(k[:], v)
	return Key{k[0], k[1], k[2], k[3]}
}
