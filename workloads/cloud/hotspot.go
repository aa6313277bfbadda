package cloud

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/dcsim/dcsim/engine"
)

// HotSpotConfig describes persistent hot spots (the H10, H25, H10-4 and
// H25-4 traffic of the ARN+AFI paper, docs/model.md §10.2): Trees
// destinations drawn from Hosts, and for each a set of senders, disjoint
// from every destination and from the other trees' senders, that from
// Start to Stop offer their full line rate to it.
//
// Fraction is the share of Hosts sending to hot spots, all trees
// together, split evenly over the trees: H10 is Fraction 0.1 with one
// tree (43 of 432 hosts towards one destination), H25-4 is 0.25 with four
// (27 per tree). The paper names the patterns without defining them
// (docs/model.md §10.2 reads H10 as 10% of endnodes sending to one
// destination); reading the -4 variants as 10% and 25% per tree would make
// H25-4 need every host as a sender, so the fraction is the total.
//
// Each sender posts a FlowSize message to its destination every
// FlowSize*8/HostRate, the time its link takes to send one: it offers
// exactly its line rate, whatever the network accepts.
type HotSpotConfig struct {
	Hosts    []int
	Fraction float64
	Trees    int
	FlowSize int64
	HostRate engine.Rate
	// Messages are posted in [Start, Stop).
	Start, Stop engine.Time
	// Name is the Generator field of every flow; "" means "hotspot".
	Name string
}

// Senders is the number of senders per tree.
func (c *HotSpotConfig) Senders() int {
	if c.Trees < 1 {
		return 0
	}
	return int(c.Fraction*float64(len(c.Hosts))+0.5) / c.Trees
}

// Validate checks the configuration; errors name the field.
func (c *HotSpotConfig) Validate() error {
	if err := checkHosts("hosts", c.Hosts, 2); err != nil {
		return err
	}
	if !(c.Fraction > 0 && c.Fraction < 1) {
		return fmt.Errorf("fraction: %v is not in (0, 1)", c.Fraction)
	}
	if c.Trees < 1 {
		return fmt.Errorf("trees: must be at least 1, got %d", c.Trees)
	}
	if n := c.Senders(); n < 1 || c.Trees*(n+1) > len(c.Hosts) {
		return fmt.Errorf("fraction: %d senders per tree for %d trees among %d hosts", n, c.Trees, len(c.Hosts))
	}
	if c.FlowSize < 1 {
		return fmt.Errorf("flow_size: must be at least 1 B, got %d", c.FlowSize)
	}
	if c.HostRate <= 0 {
		return fmt.Errorf("host_rate: must be positive, got %v", c.HostRate)
	}
	return checkWindow(c.Start, c.Stop)
}

// HotSpots is the hot-spot generator; Dsts and Senders say who takes part.
type HotSpots struct {
	// Dsts[t] is tree t's destination, Senders[t] its senders in
	// ascending order.
	Dsts    []int
	Senders [][]int

	size         int64
	period, stop engine.Time
	at           engine.Time
	tree, i      int
	name         string
	tags         []string
}

// NewHotSpots draws the destinations (in draw order), then each tree's
// senders, from r.
func NewHotSpots(cfg HotSpotConfig, r *rand.Rand) (*HotSpots, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("hotspot workload: %w", err)
	}
	pool := append([]int(nil), cfg.Hosts...)
	take := func() int {
		j := r.IntN(len(pool))
		h := pool[j]
		pool[j] = pool[len(pool)-1]
		pool = pool[:len(pool)-1]
		return h
	}
	g := &HotSpots{size: cfg.FlowSize, period: cfg.HostRate.TxTime(cfg.FlowSize), stop: cfg.Stop, at: cfg.Start, name: cmp.Or(cfg.Name, "hotspot")}
	for range cfg.Trees {
		g.Dsts = append(g.Dsts, take())
	}
	n := cfg.Senders()
	for t := range cfg.Trees {
		s := make([]int, n)
		for i := range s {
			s[i] = take()
		}
		slices.Sort(s)
		g.Senders = append(g.Senders, s)
		g.tags = append(g.tags, "hotspot-"+strconv.Itoa(t))
	}
	return g, nil
}

// Next implements Generator: every period, each tree's senders in order.
func (g *HotSpots) Next() (Flow, bool) {
	if g.at >= g.stop {
		return Flow{}, false
	}
	f := Flow{Src: g.Senders[g.tree][g.i], Dst: g.Dsts[g.tree], Size: g.size, Start: g.at, Generator: g.name, Tag: g.tags[g.tree]}
	if g.i++; g.i == len(g.Senders[g.tree]) {
		g.i = 0
		if g.tree++; g.tree == len(g.Dsts) {
			g.tree = 0
			g.at += g.period
		}
	}
	return f, true
}
