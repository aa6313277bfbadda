package counters

import "testing"

func TestAdd(t *testing.T) {
	type k struct{ A, B int64 }
	x, y := k{1, 2}, k{10, 20}
	Add(&x, &y)
	if x != (k{11, 22}) || y != (k{10, 20}) {
		t.Fatalf("got %+v and %+v, want {11 22} and {10 20}", x, y)
	}
}
