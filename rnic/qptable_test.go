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
		tb.open(id, qps[id])
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

// TestQPTableWorldPages: on a World a table counts live receive states
// only, since most of its unit's QPs may be received on other threads: a
// page of its own unit is freed once its QPs closed and no receive state
// here is live, whatever slots never started one; another unit's table
// (no QP opens in it) gets pages on demand and keeps them.
func TestQPTableWorldPages(t *testing.T) {
	own := qpTable{world: true}
	live := &rxQP{}
	for seq := int64(1); seq < 2*qpPageSize; seq++ {
		own.open(seq, &QP{ID: seq})
	}
	// Page 1: every third QP is received on this thread.
	for seq := int32(qpPageSize); seq < 2*qpPageSize; seq += 3 {
		own.setRx(seq, live)
	}
	for seq := int64(qpPageSize); seq < 2*qpPageSize; seq++ {
		own.close(seq)
	}
	if own.pages[1] == nil {
		t.Fatalf("page 1 freed with receive states live, want it kept")
	}
	for seq := int32(qpPageSize); seq < 2*qpPageSize; seq += 3 {
		own.setRx(seq, finishedRx)
	}
	if pg := own.pages[1]; pg != nil {
		t.Fatalf("page 1: got kept (closed %d, live %d), want freed", pg.closed, pg.unfinished)
	}
	if got := own.rx(qpPageSize + 1); got != finishedRx {
		t.Errorf("rx in a freed page = %p, want finishedRx", got)
	}

	foreign := qpTable{world: true}
	if got := foreign.rx(3*qpPageSize + 2); got != nil {
		t.Errorf("rx before any packet = %p, want nil", got)
	}
	foreign.setRx(3*qpPageSize+2, live)
	if got, other := foreign.rx(3*qpPageSize+2), foreign.rx(5); got != live || other != nil {
		t.Errorf("after the first packet: rx = %p and %p, want %p and nil", got, other, live)
	}
	foreign.setRx(3*qpPageSize+2, finishedRx)
	if len(foreign.pages) != 4 || foreign.pages[3] == nil || foreign.pages[3].unfinished != 0 {
		t.Errorf("another unit's table: %d pages, want 4 kept with none live", len(foreign.pages))
	}
	// Its unit's thread says every QP of pages 2 and 3 closed
	// (pageNotice): both are freed, none of their slots being live; a
	// page beyond the table stays absent.
	foreign.setRx(2*qpPageSize+7, live)
	foreign.closedElsewhere(3)
	foreign.closedElsewhere(2)
	foreign.closedElsewhere(9)
	if foreign.pages[3] != nil || foreign.rx(3*qpPageSize+2) != finishedRx {
		t.Errorf("page 3 kept after its notice, or its receive state lost (%p)", foreign.rx(3*qpPageSize+2))
	}
	if foreign.pages[2] == nil || len(foreign.pages) != 4 {
		t.Fatalf("page 2 freed with a receive state live, or the table grew to %d pages", len(foreign.pages))
	}
	foreign.setRx(2*qpPageSize+7, finishedRx)
	if foreign.pages[2] != nil {
		t.Errorf("page 2 kept once its last receive state ended")
	}
}
