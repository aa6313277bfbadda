package rnic_test

import (
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// lineRate is a congestion control that never slows down (cc/none's model,
// restated here so rnic tests do not depend on cc implementations).
type lineRate struct{ r engine.Rate }

func (l *lineRate) OnAck(*cc.Feedback)     {}
func (l *lineRate) OnCNP(engine.Time)      {}
func (l *lineRate) OnTimer(engine.Time)    {}
func (l *lineRate) NextTimer() engine.Time { return engine.Never }
func (l *lineRate) Rate() engine.Rate      { return l.r }
func (l *lineRate) Window() int64          { return 0 }
func lineRateSpec() cc.Spec {
	return cc.Spec{Name: "none", New: func(env cc.Env) cc.Algorithm { return &lineRate{env.LineRate} }}
}

type rig struct {
	sim  *engine.Sim
	net  *fabric.Network
	c    *rnic.Cluster
	done []*rnic.Message
}

func newRig(t testing.TB, topo *fabric.Topology, fcfg fabric.Config, mutate func(*rnic.Config)) *rig {
	t.Helper()
	sim := engine.NewSim(1)
	net, err := fabric.Build(sim, topo, fcfg)
	if err != nil {
		t.Fatal(err)
	}
	rtt, bdp := net.MaxRTTBDP(1000)
	cfg := rnic.Config{MTU: 1000, Headers: rocev2.ReferenceHeaders, DataClass: 3, AckInterval: 1,
		NackInterval: 500 * engine.Microsecond, RTO: 5 * engine.Millisecond,
		Mapping: rnic.Mapping{PerFlow: true}, CC: lineRateSpec(),
		CCEnv: cc.Env{LineRate: net.HostPorts[0].Rate, MinRate: engine.Gbps, BaseRTT: rtt, BDP: bdp, MTU: 1000}}
	if mutate != nil {
		mutate(&cfg)
	}
	r := &rig{sim: sim, net: net}
	r.c, err = rnic.NewCluster(net, cfg, func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(cfg.DataClass) })
	if err != nil {
		t.Fatal(err)
	}
	r.c.OnComplete = func(m *rnic.Message) { r.done = append(r.done, m) }
	return r
}

// postAt posts a message at time at.
type poster struct {
	c *rnic.Cluster
	m *rnic.Message
}

func (p *poster) Fire(engine.Time, uint8) { p.c.Post(p.m) }

func (r *rig) postAt(at engine.Time, src, dst int, size int64) *rnic.Message {
	m := r.c.NewMessage(src, dst, size)
	r.sim.At(at, &poster{r.c, m}, 0)
	return m
}
