package rnic_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/cc/dcqcn"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// The World runs below use a spine-leaf of 4 leaves of 4 hosts and 2
// spines: units are the leaves with their hosts, then the spines (or each
// host a unit of its own, then the switches).
const (
	wLeaves       = 4
	wHostsPerLeaf = 4
	wHosts        = wLeaves * wHostsPerLeaf
	wSpines       = 2
)

// worldRun is one run of the test workload: the network, its cluster and
// how to run it.
type worldRun struct {
	net *fabric.Network
	c   *rnic.Cluster
	run func(until engine.Time) bool
	// sim is host h's Sim, on which its messages are posted.
	sim func(h int) *engine.Sim
}

// newWorldRun builds the spine-leaf with a DCQCN cluster: on a plain Sim
// when unit is nil, otherwise on a World of one thread whose host h is in
// unit(h) of units.
func newWorldRun(t *testing.T, fcfg fabric.Config, units int, unit func(h int) int32) *worldRun {
	t.Helper()
	topo, err := fabric.SpineLeaf(fabric.SpineLeafConfig{Leaves: wLeaves, HostsPerLeaf: wHostsPerLeaf, Spines: wSpines,
		HostLink: 100 * engine.Gbps, FabricLink: 100 * engine.Gbps, Delay: engine.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	r := &worldRun{}
	var sim *engine.Sim
	var w *engine.World
	if unit == nil {
		sim = engine.NewSim(1)
		r.run = sim.Run
		r.sim = func(int) *engine.Sim { return sim }
	} else {
		if w, err = engine.NewWorld(1, units, 1, engine.Microsecond); err != nil {
			t.Fatal(err)
		}
		sim = w.Sim(0)
		r.run = w.Run
		r.sim = func(h int) *engine.Sim { return w.Sim(int(unit(h))) }
	}
	if r.net, err = fabric.Build(sim, topo, fcfg); err != nil {
		t.Fatal(err)
	}
	rtt, bdp := r.net.MaxRTTBDP(1000)
	cfg := rnic.Config{MTU: 1000, Headers: rocev2.ReferenceHeaders, DataClass: 3, AckInterval: 1,
		NackInterval: 500 * engine.Microsecond, RTO: 100 * engine.Microsecond,
		Mapping: rnic.Mapping{PerFlow: true}, CC: dcqcn.Spec(dcqcn.DefaultParams(100 * engine.Gbps)),
		CCEnv: cc.Env{LineRate: r.net.HostPorts[0].Rate, MinRate: engine.Gbps, BaseRTT: rtt, BDP: bdp, MTU: 1000}}
	newSched := func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(cfg.DataClass) }
	if unit == nil {
		r.c, err = rnic.NewCluster(r.net, cfg, newSched)
	} else {
		r.c, err = rnic.NewClusterOnUnits(r.net, cfg, newSched, r.sim, unit)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// postAt posts m from a handler on its source host's Sim.
func (r *worldRun) postAt(at engine.Time, m *rnic.Message) {
	r.sim(m.Src).At(at, &poster{r.c, m}, 0)
}

// post posts the test workload and runs it to the end: 600 messages of
// 1-40 KB between random pairs, a third of them into host 0 (PFC,
// ECN marks, DCQCN's timers, and on a lossy fabric drops, NACKs and
// timeouts), each named by its index (NewMessageWithID).
func (r *worldRun) post(t *testing.T) []*rnic.Message {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 0))
	var ms []*rnic.Message
	at := engine.Time(0)
	for i := range 600 {
		src := rng.IntN(wHosts)
		dst := (src + 1 + rng.IntN(wHosts-1)) % wHosts
		if src != 0 && rng.IntN(3) == 0 {
			dst = 0
		}
		m := rnic.NewMessageWithID(int64(i+1), src, dst, int64(1000+rng.IntN(40_000)))
		ms = append(ms, m)
		r.postAt(at, m)
		at += engine.Time(rng.IntN(300)) * engine.Nanosecond
	}
	if !r.run(engine.Second) {
		t.Fatal("events still pending at 1 s")
	}
	if err := r.c.CheckDrained(); err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestWorldCluster: a cluster whose hosts sit in units of an engine.World
// (ids from per-unit counters, a QP table and counters per thread) runs
// exactly as the plain cluster: every message completes at the same
// picosecond with the same retransmissions, and Totals equals the plain
// run's Counters; each QP id names its requester's unit in its low bits.
// The network runs on one thread here (fabric does not run on several
// yet), with the hosts' units a leaf each or a host each; lossless and
// lossy (drops, NACKs, timeouts).
func TestWorldCluster(t *testing.T) {
	perLeaf := func(h int) int32 { return int32(h / wHostsPerLeaf) }
	perHost := func(h int) int32 { return int32(h) }
	lossy := fabric.DefaultConfig()
	lossy.PFC = false
	lossy.Buffer = 200 * engine.KiB
	for _, fc := range []struct {
		name string
		cfg  fabric.Config
	}{{"lossless", fabric.DefaultConfig()}, {"lossy", lossy}} {
		t.Run(fc.name, func(t *testing.T) {
			plain := newWorldRun(t, fc.cfg, 0, nil)
			want := plain.post(t)
			if fc.name == "lossy" && plain.c.Counters.Nacks+plain.c.Counters.RTOs == 0 {
				t.Fatalf("the lossy run lost nothing (counters %+v): it tests no recovery", plain.c.Counters)
			}
			if got := plain.c.Totals(); got != plain.c.Counters {
				t.Errorf("plain Totals %+v, want Counters %+v", got, plain.c.Counters)
			}
			for _, u := range []struct {
				name  string
				units int
				unit  func(int) int32
				bits  int
			}{
				{"per leaf", wLeaves + wSpines, perLeaf, 2},
				{"per host", wHosts + wLeaves + wSpines, perHost, 4},
			} {
				w := newWorldRun(t, fc.cfg, u.units, u.unit)
				got := w.post(t)
				for i, m := range got {
					p := want[i]
					if m.Finished != p.Finished || m.Retransmitted != p.Retransmitted || m.PSN != p.PSN {
						t.Fatalf("%s: message %d: finished %v, retransmitted %d, psn %d; plain: %v, %d, %d",
							u.name, m.ID, m.Finished, m.Retransmitted, m.PSN, p.Finished, p.Retransmitted, p.PSN)
					}
					if mask := int64(1)<<u.bits - 1; m.QPID&mask != int64(u.unit(m.Src)) || m.QPID>>u.bits < 1 {
						t.Fatalf("%s: message %d from host %d (unit %d) on QP %d, want sequence<<%d | unit", u.name, m.ID, m.Src, u.unit(m.Src), m.QPID, u.bits)
					}
				}
				if k := w.c.Totals(); k != plain.c.Counters {
					t.Errorf("%s: Totals %+v, want the plain run's %+v", u.name, k, plain.c.Counters)
				}
			}
		})
	}
}

// TestWorldClusterPlacement: on a World of several threads each host runs
// on its unit's thread (Host.Sim), and what crosses units where a thread
// could not see it consistently is refused: a READ or ATOMIC (its
// responder reads the requester's WQE) and Cluster.WQE.
func TestWorldClusterPlacement(t *testing.T) {
	const units = wLeaves + wSpines
	w, err := engine.NewWorld(1, units, 3, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	unit := func(h int) int32 { return int32(h / wHostsPerLeaf) }
	r := newWorldRunOn(t, w, unit)
	for _, h := range r.c.Hosts {
		if h.Sim() != w.Sim(int(unit(h.ID))) {
			t.Errorf("host %d runs on another thread than its unit %d", h.ID, unit(h.ID))
		}
	}
	for _, verb := range []rocev2.Verb{rocev2.Read, rocev2.FetchAdd} {
		m := rnic.NewMessageWithID(1, 0, 5, 4096)
		m.Verb = verb
		if msg := panicOf(func() { r.c.Post(m) }); !strings.Contains(msg, "one thread only") {
			t.Errorf("Post of a %v on 3 threads: panic %q, want one naming the one-thread limit", verb, msg)
		}
	}
	if msg := panicOf(func() { r.c.WQE(&fabric.Packet{QP: 1}) }); !strings.Contains(msg, "one thread only") {
		t.Errorf("WQE on 3 threads: panic %q, want one naming the one-thread limit", msg)
	}
	if k := r.c.Totals(); k != (rnic.Counters{}) {
		t.Errorf("Totals before any post: %+v, want zero", k)
	}
}

// newWorldRunOn builds the spine-leaf on w's first thread with its hosts
// in unit(h) (not to be run: the network's own events would all be on that
// thread).
func newWorldRunOn(t *testing.T, w *engine.World, unit func(int) int32) *worldRun {
	t.Helper()
	topo, err := fabric.SpineLeaf(fabric.SpineLeafConfig{Leaves: wLeaves, HostsPerLeaf: wHostsPerLeaf, Spines: wSpines,
		HostLink: 100 * engine.Gbps, FabricLink: 100 * engine.Gbps, Delay: engine.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	r := &worldRun{sim: func(h int) *engine.Sim { return w.Sim(int(unit(h))) }}
	if r.net, err = fabric.Build(w.Sim(0), topo, fabric.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	cfg := rnic.Config{MTU: 1000, Headers: rocev2.ReferenceHeaders, DataClass: 3, AckInterval: 1,
		Mapping: rnic.Mapping{PerFlow: true}, CC: lineRateSpec(), CCEnv: cc.Env{LineRate: 100 * engine.Gbps}}
	r.c, err = rnic.NewClusterOnUnits(r.net, cfg, func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(3) }, r.sim, unit)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// panicOf is the panic f raises, printed, or "" if none.
func panicOf(f func()) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = fmt.Sprint(p)
		}
	}()
	f()
	return ""
}
