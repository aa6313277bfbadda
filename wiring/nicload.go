package wiring

import (
	"cmp"
	"math"
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
