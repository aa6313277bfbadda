package wiring

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/workloads/cloud"
)

// efficiency is trace metric "efficiency": per sample interval, the data
// payload the NICs injected and the payload delivered to NICs, split by
// whether the destination is a hot spot (a hotspot workload's
// destination) or not. Rows: component "network", metric "efficiency"
// (delivered / injected in the interval, when anything was injected), and
// for components "hotspot" and "other" the metrics "injected_gbps" and
// "delivered_gbps". It observes only host links: the NIC's port
// (Transmit) and the switch port facing it (Deliver). The sums are kept
// per host link, so that on the parallel engine each unit adds to its own
// (integer sums: the order of adding does not matter).
type efficiency struct {
	hot      []bool     // per host: a hot-spot destination
	inj, del [][2]int64 // per host link, cumulative payload bytes, [0] other, [1] hot spot
	last     [2][2]int64
}

type injected struct {
	fabric.NopObserver
	e *efficiency
	h int32
}

func (o injected) Transmit(_ engine.Time, _ *fabric.Port, p *fabric.Packet) {
	o.e.count(&o.e.inj[o.h], p)
}

type delivered struct {
	fabric.NopObserver
	e *efficiency
	h int32
}

func (o delivered) Deliver(_ engine.Time, _ *fabric.Port, p *fabric.Packet) {
	o.e.count(&o.e.del[o.h], p)
}

// count adds a data packet's payload to sum, by whether its destination
// is a hot spot; acknowledgements and control packets carry no payload
// the metric counts.
func (e *efficiency) count(sum *[2]int64, p *fabric.Packet) {
	if p.Kind != fabric.Data {
		return
	}
	if e.hot[p.Dst] {
		sum[1] += int64(p.Payload)
	} else {
		sum[0] += int64(p.Payload)
	}
}

// newEfficiency installs the observers on s's host links.
func newEfficiency(s *Sim) *efficiency {
	n := len(s.Net.HostPorts)
	e := &efficiency{hot: make([]bool, n), inj: make([][2]int64, n), del: make([][2]int64, n)}
	for _, h := range s.HotSpots() {
		e.hot[h] = true
	}
	for h, pt := range s.Net.HostPorts {
		pt.Observer = injected{e: e, h: int32(h)}
		pt.Peer.Observer = delivered{e: e, h: int32(h)}
	}
	return e
}

// HotSpots are the destinations of the scenario's hotspot workloads.
func (s *Sim) HotSpots() []int {
	var dsts []int
	for _, w := range s.workloads {
		if f, ok := w.(*FlowWorkload); ok {
			if h, ok := f.Gen.(*cloud.HotSpots); ok {
				dsts = append(dsts, h.Dsts...)
			}
		}
	}
	return dsts
}

func (e *efficiency) sample(now, span engine.Time, add func(now engine.Time, comp, metric string, v float64)) {
	var inj, del, di, dd [2]int64
	for h := range e.inj {
		for c := range 2 {
			inj[c] += e.inj[h][c]
			del[c] += e.del[h][c]
		}
	}
	for c := range 2 {
		di[c], dd[c] = inj[c]-e.last[0][c], del[c]-e.last[1][c]
	}
	e.last = [2][2]int64{inj, del}
	if all := di[0] + di[1]; all > 0 {
		add(now, "network", scenario.MetricEfficiency, float64(dd[0]+dd[1])/float64(all))
	}
	gbps := func(b int64) float64 { return float64(b) * 8 / float64(span) * 1e3 } // bytes per ps -> Gbps
	for c, comp := range [2]string{"other", "hotspot"} {
		add(now, comp, "injected_gbps", gbps(di[c]))
		add(now, comp, "delivered_gbps", gbps(dd[c]))
	}
}
