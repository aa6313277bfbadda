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

// RandomReceiver, as IncastConfig.Receiver, draws each event's receiver
// uniformly from Hosts.
const RandomReceiver = -1

// IncastConfig describes many-to-one events: at each event Senders hosts,
// drawn uniformly without replacement from Hosts minus the receiver, each
// start a FlowSize flow to the receiver at the same instant.
//
// Events come either periodically (Period > 0: at Start, Start+Period, ...
// before Stop) or as a Poisson process carrying a fraction Load of the
// aggregate host capacity len(Hosts)*HostRate: the event rate is
// Load*len(Hosts)*HostRate / (8*Senders*FlowSize). The reference usage
// "2% of load, 60 senders x 500 KB" is Load 0.02 over the same Hosts as the
// background, so background and incast loads add up in the same units.
// Setting both Load > 0 and Period > 0 is an error; with neither there are
// no events.
type IncastConfig struct {
	// Hosts are the candidate senders, and the candidate receivers when
	// Receiver is RandomReceiver.
	Hosts []int
	// Senders is the number of senders per event (fan-in), at least 1.
	Senders int
	// Receiver is the host id of a fixed receiver (it need not be in Hosts),
	// or RandomReceiver. The zero value is host 0.
	Receiver int
	// FlowSize is the bytes each sender sends per event.
	FlowSize int64
	// Load and HostRate set Poisson events; see the type comment.
	Load     float64
	HostRate engine.Rate
	// Period > 0 selects periodic events.
	Period engine.Time
	// Events fall in [Start, Stop).
	Start, Stop engine.Time
	// Name is the Generator field of every flow; "" means "incast".
	Name string
}

// Validate checks the configuration; errors name the field.
func (c *IncastConfig) Validate() error {
	if err := checkHosts("hosts", c.Hosts, 1); err != nil {
		return err
	}
	if c.Receiver < 0 && c.Receiver != RandomReceiver {
		return fmt.Errorf("receiver: %d is neither a host id nor RandomReceiver", c.Receiver)
	}
	if c.Senders < 1 {
		return fmt.Errorf("senders: must be at least 1, got %d", c.Senders)
	}
	avail := len(c.Hosts)
	if c.Receiver == RandomReceiver || slices.Contains(c.Hosts, c.Receiver) {
		avail--
	}
	if c.Senders > avail {
		return fmt.Errorf("senders: %d exceeds the %d hosts available besides the receiver", c.Senders, avail)
	}
	if c.FlowSize < 1 {
		return fmt.Errorf("flow_size: must be at least 1 B, got %d", c.FlowSize)
	}
	if c.Period < 0 {
		return fmt.Errorf("period: negative %v", c.Period)
	}
	if err := checkLoad("load", c.Load); err != nil {
		return err
	}
	if c.Period > 0 && c.Load > 0 {
		return errors.New("load: set either load (poisson events) or period (periodic events), not both")
	}
	if c.Load > 0 && c.HostRate <= 0 {
		return fmt.Errorf("host_rate: must be positive with load > 0, got %v", c.HostRate)
	}
	return checkWindow(c.Start, c.Stop)
}

// NewIncast returns the incast generator. Flows of one event come out in
// ascending sender id and carry Tag "incast-<n>", n counting events from 0.
// r is consumed per event: the receiver (when random), the senders, then
// the next event's gap (Poisson); the first gap is drawn at construction.
func NewIncast(cfg IncastConfig, r *rand.Rand) (Generator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("incast workload: %w", err)
	}
	g := &incast{
		hosts:    append([]int(nil), cfg.Hosts...),
		senders:  cfg.Senders,
		receiver: cfg.Receiver,
		size:     cfg.FlowSize,
		period:   cfg.Period,
		stop:     cfg.Stop,
		name:     cmp.Or(cfg.Name, "incast"),
		r:        r,
		scratch:  make([]int, 0, len(cfg.Hosts)),
	}
	switch {
	case cfg.Period > 0:
		g.nextAt, g.more = cfg.Start, cfg.Start < cfg.Stop
	case cfg.Load > 0:
		bytes := float64(cfg.Senders) * float64(cfg.FlowSize)
		g.clock = poissonClock{meanGap: meanGapPS(bytes, cfg.HostRate, cfg.Load*float64(len(cfg.Hosts))), stop: cfg.Stop}
		g.poisson = true
		g.nextAt, g.more = g.clock.after(cfg.Start, r)
	}
	return g, nil
}

type incast struct {
	hosts    []int
	senders  int
	receiver int
	size     int64
	period   engine.Time
	stop     engine.Time
	name     string
	r        *rand.Rand
	clock    poissonClock
	poisson  bool

	nextAt engine.Time // time of the next event not yet started
	more   bool        // whether that event exists

	// The event being emitted.
	scratch []int // candidate senders; the event's senders are scratch[:senders]
	cur     int   // next sender index; == senders when the event is done
	at      engine.Time
	recv    int
	tag     string
	events  int
}

func (g *incast) Next() (Flow, bool) {
	if g.tag == "" || g.cur >= g.senders {
		if !g.more {
			return Flow{}, false
		}
		g.startEvent()
	}
	f := Flow{Src: g.scratch[g.cur], Dst: g.recv, Size: g.size, Start: g.at, Generator: g.name, Tag: g.tag}
	g.cur++
	return f, true
}

func (g *incast) startEvent() {
	g.at = g.nextAt
	g.recv = g.receiver
	if g.recv == RandomReceiver {
		g.recv = g.hosts[g.r.IntN(len(g.hosts))]
	}
	g.scratch = sampleOthers(g.scratch, g.hosts, g.recv, g.senders, g.r)
	g.cur = 0
	g.tag = "incast-" + strconv.Itoa(g.events)
	g.events++
	if g.poisson {
		g.nextAt, g.more = g.clock.after(g.at, g.r)
	} else {
		g.more = g.at < g.stop-g.period
		g.nextAt = g.at + g.period
	}
}
