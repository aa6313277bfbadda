package cloud

import (
	"fmt"
	"sort"

	"github.com/dcsim/dcsim/engine"
)

// Flow is one message: Size bytes from host Src to host Dst, posted at
// Start. Generator names the generator that made it (flows.parquet column
// "generator"); Tag is workload-defined ("incast-3", "fanout-17", or "").
type Flow struct {
	Src, Dst  int
	Size      int64
	Start     engine.Time
	Generator string
	Tag       string
}

// Generator yields flows in non-decreasing Start order. Next returns false
// once the generator is exhausted, and keeps returning false after that.
// Generators are pull-based and deterministic: the same configuration and
// random stream give the same flows.
type Generator interface {
	Next() (Flow, bool)
}

// NewFlowList returns a generator over a copy of flows, stably sorted by
// Start (so flows that start together keep their given order).
func NewFlowList(flows []Flow) Generator {
	l := &flowList{flows: append([]Flow(nil), flows...)}
	sort.SliceStable(l.flows, func(i, j int) bool { return l.flows[i].Start < l.flows[j].Start })
	return l
}

type flowList struct {
	flows []Flow
	next  int
}

func (l *flowList) Next() (Flow, bool) {
	if l.next >= len(l.flows) {
		return Flow{}, false
	}
	f := l.flows[l.next]
	l.next++
	return f, true
}

// Merge interleaves generators by Start; flows that start at the same time
// come from the lower-indexed generator first, and each generator's own
// order is kept. It looks at every generator's head on each call
// (O(len(gens)) per flow), which suits the handful a scenario combines.
// Merge panics if an input generator goes back in time: that is a bug in
// the generator, not bad input.
func Merge(gens ...Generator) Generator {
	m := &merged{gens: append([]Generator(nil), gens...), heads: make([]mergeHead, len(gens))}
	for i, g := range m.gens {
		m.heads[i].flow, m.heads[i].ok = g.Next()
	}
	return m
}

type mergeHead struct {
	flow Flow
	ok   bool
}

type merged struct {
	gens  []Generator
	heads []mergeHead
}

func (m *merged) Next() (Flow, bool) {
	best := -1
	for i := range m.heads {
		h := &m.heads[i]
		if h.ok && (best < 0 || h.flow.Start < m.heads[best].flow.Start) {
			best = i
		}
	}
	if best < 0 {
		return Flow{}, false
	}
	h := &m.heads[best]
	out := h.flow
	h.flow, h.ok = m.gens[best].Next()
	if h.ok && h.flow.Start < out.Start {
		panic(fmt.Sprintf("cloud: generator %d (%q) went back in time: flow at %v after %v",
			best, h.flow.Generator, h.flow.Start, out.Start))
	}
	return out, true
}
