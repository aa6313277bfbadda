package iheap

import (
	"cmp"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

type item struct {
	key, id int64
	idx     int
}

func (a *item) Less(b *item) bool { return a.key < b.key || (a.key == b.key && a.id < b.id) }
func (a *item) Index() *int       { return &a.idx }

func order(a, b *item) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// Any sequence of pushes, pops, removals and re-keyings leaves the heap
// holding exactly the live elements, each knowing its index, with Min the
// least of them; popping everything at the end yields them in order.
func TestHeapMatchesSortedSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var h Heap[item, *item]
		var live []*item
		nextID := int64(0)
		for range rapid.IntRange(0, 200).Draw(t, "ops") {
			switch op := rapid.IntRange(0, 3).Draw(t, "op"); {
			case op == 0 || len(live) == 0:
				it := &item{key: rapid.Int64Range(0, 20).Draw(t, "key"), id: nextID}
				nextID++
				h.Push(it)
				live = append(live, it)
			case op == 1:
				got := h.Pop()
				want := slices.MinFunc(live, order)
				if got != want {
					t.Fatalf("Pop = %+v, want %+v", *got, *want)
				}
				if got.idx != -1 {
					t.Fatalf("popped element keeps index %d", got.idx)
				}
				live = slices.DeleteFunc(live, func(e *item) bool { return e == got })
			case op == 2:
				i := rapid.IntRange(0, len(live)-1).Draw(t, "remove")
				h.Remove(live[i])
				live = slices.Delete(live, i, i+1)
			default:
				e := live[rapid.IntRange(0, len(live)-1).Draw(t, "rekey")]
				e.key = rapid.Int64Range(0, 20).Draw(t, "newkey")
				h.Fix(e)
			}
			if h.Len() != len(live) {
				t.Fatalf("Len %d, want %d", h.Len(), len(live))
			}
			for i, e := range h.h {
				if e.idx != i {
					t.Fatalf("element at %d believes it is at %d", i, e.idx)
				}
			}
			if len(live) > 0 && h.Min() != slices.MinFunc(live, order) {
				t.Fatalf("Min is not the least element")
			}
		}
		slices.SortFunc(live, order)
		for _, want := range live {
			if got := h.Pop(); got != want {
				t.Fatalf("drain: got %+v, want %+v", *got, *want)
			}
		}
	})
}

func BenchmarkHeap(b *testing.B) {
	var h Heap[item, *item]
	items := make([]item, 1024)
	for i := range items {
		items[i] = item{key: int64(i * 7919 % 1024), id: int64(i)}
		h.Push(&items[i])
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e := h.Pop()
		e.key += 1024
		h.Push(e)
	}
}
