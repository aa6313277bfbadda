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

// stamping is fair sharing that adds extra header bytes to every data
// packet in Stamp, as STORM adds storm_header_bytes.
type stamping struct {
	*baselines.Fair
	extra uint16
}

func (s *stamping) Stamp(_ *rnic.QP, p *fabric.Packet) { p.Size += s.extra }

// sendTimes records when each data packet left its NIC.
type sendTimes struct{ at []engine.Time }

func (o *sendTimes) Sent(now engine.Time, _ *rnic.QP, p *fabric.Packet) {
	o.at = append(o.at, now)
}
func (o *sendTimes) Acked(engine.Time, *rnic.QP, *fabric.Packet)                {}
func (o *sendTimes) RateChange(engine.Time, *rnic.QP, engine.Rate, engine.Rate) {}

// TestStampedBytesArePaced: bytes a scheduler adds in Stamp are paced and
// serialised like any header. A QP at half the 100 Gbps line rate sends
// 1000 B packets of 1048 B + 100 B stamped: they leave 1148 B at 50 Gbps
// = 183.68 ns apart, not the 167.68 ns of the unstamped 1048 B.
func TestStampedBytesArePaced(t *testing.T) {
	topo, err := fabric.Star(2, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	sim := engine.NewSim(1)
	net, err := fabric.Build(sim, topo, fabric.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	rtt, bdp := net.MaxRTTBDP(1000)
	half := cc.Spec{Name: "half", New: func(env cc.Env) cc.Algorithm { return &lineRate{env.LineRate / 2} }}
	cfg := rnic.Config{MTU: 1000, Headers: rocev2.ReferenceHeaders, DataClass: 3, AckInterval: 1,
		NackInterval: 500 * engine.Microsecond, RTO: 5 * engine.Millisecond,
		Mapping: rnic.Mapping{PerFlow: true}, CC: half,
		CCEnv: cc.Env{LineRate: 100 * engine.Gbps, MinRate: engine.Gbps, BaseRTT: rtt, BDP: bdp, MTU: 1000}}
	c, err := rnic.NewCluster(net, cfg, func(*rnic.Host) rnic.Scheduler {
		return &stamping{Fair: baselines.NewFair(3), extra: 100}
	})
	if err != nil {
		t.Fatal(err)
	}
	obs := &sendTimes{}
	c.Observer = obs
	m := c.NewMessage(0, 1, 3000)
	c.Post(m)
	sim.Run(engine.Second)
	if !m.Done || len(obs.at) != 3 {
		t.Fatalf("got done %v after %d packets, want done after 3", m.Done, len(obs.at))
	}
	want := (50 * engine.Gbps).TxTime(1148)
	for i := 1; i < 3; i++ {
		if got := obs.at[i] - obs.at[i-1]; got != want {
			t.Errorf("gap before packet %d: got %v, want %v", i, got, want)
		}
	}
}
