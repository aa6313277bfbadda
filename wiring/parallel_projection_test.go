//go:build invariants

package wiring

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// TestParallelProjection measures, on today's single-threaded engine, what
// the parallel engine (docs/parallel.md) would have to work with: every
// event is given to the unit whose state it touches (a leaf switch with
// its hosts, or an upper switch on its own), the run is cut into the
// windows engine.World would run (opened at the earliest event, one
// lookahead long), and for 1-16 threads, each a contiguous group of
// units, it reports the events of the busiest thread summed over windows
// (the critical path). Events / critical path is the speed-up the
// partition allows before barrier costs; events the network has no unit
// for yet (flow arrivals, samplers) count against the first thread, as
// they would run there. Long (DCSIM_LONG=1, -tags invariants); the
// figures go to docs/parallel.md.
func TestParallelProjection(t *testing.T) {
	if os.Getenv("DCSIM_LONG") == "" {
		t.Skip("long: set DCSIM_LONG=1 (and build with -tags invariants)")
	}
	for _, c := range []struct {
		name string
		sets []string
	}{
		{"default 128 hosts, 200us", []string{"duration=200us"}},
		{"fat-tree k=16 (1,024 hosts), 50us", []string{"duration=50us", "topology.kind=fat-tree", "topology.k=16"}},
	} {
		s, err := Catalog().Load("default", c.sets)
		if err != nil {
			t.Fatal(err)
		}
		for _, apart := range []bool{false, true} {
			sim, err := Build(s)
			if err != nil {
				t.Fatal(err)
			}
			p := newProjection(sim, apart)
			sim.Engine.SetObserver(p.observe)
			if res := sim.Run(Options{}); res.err != nil {
				t.Fatal(res.err)
			}
			p.flush()
			p.report(t, c.name, apart)
		}
	}
}

func (p *projection) report(t *testing.T, name string, apart bool) {
	t.Logf("%s, hosts apart %v: %d units, lookahead %v, %d windows, %.0f events/window, %d events without a unit",
		name, apart, p.units, p.lookahead, len(p.perWindow), float64(p.events)/float64(len(p.perWindow)), p.global)
	for _, n := range []int{1, 2, 4, 8, 16} {
		even, balanced := p.critical(evenSplit(p.units, n)), p.critical(p.balancedSplit(n))
		t.Logf("  %2d threads: critical path %d (even split of units) / %d (split balancing the run's events) of %d events: bound %.2fx / %.2fx",
			n, even, balanced, p.events, float64(p.events)/float64(even), float64(p.events)/float64(balanced))
	}
}

type projection struct {
	unitOf    map[engine.Handler]int
	hostUnit  []int
	units     int
	lookahead engine.Time
	winEnd    engine.Time
	count     []uint32   // events per unit in the open window
	perWindow [][]uint32 // count of every window run
	global    uint64     // events with no unit
	events    uint64
}

// newProjection cuts sim's network into units: each leaf switch with its
// hosts, or (hostsApart) each host with its NIC on its own beside its
// leaf, which the lookahead allows when host links are no shorter than
// the switches'; then each upper switch. Units are numbered leaf by leaf
// (its hosts, then it), upper switches last, so that contiguous groups
// keep a leaf's traffic together.
func newProjection(sim *Sim, hostsApart bool) *projection {
	topo, net := sim.Topology, sim.Net
	p := &projection{unitOf: map[engine.Handler]int{}, hostUnit: make([]int, topo.Hosts), lookahead: engine.Never}
	hostsOf := make([][]int, topo.Switches)
	hostDelay := engine.Never
	for _, l := range topo.Links {
		a, b := l.A, l.B
		switch {
		case a < topo.Hosts:
			hostsOf[b-topo.Hosts] = append(hostsOf[b-topo.Hosts], a)
			hostDelay = min(hostDelay, l.Delay)
		case b < topo.Hosts:
			hostsOf[a-topo.Hosts] = append(hostsOf[a-topo.Hosts], b)
			hostDelay = min(hostDelay, l.Delay)
		default:
			p.lookahead = min(p.lookahead, l.Delay)
		}
	}
	if hostsApart {
		p.lookahead = min(p.lookahead, hostDelay)
	}
	switchUnit := make([]int, topo.Switches)
	for _, leaves := range []bool{true, false} {
		for i := range topo.Switches {
			if (len(hostsOf[i]) > 0) != leaves {
				continue
			}
			for _, h := range hostsOf[i] {
				if hostsApart {
					p.hostUnit[h] = p.units
					p.units++
				}
			}
			switchUnit[i] = p.units
			p.units++
			if !hostsApart {
				for _, h := range hostsOf[i] {
					p.hostUnit[h] = switchUnit[i]
				}
			}
		}
	}
	for i, sw := range net.Switches {
		for _, pt := range sw.Ports {
			p.unitOf[pt] = switchUnit[i]
		}
	}
	for h := range topo.Hosts {
		p.unitOf[net.HostPorts[h]] = p.hostUnit[h]
	}
	p.count = make([]uint32, p.units)
	return p
}

func (p *projection) observe(h engine.Handler, at engine.Time) {
	if at >= p.winEnd {
		p.flush()
		p.winEnd = at + p.lookahead
	}
	p.events++
	u, ok := p.unitOf[h]
	if !ok {
		switch x := h.(type) {
		case *rnic.Host:
			u, ok = p.hostUnit[x.ID], true
		case *rnic.QP:
			u, ok = p.hostUnit[x.Src], true
		case *fabric.Port:
			panic(fmt.Sprintf("port %p without a unit", x))
		}
	}
	if !ok {
		p.global++
		u = 0
	}
	p.count[u]++
}

// flush ends a window.
func (p *projection) flush() {
	if slices.ContainsFunc(p.count, func(c uint32) bool { return c > 0 }) {
		p.perWindow = append(p.perWindow, p.count)
		p.count = make([]uint32, p.units)
	}
}

// evenSplit gives n threads nearly equal numbers of units.
func evenSplit(units, n int) []int {
	first := make([]int, n+1)
	for i := range first {
		first[i] = i * units / n
	}
	return first
}

// balancedSplit gives n threads contiguous units of nearly equal numbers
// of events over the whole run: what a split weighted by a static
// estimate of each unit's work could reach at best.
func (p *projection) balancedSplit(n int) []int {
	n = min(n, p.units) // a thread without a unit has nothing to do
	total := make([]uint64, p.units)
	var all uint64
	for _, w := range p.perWindow {
		for u, c := range w {
			total[u] += uint64(c)
			all += uint64(c)
		}
	}
	first := []int{0}
	var sum uint64
	for u := range p.units {
		sum += total[u]
		if len(first) < n && sum*uint64(n) >= all*uint64(len(first)) && p.units-u-1 >= n-len(first) {
			first = append(first, u+1)
		}
	}
	for len(first) < n+1 {
		first = append(first, p.units)
	}
	return first
}

// critical sums, over windows, the events of the busiest thread.
func (p *projection) critical(first []int) uint64 {
	var crit uint64
	for _, w := range p.perWindow {
		var most uint64
		for t := range len(first) - 1 {
			var sum uint64
			for u := first[t]; u < first[t+1]; u++ {
				sum += uint64(w[u])
			}
			most = max(most, sum)
		}
		crit += most
	}
	return crit
}
