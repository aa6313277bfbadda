package rnic_test

import (
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// TestPairPorts: with Compat.PairPorts source ports count from 10000 per
// (src, dst) pair in the order QPs open (third.cc portNumder); without,
// per source host from 10001.
func TestPairPorts(t *testing.T) {
	for _, c := range []struct {
		pair bool
		want []uint16
	}{{true, []uint16{10000, 10000, 10001}}, {false, []uint16{10001, 10002, 10003}}} {
		topo, err := fabric.Star(3, 100*engine.Gbps, engine.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		r := newRig(t, topo, fabric.DefaultConfig(), func(cfg *rnic.Config) { cfg.Compat.PairPorts = c.pair })
		r.postAt(0, 0, 1, 100_000)
		r.postAt(0, 0, 2, 100_000)
		r.postAt(0, 0, 1, 100_000)
		r.sim.Run(engine.Nanosecond)
		qps := r.c.Hosts[0].QPs()
		if len(qps) != 3 {
			t.Fatalf("%d QPs open, want 3", len(qps))
		}
		for i, qp := range qps {
			if qp.SPort != c.want[i] {
				t.Errorf("pair ports %v: QP %d (to %d) has port %d, want %d", c.pair, i, qp.Dst, qp.SPort, c.want[i])
			}
		}
	}
}

type txTimes struct {
	fabric.NopObserver
	at []engine.Time
}

func (o *txTimes) Transmit(now engine.Time, _ *fabric.Port, p *fabric.Packet) {
	if p.Kind == fabric.Data {
		o.at = append(o.at, now)
	}
}

type fixedRate struct{ lineRate }

func fixedRateSpec(r engine.Rate) cc.Spec {
	return cc.Spec{Name: "fixed", New: func(cc.Env) cc.Algorithm { return &fixedRate{lineRate{r}} }}
}

// TestWholeNsPacing: a QP at 50 Gbps sends a 1048 B packet every 167 ns
// with Compat.WholeNsPacing (ns-3's truncated 167.68), every 167.68 ns
// without.
func TestWholeNsPacing(t *testing.T) {
	for _, c := range []struct {
		whole bool
		gap   engine.Time
	}{{true, 167000}, {false, 167680}} {
		topo, err := fabric.Star(2, 100*engine.Gbps, engine.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		fcfg := fabric.DefaultConfig()
		fcfg.WholeNs = c.whole
		r := newRig(t, topo, fcfg, func(cfg *rnic.Config) {
			cfg.Compat.WholeNsPacing = c.whole
			cfg.CC = fixedRateSpec(50 * engine.Gbps)
		})
		obs := &txTimes{}
		r.net.HostPorts[0].Observer = obs
		r.postAt(0, 0, 1, 10_000)
		r.sim.Run(engine.Millisecond)
		if len(obs.at) != 10 {
			t.Fatalf("%d data packets, want 10", len(obs.at))
		}
		for i := 1; i < len(obs.at); i++ {
			if got := obs.at[i] - obs.at[i-1]; got != c.gap {
				t.Fatalf("whole ns %v: gap %d = %d ps, want %d", c.whole, i, got, c.gap)
			}
		}
	}
}
