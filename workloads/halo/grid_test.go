package halo

import (
	"reflect"
	"testing"
)

func TestGridPairs(t *testing.T) {
	for _, tc := range []struct {
		g     Grid
		pairs int
	}{
		{Grid{X: 2, Y: 1, Z: 1}, 2},
		{Grid{X: 3, Y: 3, Z: 3}, 2 * (3 * 2 * 9)}, // 54 faces, both directions
		{Grid{X: 3, Y: 3, Z: 3, Periodic: true}, 27 * 6},
		{Grid{X: 2, Y: 2, Z: 2, Periodic: true}, 8 * 3}, // a side of 2 wraps onto the same neighbour
		{Grid{X: 4, Y: 2, Z: 1}, 2 * (3*2 + 4)},
	} {
		ps := tc.g.Pairs()
		if len(ps) != tc.pairs {
			t.Errorf("%+v: got %d ordered pairs, want %d", tc.g, len(ps), tc.pairs)
		}
		set := map[Pair]bool{}
		for _, p := range ps {
			if set[p] {
				t.Errorf("%+v: pair %v twice", tc.g, p)
			}
			set[p] = true
		}
		for _, p := range ps {
			if !set[Pair{p.Dst, p.Src}] {
				t.Errorf("%+v: %v has no reverse", tc.g, p)
			}
		}
	}
	got := Grid{X: 2, Y: 2, Z: 1}.Pairs()
	want := []Pair{{0, 1}, {0, 2}, {1, 0}, {1, 3}, {2, 3}, {2, 0}, {3, 2}, {3, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("2x2x1 pairs: got %v, want %v", got, want)
	}
}

func TestWriteSpans(t *testing.T) {
	for _, tc := range []struct {
		tail, n int64
		want    []Span
	}{
		{0, 64, []Span{{0, 64}}},
		{4032, 64, []Span{{4032, 64}}},
		{4064, 64, []Span{{4064, 32}, {0, 32}}},
		{8192 + 10, 5, []Span{{10, 5}}},
	} {
		if got := WriteSpans(tc.tail, tc.n, 4096); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("WriteSpans(%d, %d, 4096): got %v, want %v", tc.tail, tc.n, got, tc.want)
		}
	}
	if got := Free(4096+100, 100, 4096); got != 0 {
		t.Errorf("Free of a full ring: got %d, want 0", got)
	}
}
