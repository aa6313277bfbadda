package engine

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
)

// barrierToy is a model whose global state is a Barrier: each unit's
// nodes report to it (a buffer per unit) and go quiet; the barrier keeps
// work of its own (a wake a third of a lookahead after each report) and,
// at each wake, schedules a node of another unit one lookahead later, as
// SimAI's executor posts a transfer after a completion.
type barrierToy struct {
	w      *World
	la     Time
	notes  [][]Time // per unit: the times its nodes reported
	work   []barrierWork
	seq    int
	trace  uint64
	nodes  [][]*barrierNode
	budget int // reports left before the barrier stops scheduling
}

type barrierWork struct {
	at   Time
	seq  int
	unit int
}

type barrierNode struct {
	m    *barrierToy
	unit int
	id   int
}

func (n *barrierNode) Fire(now Time, kind uint8) {
	n.m.notes[n.unit] = append(n.m.notes[n.unit], now)
	if kind == 1 { // a local successor at zero delay: a same-time tie
		n.m.w.Sim(n.unit).At(now, n.m.nodes[n.unit][(n.id+1)%len(n.m.nodes[n.unit])], 0)
	}
}

func (m *barrierToy) Next() Time {
	if len(m.work) == 0 {
		return Never
	}
	return m.work[0].at
}

func (m *barrierToy) push(at Time, unit int) {
	m.work = append(m.work, barrierWork{at, m.seq, unit})
	m.seq++
	slices.SortFunc(m.work, func(a, b barrierWork) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
}

func (m *barrierToy) At(w *World, end Time) {
	for u := range m.notes { // in unit order, each unit's in its order
		for _, t := range m.notes[u] {
			if m.budget > 0 {
				m.budget--
				m.push(t+m.la/3, u)
			}
		}
		m.notes[u] = m.notes[u][:0]
	}
	for len(m.work) > 0 && m.work[0].at < end {
		x := m.work[0]
		m.work = m.work[1:]
		m.trace = m.trace*1099511628211 ^ uint64(x.at)*31 ^ uint64(x.unit)
		dst := (x.unit*7 + int(m.trace%5)) % len(m.nodes)
		w.Schedule(dst, x.at+m.la, m.nodes[dst][int(m.trace>>8)%len(m.nodes[dst])], uint8(m.trace>>16)%2)
	}
}

func newBarrierToy(t *testing.T, units int, first []int32) *barrierToy {
	t.Helper()
	la := 1000 * Picosecond
	w, err := NewWorldSplit(3, first, la)
	if err != nil {
		t.Fatal(err)
	}
	m := &barrierToy{w: w, la: la, notes: make([][]Time, units), budget: 2000}
	m.nodes = make([][]*barrierNode, units)
	for u := range units {
		for j := range 3 {
			m.nodes[u] = append(m.nodes[u], &barrierNode{m: m, unit: u, id: j})
		}
	}
	w.SetBarrier(m)
	for u := range units {
		w.Schedule(u, Time(u%3)*la/4, m.nodes[u][0], uint8(u%2))
	}
	return m
}

// A Barrier's work and what it schedules are the same for every split of
// the units among threads; windows open at its own work when no unit has
// an event, and Run reports the world drained only once it has none.
func TestWorldBarrierSameForEveryThreadCount(t *testing.T) {
	const units = 9
	var want string
	for _, first := range splits(units) {
		m := newBarrierToy(t, units, first)
		if !m.w.Run(Never - 1) {
			t.Fatalf("split %v: Run did not drain", first)
		}
		got := fmt.Sprintf("%x events=%d now=%v budget=%d", m.trace, m.w.Events(), m.w.Now(), m.budget)
		if want == "" {
			want = got
			if m.budget != 0 || m.w.Events() < 2000 {
				t.Fatalf("toy too small: %s", got)
			}
			continue
		}
		if got != want {
			t.Fatalf("split %v:\n got %s\nwant %s", first, got, want)
		}
	}
}

// Schedule refuses a time before the barrier's window end, and a call
// from inside a window.
func TestWorldScheduleBounds(t *testing.T) {
	m := newBarrierToy(t, 3, []int32{0, 3})
	expectPanic(t, "before the window's end", func() { m.w.barrierEnd = 5000; m.w.Schedule(0, 4000, m.nodes[0][0], 0) })
	m.w.barrierEnd = 0
	m.w.winEnd = 1000
	expectPanic(t, "during a window", func() { m.w.Schedule(0, 4000, m.nodes[0][0], 0) })
}

func expectPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}
