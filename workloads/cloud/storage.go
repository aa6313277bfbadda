package cloud

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/dcsim/dcsim/engine"
)

// StorageConfig describes a fan-out (partition-aggregate, distributed
// storage read) workload. Each client issues requests at Poisson times;
// each request picks FanOut servers uniformly without replacement from
// Servers (never the client itself), and every picked server sends one
// response to the client, all starting at the request time. The request
// message itself is not modelled: responses start when the request is
// issued. All flows of one request carry Tag "fanout-<n>", n counting
// requests from 0 in time order over all clients, so an analysis can take
// the request's join time as max(finish) - start over its flows.
//
// The request rate per client is set by exactly one of:
//   - Load (with HostRate): the responses carry Load of the client's host
//     link, i.e. Load*HostRate / (8*FanOut*mean response) requests per second;
//   - MeanInterval: the mean time between two requests of one client.
//
// Load 0 with MeanInterval 0 means no requests.
type StorageConfig struct {
	// Clients issue requests, each an independent Poisson process.
	Clients []int
	// Servers are the candidate responders.
	Servers []int
	// FanOut is the number of servers per request, at least 1.
	FanOut int
	// Response sizes: ResponseCDF (linear rule) or a fixed ResponseSize
	// in bytes; exactly one.
	ResponseCDF  *CDF
	ResponseSize int64
	// Request rate; see the type comment.
	Load         float64
	HostRate     engine.Rate
	MeanInterval engine.Time
	// Requests fall in [Start, Stop).
	Start, Stop engine.Time
	// Name is the Generator field of every flow; "" means "storage".
	Name string
}

// Validate checks the configuration; errors name the field.
func (c *StorageConfig) Validate() error {
	if err := checkHosts("clients", c.Clients, 1); err != nil {
		return err
	}
	if err := checkHosts("servers", c.Servers, 1); err != nil {
		return err
	}
	if c.FanOut < 1 {
		return fmt.Errorf("fan_out: must be at least 1, got %d", c.FanOut)
	}
	for _, cl := range c.Clients {
		avail := len(c.Servers)
		if slices.Contains(c.Servers, cl) {
			avail--
		}
		if c.FanOut > avail {
			return fmt.Errorf("fan_out: %d exceeds the %d servers available to client %d", c.FanOut, avail, cl)
		}
	}
	switch {
	case c.ResponseCDF != nil && c.ResponseSize != 0:
		return errors.New("response_size: set either response_cdf or response_size, not both")
	case c.ResponseCDF == nil && c.ResponseSize < 1:
		return fmt.Errorf("response_size: must be at least 1 B (or give response_cdf), got %d", c.ResponseSize)
	case c.ResponseCDF != nil && !(c.ResponseCDF.Mean() >= 1):
		return fmt.Errorf("response_cdf: %s has mean %v B; the request rate needs a mean of at least 1 B",
			c.ResponseCDF.Name, c.ResponseCDF.Mean())
	}
	if err := checkLoad("load", c.Load); err != nil {
		return err
	}
	if c.MeanInterval < 0 {
		return fmt.Errorf("mean_interval: negative %v", c.MeanInterval)
	}
	if c.Load > 0 && c.MeanInterval > 0 {
		return errors.New("load: set either load or mean_interval, not both")
	}
	if c.Load > 0 && c.HostRate <= 0 {
		return fmt.Errorf("host_rate: must be positive with load > 0, got %v", c.HostRate)
	}
	return checkWindow(c.Start, c.Stop)
}

func (c *StorageConfig) meanResponse() float64 {
	if c.ResponseCDF != nil {
		return c.ResponseCDF.Mean()
	}
	return float64(c.ResponseSize)
}

// NewStorage returns the fan-out generator. Flows of one request come out
// in ascending server id. r is consumed in a fixed order: each client's
// first gap in Clients order at construction; per request the servers,
// then the client's next gap, then one size per response (from a CDF).
func NewStorage(cfg StorageConfig, r *rand.Rand) (Generator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("storage workload: %w", err)
	}
	g := &storage{
		clients: append([]int(nil), cfg.Clients...),
		servers: append([]int(nil), cfg.Servers...),
		fanOut:  cfg.FanOut,
		cdf:     cfg.ResponseCDF,
		size:    cfg.ResponseSize,
		name:    cmp.Or(cfg.Name, "storage"),
		r:       r,
		scratch: make([]int, 0, len(cfg.Servers)),
	}
	var meanGap float64
	switch {
	case cfg.Load > 0:
		meanGap = meanGapPS(float64(cfg.FanOut)*cfg.meanResponse(), cfg.HostRate, cfg.Load)
	case cfg.MeanInterval > 0:
		meanGap = float64(cfg.MeanInterval)
	default:
		return g, nil
	}
	g.arr.start(meanGap, g.clients, cfg.Start, cfg.Stop, r)
	return g, nil
}

type storage struct {
	clients []int
	servers []int
	fanOut  int
	cdf     *CDF
	size    int64
	name    string
	r       *rand.Rand
	arr     hostArrivals

	// The request being emitted: its servers are scratch[:fanOut].
	scratch  []int
	cur      int
	at       engine.Time
	client   int
	tag      string
	requests int
}

func (g *storage) Next() (Flow, bool) {
	if g.tag == "" || g.cur >= g.fanOut {
		if len(g.arr.heap) == 0 {
			return Flow{}, false
		}
		g.startRequest()
	}
	size := g.size
	if g.cdf != nil {
		size = g.cdf.Sample(g.r)
	}
	f := Flow{Src: g.scratch[g.cur], Dst: g.client, Size: size, Start: g.at, Generator: g.name, Tag: g.tag}
	g.cur++
	return f, true
}

func (g *storage) startRequest() {
	a := g.arr.heap[0]
	g.at, g.client = a.at, a.host
	g.scratch = sampleOthers(g.scratch, g.servers, g.client, g.fanOut, g.r)
	g.arr.advance(g.r)
	g.cur = 0
	g.tag = "fanout-" + strconv.Itoa(g.requests)
	g.requests++
}
