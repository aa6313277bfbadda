package rnic

import "testing"

// TestQPTablePages: a page is freed once every id in it has closed and
// every receive state has ended (finishedRx); a lookup there finds no QP
// and finishedRx, as the slots held; setting a receive state there brings
// the page back as it was.
func TestQPTablePages(t *testing.T) {
	var tb qpTable
	const n = 3 * qpPageSize
	qps := make([]*QP, n+1)
	live := &rxQP{}
	for id := int64(1); id <= n; id++ {
		qps[id] = &QP{ID: id}
		tb.open(qps[id])
		tb.setRx(int32(id), live)
	}
	for id := int64(1); id <= n; id++ {
		if got := tb.qp(int32(id)); got != qps[id] {
			t.Fatalf("qp(%d) = %p, want %p", id, got, qps[id])
		}
	}
	if got := tb.rx(n + 1); got != nil {
		t.Errorf("rx(%d) beyond the last page = %p, want nil", n+1, got)
	}
	// Page 1 (ids 1024..2047): every QP closes, and all receive states
	// but one end.
	for id := int64(qpPageSize); id < 2*qpPageSize; id++ {
		tb.close(id)
		if id != qpPageSize+7 {
			tb.setRx(int32(id), finishedRx)
		}
	}
	if tb.pages[1] == nil {
		t.Fatalf("page 1 freed with a receive state running, want it kept")
	}
	tb.setRx(qpPageSize+7, finishedRx)
	if tb.pages[1] != nil {
		t.Fatalf("page 1: got kept (closed %d, unfinished %d), want freed", tb.pages[1].closed, tb.pages[1].unfinished)
	}
	if got := tb.qp(qpPageSize + 5); got != nil {
		t.Errorf("qp(%d) in a freed page = %p, want nil", qpPageSize+5, got)
	}
	if got := tb.rx(qpPageSize + 6); got != finishedRx {
		t.Errorf("rx(%d) in a freed page = %p, want finishedRx", qpPageSize+6, got)
	}
	// A receive state set in a freed page brings it back, the other slots
	// still finished; it goes again when that state ends.
	tb.setRx(qpPageSize+6, live)
	if got, other := tb.rx(qpPageSize+6), tb.rx(qpPageSize+9); got != live || other != finishedRx {
		t.Errorf("after a set in a freed page: rx = %p and %p, want %p and finishedRx", got, other, live)
	}
	tb.setRx(qpPageSize+6, finishedRx)
	if tb.pages[1] != nil {
		t.Errorf("page 1 after the state ended again: got kept, want freed")
	}
	// Page 0 holds id 0, which never opens: it stays.
	for id := int64(1); id < qpPageSize; id++ {
		tb.close(id)
		tb.setRx(int32(id), finishedRx)
	}
	if tb.pages[0] == nil {
		t.Errorf("page 0 freed, want kept (id 0 never opens)")
	}
	if got := tb.qp(2*qpPageSize + 1); got != qps[2*qpPageSize+1] {
		t.Errorf("qp(%d) on an untouched page = %p, want %p", 2*qpPageSize+1, got, qps[2*qpPageSize+1])
	}
}
