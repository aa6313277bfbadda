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

// worldRun is one run of the test workload: its networks (one, or one
// per thread: islands), its cluster and how to run it.
type worldRun struct {
	net *fabric.Network
	c   *rnic.Cluster
	run func(until engine.Time) bool
	// sim is host h's Sim, on which its messages are posted.
	sim func(h int) *engine.Sim
}

func spineLeaf(t *testing.T) *fabric.Topology {
	t.Helper()
	topo, err := fabric.SpineLeaf(fabric.SpineLeafConfig{Leaves: wLeaves, HostsPerLeaf: wHostsPerLeaf, Spines: wSpines,
		HostLink: 100 * engine.Gbps, FabricLink: 100 * engine.Gbps, Delay: engine.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// newWorldRun builds the spine-leaf with a DCQCN cluster: on a plain Sim
// when unit is nil, otherwise on a World of threads threads whose host h
// is in unit(h) of units. With one thread the network is one; with more,
// each thread runs a copy of it, an island, in which only its own hosts
// are attached, since the network does not run on several threads yet:
// so traffic must stay within units, and what the run shows is that the
// cluster's own state is kept apart per thread and its ids do not depend
// on the split.
func newWorldRun(t *testing.T, fcfg fabric.Config, units int, unit func(h int) int32, threads int) *worldRun {
	t.Helper()
	topo := spineLeaf(t)
	r := &worldRun{}
	var place func(int) rnic.Placement
	var err error
	if unit == nil {
		sim := engine.NewSim(1)
		r.run = sim.Run
		r.sim = func(int) *engine.Sim { return sim }
		if r.net, err = fabric.Build(sim, topo, fcfg); err != nil {
			t.Fatal(err)
		}
	} else {
		w, err := engine.NewWorld(1, units, threads, engine.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		r.run = w.Run
		r.sim = func(h int) *engine.Sim { return w.Sim(int(unit(h))) }
		islands := map[*engine.Sim]*fabric.Network{}
		for h := range wHosts {
			s := r.sim(h)
			if islands[s] == nil {
				if islands[s], err = fabric.Build(s, topo, fcfg); err != nil {
					t.Fatal(err)
				}
			}
		}
		r.net = islands[r.sim(0)]
		place = func(h int) rnic.Placement {
			return rnic.Placement{Sim: r.sim(h), Unit: unit(h), Net: islands[r.sim(h)]}
		}
	}
	rtt, bdp := r.net.MaxRTTBDP(1000)
	cfg := rnic.Config{MTU: 1000, Headers: rocev2.ReferenceHeaders, DataClass: 3, AckInterval: 1,
		NackInterval: 500 * engine.Microsecond, RTO: 100 * engine.Microsecond,
		Mapping: rnic.Mapping{PerFlow: true}, CC: dcqcn.Spec(dcqcn.DefaultParams(100 * engine.Gbps)),
		CCEnv: cc.Env{LineRate: r.net.HostPorts[0].Rate, MinRate: engine.Gbps, BaseRTT: rtt, BDP: bdp, MTU: 1000}}
	newSched := func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(cfg.DataClass) }
	if place == nil {
		r.c, err = rnic.NewCluster(r.net, cfg, newSched)
	} else {
		r.c, err = rnic.NewClusterPlaced(r.net, cfg, newSched, place)
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
// 1-40 KB between random pairs (within a leaf if local), a third of them
// into the first host of the sender's leaf or of the network (PFC, ECN
// marks, DCQCN's timers, and on a lossy fabric drops, NACKs and
// timeouts), each named by its index (NewMessageWithID). With oneSided,
// every 7th is a READ and every 11th a FETCH_ADD on one word of its
// target, whose responders find the requester's QP in another unit.
func (r *worldRun) post(t *testing.T, local, oneSided bool) []*rnic.Message {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 0))
	var ms []*rnic.Message
	at := engine.Time(0)
	for i := range 600 {
		src := rng.IntN(wHosts)
		first, n := 0, wHosts
		if local {
			first, n = src/wHostsPerLeaf*wHostsPerLeaf, wHostsPerLeaf
		}
		dst := first + (src-first+1+rng.IntN(n-1))%n
		if src != first && rng.IntN(3) == 0 {
			dst = first
		}
		m := rnic.NewMessageWithID(int64(i+1), src, dst, int64(1000+rng.IntN(40_000)))
		switch {
		case oneSided && i%11 == 0:
			m.Verb, m.Ext = rocev2.FetchAdd, &rnic.Ext{Addr: 64, Operand: uint64(i)}
		case oneSided && i%7 == 0:
			m.Verb = rocev2.Read
		}
		ms = append(ms, m)
		r.postAt(at, m)
		at += engine.Time(rng.IntN(300)) * engine.Nanosecond
	}
	if !r.run(engine.Second) {
		t.Fatal("events still pending at 1 s")
	}
	if k := r.c.Totals(); k.MessagesDone != int64(len(ms)) {
		t.Fatalf("%d of %d messages done", k.MessagesDone, len(ms))
	}
	return ms
}

// sameRuns fails unless every message of got completed as in want, at the
// same picosecond with the same retransmissions, and the counters agree.
func sameRuns(t *testing.T, name string, got, want []*rnic.Message, k, wantK rnic.Counters) {
	t.Helper()
	for i, m := range got {
		p := want[i]
		if m.Finished != p.Finished || m.Retransmitted != p.Retransmitted || m.PSN != p.PSN {
			t.Fatalf("%s: message %d: finished %v, retransmitted %d, psn %d; plain: %v, %d, %d",
				name, m.ID, m.Finished, m.Retransmitted, m.PSN, p.Finished, p.Retransmitted, p.PSN)
		}
		if m.Ext != nil && m.Ext.Result != p.Ext.Result {
			t.Fatalf("%s: %v %d returned %d; plain: %d", name, m.Verb, m.ID, m.Ext.Result, p.Ext.Result)
		}
	}
	if k != wantK {
		t.Errorf("%s: Totals %+v, want the plain run's %+v", name, k, wantK)
	}
}

// qpIDsByUnit fails unless every message's QP id is sequence<<b | unit of
// its source.
func qpIDsByUnit(t *testing.T, name string, ms []*rnic.Message, unit func(int) int32, b int) {
	t.Helper()
	for _, m := range ms {
		if mask := int64(1)<<b - 1; m.QPID&mask != int64(unit(m.Src)) || m.QPID>>b < 1 {
			t.Fatalf("%s: message %d from host %d (unit %d) on QP %d, want sequence<<%d | unit", name, m.ID, m.Src, unit(m.Src), m.QPID, b)
		}
	}
}

// namedFabric is a fabric configuration the World tests run on.
type namedFabric struct {
	name string
	cfg  fabric.Config
}

// fabrics is the default fabric and a lossy one that drops (so that
// NACKs and timeouts recover), with ECN marking or not.
func fabrics(ecn bool) []namedFabric {
	lossy := fabric.DefaultConfig()
	lossy.PFC = false
	lossy.Buffer = 200 * engine.KiB
	fs := []namedFabric{{"lossless", fabric.DefaultConfig()}, {"lossy", lossy}}
	for i := range fs {
		fs[i].cfg.ECN = ecn
	}
	return fs
}

// plainRun runs the workload (post) on the plain cluster: the reference
// the World runs must match.
func plainRun(t *testing.T, fc namedFabric, local, oneSided bool) (*worldRun, []*rnic.Message) {
	t.Helper()
	plain := newWorldRun(t, fc.cfg, 0, nil, 1)
	ms := plain.post(t, local, oneSided)
	if err := plain.c.CheckDrained(); err != nil {
		t.Fatal(err)
	}
	if k := plain.c.Counters; fc.name == "lossy" && k.Nacks+k.RTOs == 0 {
		t.Fatalf("the lossy run lost nothing (counters %+v): it tests no recovery", k)
	}
	return plain, ms
}

// TestWorldCluster: a cluster whose hosts sit in units of an engine.World
// (ids from per-unit counters, a QP table and counters per thread) runs
// exactly as the plain cluster: every message (SENDs, READs and
// FETCH_ADDs) completes at the same picosecond with the same
// retransmissions and results, and Totals equals the plain run's
// Counters; each QP id names its requester's unit in its low bits.
// The network runs on one thread here (TestWorldClusterThreads has more),
// with the hosts' units a leaf each or a host each; lossless and lossy
// (drops, NACKs, timeouts).
func TestWorldCluster(t *testing.T) {
	perLeaf := func(h int) int32 { return int32(h / wHostsPerLeaf) }
	perHost := func(h int) int32 { return int32(h) }
	for _, fc := range fabrics(true) {
		t.Run(fc.name, func(t *testing.T) {
			plain, want := plainRun(t, fc, false, true)
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
				w := newWorldRun(t, fc.cfg, u.units, u.unit, 1)
				got := w.post(t, false, true)
				if err := w.c.CheckDrained(); err != nil {
					t.Fatal(err)
				}
				sameRuns(t, u.name, got, want, w.c.Totals(), plain.c.Counters)
				if w.c.Counters != plain.c.Counters {
					t.Errorf("%s: Counters on one thread %+v, want the plain run's %+v", u.name, w.c.Counters, plain.c.Counters)
				}
				qpIDsByUnit(t, u.name, got, u.unit, u.bits)
			}
		})
	}
}

// TestWorldClusterThreads: on a World of 1, 2 and 3 threads (units a leaf
// each, then the spines), with traffic within each leaf, the cluster's
// hosts run at the same time on their units' threads, each thread with
// its own counters, QP tables and reused QPs, and every message completes
// as in the plain run, with the same QP ids for every thread count; under
// -race this shows that no state of the cluster is shared between
// threads. The network is a copy per thread (newWorldRun), ECN off so that
// no random stream is shared by leaves (fabric's "ecn" stream is one per
// network until the network runs on the World).
func TestWorldClusterThreads(t *testing.T) {
	unit := func(h int) int32 { return int32(h / wHostsPerLeaf) }
	for _, fc := range fabrics(false) {
		t.Run(fc.name, func(t *testing.T) {
			plain, want := plainRun(t, fc, true, false)
			var ids []int64
			for threads := 1; threads <= 3; threads++ {
				name := fmt.Sprintf("%d threads", threads)
				w := newWorldRun(t, fc.cfg, wLeaves+wSpines, unit, threads)
				got := w.post(t, true, false)
				sameRuns(t, name, got, want, w.c.Totals(), plain.c.Counters)
				if threads > 1 && w.c.Counters != (rnic.Counters{}) {
					t.Errorf("%s: Counters %+v, want zero (the threads count apart)", name, w.c.Counters)
				}
				qpIDsByUnit(t, name, got, unit, 2)
				for i, m := range got {
					if threads == 1 {
						ids = append(ids, m.QPID)
					} else if m.QPID != ids[i] {
						t.Fatalf("%s: message %d on QP %d, on QP %d with one thread", name, m.ID, m.QPID, ids[i])
					}
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
	unit := func(h int) int32 { return int32(h / wHostsPerLeaf) }
	r := newWorldRun(t, fabric.DefaultConfig(), wLeaves+wSpines, unit, 3)
	for _, h := range r.c.Hosts {
		if h.Sim() != r.sim(h.ID) {
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
