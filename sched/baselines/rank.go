package baselines

import (
	"fmt"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/iheap"
	"github.com/dcsim/dcsim/rnic"
)

// ranked is one QP's place in a classHeaps: its class, position and sort
// key (k1, id). SRPT and PIAS keep one per QP in rnic.QP.SchedState.
type ranked struct {
	iheap.Node // heap the QP is in (class 0 = none), its place and key; first, as iheap needs
	qp         *rnic.QP
	id         int64

	stamp   int64 // PIAS: decision count when last served (round robin)
	maxSent int64 // highest stream offset sent + 1 (in-order guard)
	stalled bool  // the guard holds the QP back
}

// rankedBase is what SRPT and PIAS share: a ranked state per QP in
// per-class heaps and the guard's stall count.
type rankedBase struct {
	rnic.SchedulerBase
	heaps  classHeaps
	stalls int64
}

// QPOpened implements rnic.Scheduler.
func (s *rankedBase) QPOpened(qp *rnic.QP) { qp.SchedState = &ranked{qp: qp, id: qp.ID} }

// ReleasesQPs implements rnic.Releaser: QPClosed drops the QP's state.
func (s *rankedBase) ReleasesQPs() {}

// QPClosed implements rnic.Scheduler.
func (s *rankedBase) QPClosed(qp *rnic.QP) {
	s.heaps.remove(qp.SchedState.(*ranked))
	qp.SchedState = nil
}

// place puts r in class's heap with key k1 when the guard lets it send
// (ok), else takes it out of the heaps, counting a stall when the guard
// is what holds back a QP that has something to send.
func (s *rankedBase) place(r *ranked, class uint8, k1 int64, ok bool) {
	if !ok {
		if r.qp.Ready() && r.qp.HOL() != nil && !r.stalled {
			r.stalled = true
			s.stalls++
		}
		s.heaps.remove(r)
		return
	}
	r.stalled = false
	s.heaps.set(r, class, k1)
}

// picked is Pick's answer for the heaps' choice r, which may be nil.
func (r *ranked) picked() (*rnic.QP, uint8) {
	if r == nil {
		return nil, 0
	}
	return r.qp, r.Class()
}

// classHeaps holds the eligible QPs of one NIC in one binary min-heap per
// data class (internal/iheap), ordered by (k1, id): SRPT's remaining
// bytes, PIAS's last-served stamp. A decision reads the heads of the
// classes that are not paused, O(classes), and reorders the served QP in
// O(log n); in steady state nothing is allocated.
type classHeaps struct {
	h iheap.Classes[ranked]
}

// iheap's classes are the fabric's (this fails to compile otherwise).
const _ = uint(iheap.NumClasses-fabric.NumClasses) + uint(fabric.NumClasses-iheap.NumClasses)

// set puts r in class c's heap with key k1, moving it if it was elsewhere.
func (hs *classHeaps) set(r *ranked, c uint8, k1 int64) {
	hs.h.Set(r, c, iheap.Key{A: k1, B: r.id})
}

// remove takes r out of its heap, if it is in one.
func (hs *classHeaps) remove(r *ranked) { hs.h.Remove(r) }

// min returns the best QP of the highest-priority class not in paused.
func (hs *classHeaps) min(paused uint8) *ranked { return hs.h.First(paused) }

// best returns the QP with the smallest key over every class not in
// paused (ties by id): order by key, with the class only a wire tag.
func (hs *classHeaps) best(paused uint8) *ranked { return hs.h.Best(paused) }

// levelOf maps x onto thresholds t (ascending): 1 if x <= t[0], j if
// t[j-2] < x <= t[j-1], len(t)+1 above the last. Linear: at most six
// thresholds.
func levelOf(x int64, t []int64) uint8 {
	for j, a := range t {
		if x <= a {
			return uint8(j + 1)
		}
	}
	return uint8(len(t) + 1)
}

// checkThresholds validates a threshold list for levels 1..len+1 <= 7.
func checkThresholds(sched, field string, t []int64) error {
	if len(t) < 1 || len(t) > fabric.NumClasses-2 {
		return cc.ParamErrorf(sched, field, "needs 1 to %d thresholds (2 to %d classes), got %d",
			fabric.NumClasses-2, fabric.NumClasses-1, len(t))
	}
	for i, a := range t {
		if a <= 0 {
			return cc.ParamErrorf(sched, field, "threshold %d is %d, want > 0", i, a)
		}
		if i > 0 && a <= t[i-1] {
			return cc.ParamErrorf(sched, field, "thresholds must increase strictly: %d after %d", a, t[i-1])
		}
	}
	return nil
}

// EqualSplit returns the levels-1 thresholds that cut a size distribution
// into levels classes of equal flow count: quantile(j/levels) for j = 1 ..
// levels-1, each raised to at least one more than the previous so that the
// list increases strictly (point masses in a CDF can repeat a quantile).
// quantile is the distribution's inverse CDF in bytes, e.g. a
// workloads/cloud CDF's Quantile. levels must be 2..7.
func EqualSplit(quantile func(p float64) int64, levels int) ([]int64, error) {
	if levels < 2 || levels > fabric.NumClasses-1 {
		return nil, fmt.Errorf("baselines: equal split needs 2 to %d levels, got %d", fabric.NumClasses-1, levels)
	}
	t := make([]int64, levels-1)
	for j := range t {
		t[j] = max(1, quantile(float64(j+1)/float64(levels)))
		if j > 0 && t[j] <= t[j-1] {
			t[j] = t[j-1] + 1
		}
	}
	return t, nil
}

// In-order guard modes (docs/model.md §6.7, applied to the baselines as an
// option): a QP whose next packet's class differs from its unacknowledged
// packets' class either waits for them to be acknowledged (stall), keeps
// the old class until then (inherit), or sends anyway (off), risking
// reordering in the network and a NACK.
const (
	GuardOff     = "off"
	GuardInherit = "inherit"
	GuardStall   = "stall"
)

func checkGuard(sched, g string) error {
	switch g {
	case GuardOff, GuardInherit, GuardStall:
		return nil
	}
	return cc.ParamErrorf(sched, "guard", "must be %q, %q or %q, got %q", GuardOff, GuardInherit, GuardStall, g)
}

// guardClass applies guard mode g to class c of qp's next packet: the
// class to use, or ok = false when the QP must stall. Under a guard all of
// a QP's unacknowledged packets share one class (the last one's), and a
// retransmission (send point below the highest byte sent) keeps that class
// so that go-back-N never waits on itself.
func guardClass(g string, qp *rnic.QP, r *ranked, c uint8) (class uint8, ok bool) {
	if g == GuardOff || qp.Acked() >= r.maxSent {
		return c, true
	}
	last := qp.LastClass()
	if c == last {
		return c, true
	}
	if g == GuardInherit || qp.SendPoint() < r.maxSent {
		return last, true
	}
	return 0, false
}

// sent records a data packet for the guard.
func (r *ranked) sent(p *fabric.Packet) {
	r.maxSent = max(r.maxSent, p.Seq+int64(p.Payload))
}

// Counters sums the counters of every host whose scheduler is an SRPT or
// a PIAS, for run.parquet's counters map. Fair has none and contributes
// nothing. Only this package's schedulers count: another package's
// scheduler with a Counters method (STORM's) reports its own, whose
// grant_latency_min_ns is a minimum, not a sum.
func Counters(hosts []*rnic.Host) map[string]int64 {
	out := map[string]int64{}
	for _, h := range hosts {
		var c map[string]int64
		switch s := h.Scheduler().(type) {
		case *SRPT:
			c = s.Counters()
		case *PIAS:
			c = s.Counters()
		}
		for k, v := range c {
			out[k] += v
		}
	}
	return out
}
