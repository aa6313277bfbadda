package cloud

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/dcsim/dcsim/engine"
)

// PoissonConfig describes the background workload of docs/model.md §7.3.
type PoissonConfig struct {
	// Hosts are the host ids that send and receive; at least 2, distinct.
	Hosts []int
	// HostRate is B_host, the host link rate the load is relative to.
	HostRate engine.Rate
	// Load is offered bytes per second per host / B_host; 0 means no flows.
	Load float64
	// CDF gives flow sizes (linear rule); its Mean sets the arrival rate.
	CDF *CDF
	// Arrivals fall in [Start, Stop).
	Start, Stop engine.Time
	// Name is the Generator field of every flow; "" means "cloud".
	Name string
}

// Validate checks the configuration; errors name the field.
func (c *PoissonConfig) Validate() error {
	if err := checkHosts("hosts", c.Hosts, 2); err != nil {
		return err
	}
	if c.HostRate <= 0 {
		return fmt.Errorf("host_rate: must be positive, got %v", c.HostRate)
	}
	if err := checkLoad("load", c.Load); err != nil {
		return err
	}
	if c.CDF == nil {
		return errors.New("cdf: missing")
	}
	if m := c.CDF.Mean(); !(m >= 1) {
		return fmt.Errorf("cdf: %s has mean %v B; the arrival rate needs a mean of at least 1 B", c.CDF.Name, m)
	}
	return checkWindow(c.Start, c.Stop)
}

// NewPoisson returns a generator in which every host is an independent
// Poisson process with mean inter-arrival 8*mean/(HostRate*Load), the first
// arrival at Start + Exp, and each flow goes to a host drawn uniformly from
// the other hosts with a size drawn from the CDF. r is consumed in flow
// order: the first gap of each host in Hosts order at construction, then
// per flow its size, its destination and its host's next gap.
func NewPoisson(cfg PoissonConfig, r *rand.Rand) (Generator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("poisson workload: %w", err)
	}
	g := &poisson{
		hosts: append([]int(nil), cfg.Hosts...),
		cdf:   cfg.CDF,
		name:  cmp.Or(cfg.Name, "cloud"),
		r:     r,
	}
	if cfg.Load == 0 {
		return g, nil
	}
	g.arr.start(meanGapPS(cfg.CDF.Mean(), cfg.HostRate, cfg.Load), g.hosts, cfg.Start, cfg.Stop, r)
	return g, nil
}

type poisson struct {
	hosts []int
	cdf   *CDF
	name  string
	r     *rand.Rand
	arr   hostArrivals
}

func (g *poisson) Next() (Flow, bool) {
	if len(g.arr.heap) == 0 {
		return Flow{}, false
	}
	a := g.arr.heap[0]
	f := Flow{Src: a.host, Start: a.at, Generator: g.name}
	f.Size = g.cdf.Sample(g.r)
	f.Dst = g.hosts[otherIndex(g.r, len(g.hosts), a.pos)]
	g.arr.advance(g.r)
	return f, true
}

// otherIndex draws an index uniformly from [0, n) other than skip.
func otherIndex(r *rand.Rand, n, skip int) int {
	k := r.IntN(n - 1)
	if k >= skip {
		k++
	}
	return k
}
