package wiring

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
)

// NICConcurrency is how many messages (flows) and QPs the sending NICs
// hold at once: a flow counts from its post to the ACK of its last byte, a
// QP while it has such a flow. Max is over every NIC and instant; Mean is
// time-weighted over the time each NIC holds at least one flow (so an idle
// NIC does not dilute it).
type NICConcurrency struct {
	MaxFlows, MaxQPs   int
	MeanFlows, MeanQPs float64
}

// counters are the run.parquet counters of c; means in thousandths.
func (c NICConcurrency) counters() map[string]int64 {
	return map[string]int64{"nic_max_flows": int64(c.MaxFlows), "nic_max_qps": int64(c.MaxQPs),
		"nic_mean_flows_milli": int64(math.Round(c.MeanFlows * 1000)),
		"nic_mean_qps_milli":   int64(math.Round(c.MeanQPs * 1000))}
}

type nicEvent struct {
	at    engine.Time
	delta int // +1 post, -1 finish
	qp    int64
}

// nicConcurrency measures NICConcurrency over msgs; unfinished messages
// count until end.
func nicConcurrency(msgs []*rnic.Message, end engine.Time) NICConcurrency {
	byHost := map[int][]nicEvent{}
	for _, m := range msgs {
		fin := end
		if m.Done {
			fin = m.Finished
		}
		byHost[m.Src] = append(byHost[m.Src], nicEvent{m.Posted, 1, m.QPID}, nicEvent{fin, -1, m.QPID})
	}
	hosts := make([]int, 0, len(byHost))
	for h := range byHost {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	var c NICConcurrency
	var busy, flowArea, qpArea float64
	for _, h := range hosts {
		ev := byHost[h]
		// At one instant, finishes before posts: a ring step that starts
		// as the previous one ends does not count twice.
		slices.SortFunc(ev, func(a, b nicEvent) int {
			if a.at != b.at {
				return cmp.Compare(a.at, b.at)
			}
			return cmp.Compare(a.delta, b.delta)
		})
		flows := 0
		qps := map[int64]int{}
		for i, e := range ev {
			if i > 0 && flows > 0 {
				d := float64(e.at - ev[i-1].at)
				busy += d
				flowArea += d * float64(flows)
				qpArea += d * float64(len(qps))
			}
			flows += e.delta
			qps[e.qp] += e.delta
			if qps[e.qp] == 0 {
				delete(qps, e.qp)
			}
			c.MaxFlows = max(c.MaxFlows, flows)
			c.MaxQPs = max(c.MaxQPs, len(qps))
		}
	}
	if busy > 0 {
		c.MeanFlows, c.MeanQPs = flowArea/busy, qpArea/busy
	}
	return c
}

// nicTracker measures NICConcurrency as the run goes, from each message's
// post and finish, so that a training run need not keep its messages to
// the end (flows.parquet streams). It gives what nicConcurrency gives over
// the same messages: per NIC the events of one instant are applied
// together, finishes before posts, and the time areas are summed exactly
// in integers (128 bits), so that the means equal nicConcurrency's float
// sums whenever those are exact (below 2^53 ps·flows, far beyond a run's).
type nicTracker struct {
	hosts map[int]*nicHost
	// res caches the result at resAt (the end of the run).
	res   NICConcurrency
	resAt engine.Time
	done  bool
}

// nicHost is one sending NIC's running count.
type nicHost struct {
	pending []nicEvent // the events of instant at, not yet applied
	at      engine.Time
	last    engine.Time // the instant of the last applied event
	started bool
	flows   int
	qps     map[int64]int // open flows per QP
	busy    u128
	flowA   u128 // sum of d * flows
	qpA     u128 // sum of d * open QPs
	maxF    int
	maxQ    int
}

func newNICTracker() *nicTracker { return &nicTracker{hosts: map[int]*nicHost{}} }

func (t *nicTracker) host(src int) *nicHost {
	h := t.hosts[src]
	if h == nil {
		h = &nicHost{qps: map[int64]int{}}
		t.hosts[src] = h
	}
	return h
}

// posted and finished record a message's post and finish, at their times
// (which never go back).
func (t *nicTracker) posted(m *rnic.Message) {
	t.host(m.Src).add(nicEvent{m.Posted, 1, m.QPID})
}

func (t *nicTracker) finished(m *rnic.Message) {
	t.host(m.Src).add(nicEvent{m.Finished, -1, m.QPID})
}

func (h *nicHost) add(e nicEvent) {
	if len(h.pending) > 0 && e.at != h.at {
		h.apply()
	}
	h.at = e.at
	h.pending = append(h.pending, e)
}

// apply applies the pending events of one instant: finishes first (a ring
// step that starts as the previous one ends does not count twice), in
// nicConcurrency's order.
func (h *nicHost) apply() {
	slices.SortStableFunc(h.pending, func(a, b nicEvent) int { return cmp.Compare(a.delta, b.delta) })
	for _, e := range h.pending {
		if h.started && h.flows > 0 {
			d := uint64(e.at - h.last)
			h.busy.add(d, 1)
			h.flowA.add(d, uint64(h.flows))
			h.qpA.add(d, uint64(len(h.qps)))
		}
		h.started, h.last = true, e.at
		h.flows += e.delta
		h.qps[e.qp] += e.delta
		if h.qps[e.qp] == 0 {
			delete(h.qps, e.qp)
		}
		h.maxF = max(h.maxF, h.flows)
		h.maxQ = max(h.maxQ, len(h.qps))
	}
	h.pending = h.pending[:0]
}

// result is the concurrency over the run that ended at end: unfinished
// messages count until end. It closes the count, so it is computed once.
func (t *nicTracker) result(end engine.Time) NICConcurrency {
	if t.done {
		if end != t.resAt {
			panic(fmt.Sprintf("wiring: NIC concurrency asked at %v after it was closed at %v", end, t.resAt))
		}
		return t.res
	}
	var c NICConcurrency
	var busy, flowA, qpA u128
	for _, h := range t.hosts {
		if len(h.pending) > 0 {
			h.apply()
		}
		// The QPs' open flows finish at end (in QP order: the same-instant
		// finishes all come down together, so their order is immaterial).
		qps := make([]int64, 0, len(h.qps))
		for qp := range h.qps {
			qps = append(qps, qp)
		}
		slices.Sort(qps)
		for _, qp := range qps {
			for range h.qps[qp] {
				h.add(nicEvent{end, -1, qp})
			}
		}
		if len(h.pending) > 0 {
			h.apply()
		}
		c.MaxFlows, c.MaxQPs = max(c.MaxFlows, h.maxF), max(c.MaxQPs, h.maxQ)
		busy.addU(h.busy)
		flowA.addU(h.flowA)
		qpA.addU(h.qpA)
	}
	if b := busy.float(); b > 0 {
		c.MeanFlows, c.MeanQPs = flowA.float()/b, qpA.float()/b
	}
	t.res, t.resAt, t.done = c, end, true
	return c
}

// u128 is an unsigned 128-bit sum.
type u128 struct{ hi, lo uint64 }

// add adds a*b.
func (u *u128) add(a, b uint64) {
	hi, lo := bits.Mul64(a, b)
	u.addU(u128{hi, lo})
}

func (u *u128) addU(v u128) {
	var carry uint64
	u.lo, carry = bits.Add64(u.lo, v.lo, 0)
	u.hi, _ = bits.Add64(u.hi, v.hi, carry)
}

func (u u128) float() float64 { return float64(u.hi)*0x1p64 + float64(u.lo) }
