package schedtest

import (
	"fmt"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// CC kinds a Rig can give its QPs. They are tiny stand-ins, so that
// scheduler tests do not depend on the real algorithms: each exercises one
// way a QP stops being ready.
const (
	LineRate = "line"   // always line rate, no window
	Window   = "window" // line rate, fixed window of 24 KB: QPs block on ACKs
	Paced    = "paced"  // a third of line rate: QPs wait for their pacing time
)

// Config describes a Rig: a star of Hosts hosts around one switch.
type Config struct {
	Hosts   int         // default 4
	Rate    engine.Rate // host links, default 100 Gbps
	Delay   engine.Time // per link, default 1 us
	Mapping rnic.Mapping
	CC      string // LineRate (default), Window or Paced
	Seed    uint64 // default 1
	// Fabric and NIC, when set, adjust the switch and NIC settings after
	// the defaults (fabric.DefaultConfig; the reference NIC: MTU 1000,
	// reference headers, data class 3, ACK every packet, RTO 5 ms).
	Fabric func(*fabric.Config)
	NIC    func(*rnic.Config)
}

// Rig is a small network with one scheduler per NIC, for scheduler tests.
type Rig struct {
	Sim     *engine.Sim
	Net     *fabric.Network
	Cluster *rnic.Cluster
	// BDP and RTT are the topology's maxBdp and maxRtt (docs/model.md §2.1)
	// at the rig's MTU; BDP is also the QPs' cc.Env.BDP.
	BDP int64
	RTT engine.Time
	// Done lists messages in completion order.
	Done []*rnic.Message
	// Posted lists messages in the order PostAt created them.
	Posted []*rnic.Message
}

type lineRateCC struct{ r engine.Rate }

func (l *lineRateCC) OnAck(*cc.Feedback)     {}
func (l *lineRateCC) OnCNP(engine.Time)      {}
func (l *lineRateCC) OnTimer(engine.Time)    {}
func (l *lineRateCC) NextTimer() engine.Time { return engine.Never }
func (l *lineRateCC) Rate() engine.Rate      { return l.r }
func (l *lineRateCC) Window() int64          { return 0 }

type windowCC struct {
	lineRateCC
	w int64
}

func (w *windowCC) Window() int64 { return w.w }

func ccSpec(kind string) (cc.Spec, error) {
	switch kind {
	case "", LineRate:
		return cc.Spec{Name: LineRate, New: func(env cc.Env) cc.Algorithm { return &lineRateCC{env.LineRate} }}, nil
	case Window:
		return cc.Spec{Name: Window, New: func(env cc.Env) cc.Algorithm {
			return &windowCC{lineRateCC{env.LineRate}, 24_000}
		}}, nil
	case Paced:
		return cc.Spec{Name: Paced, New: func(env cc.Env) cc.Algorithm { return &lineRateCC{env.LineRate / 3} }}, nil
	}
	return cc.Spec{}, fmt.Errorf("schedtest: unknown cc %q", kind)
}

// NewRig builds the network and its NICs, each with the scheduler
// newSched returns. A setup error fails tb; with tb nil (examples) it
// panics.
func NewRig(tb testing.TB, cfg Config, newSched func(h *rnic.Host) rnic.Scheduler) *Rig {
	if tb != nil {
		tb.Helper()
	}
	fatal := func(err error) {
		if tb == nil {
			panic(err)
		}
		tb.Fatal(err)
	}
	if cfg.Hosts == 0 {
		cfg.Hosts = 4
	}
	if cfg.Rate == 0 {
		cfg.Rate = 100 * engine.Gbps
	}
	if cfg.Delay == 0 {
		cfg.Delay = engine.Microsecond
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if !cfg.Mapping.PerFlow && cfg.Mapping.Pool == 0 {
		cfg.Mapping.PerFlow = true
	}
	topo, err := fabric.Star(cfg.Hosts, cfg.Rate, cfg.Delay)
	if err != nil {
		fatal(err)
	}
	fcfg := fabric.DefaultConfig()
	if cfg.Fabric != nil {
		cfg.Fabric(&fcfg)
	}
	sim := engine.NewSim(cfg.Seed)
	net, err := fabric.Build(sim, topo, fcfg)
	if err != nil {
		fatal(err)
	}
	spec, err := ccSpec(cfg.CC)
	if err != nil {
		fatal(err)
	}
	rtt, bdp := net.MaxRTTBDP(1000)
	ncfg := rnic.Config{MTU: 1000, Headers: rocev2.ReferenceHeaders, DataClass: 3, AckInterval: 1,
		NackInterval: 500 * engine.Microsecond, RTO: 5 * engine.Millisecond,
		Mapping: cfg.Mapping, CC: spec,
		CCEnv: cc.Env{LineRate: cfg.Rate, BaseRTT: rtt, BDP: bdp, MTU: 1000}}
	if cfg.NIC != nil {
		cfg.NIC(&ncfg)
	}
	r := &Rig{Sim: sim, Net: net, BDP: bdp, RTT: rtt}
	r.Cluster, err = rnic.NewCluster(net, ncfg, newSched)
	if err != nil {
		fatal(err)
	}
	r.Cluster.OnComplete = func(m *rnic.Message) { r.Done = append(r.Done, m) }
	return r
}

type poster struct {
	c *rnic.Cluster
	m *rnic.Message
}

func (p *poster) Fire(engine.Time, uint8) { p.c.Post(p.m) }

// PostAt posts a message of size bytes from src to dst at time at, with
// transaction id txn (0 = none).
func (r *Rig) PostAt(at engine.Time, src, dst int, size, txn int64) *rnic.Message {
	m := r.Cluster.NewMessage(src, dst, size)
	m.TxnID = txn
	r.Posted = append(r.Posted, m)
	r.Sim.At(at, &poster{r.Cluster, m}, 0)
	return m
}

// Run runs until no event is left or until limit; it reports whether every
// posted message finished.
func (r *Rig) Run(limit engine.Time) bool {
	r.Sim.Run(limit)
	return len(r.Done) == len(r.Posted)
}

// Stuck describes the messages that have not finished, for failure
// messages.
func (r *Rig) Stuck() string {
	s := ""
	n := 0
	for _, m := range r.Posted {
		if m.Done {
			continue
		}
		n++
		if n > 5 {
			continue
		}
		s += fmt.Sprintf("\n  msg %d %d->%d %d B posted %v", m.ID, m.Src, m.Dst, m.Size, m.Posted)
		if qp := m.QP; qp != nil {
			s += fmt.Sprintf(" on qp %d: ready %v, send point %d, acked %d, unsent %d, in flight %d, backlog %d",
				qp.ID, qp.Ready(), qp.SendPoint(), qp.Acked(), qp.Unsent(), qp.InFlight(), qp.Backlog())
		}
	}
	return fmt.Sprintf("%d of %d messages unfinished at %v:%s", n, len(r.Posted), r.Sim.Now(), s)
}
