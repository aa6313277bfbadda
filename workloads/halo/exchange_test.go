package halo

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/cc/none"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/transport/rocev2"
)

const psPerByte = 80 // at 100 Gbps

func ser(bytes int64) engine.Time { return engine.Time(bytes * psPerByte) }

// cluster is a NIC per host of topo at 100 Gbps, one QP per host pair,
// no congestion control, with the given receiver.
func cluster(t *testing.T, topo *fabric.Topology, router fabric.Router, receiver func(*rnic.Config)) *rnic.Cluster {
	t.Helper()
	sim := engine.NewSim(1)
	fcfg := fabric.DefaultConfig()
	if router != nil {
		fcfg.Router = router
	}
	net, err := fabric.Build(sim, topo, fcfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rnic.Config{MTU: 1000, Headers: rocev2.ReferenceHeaders, DataClass: 3, AckInterval: 1,
		NackInterval: 500 * engine.Microsecond, RTO: 5 * engine.Millisecond,
		Mapping: rnic.Mapping{Pool: 1}, CC: none.Spec(none.Params{}),
		CCEnv: cc.Env{LineRate: 100 * engine.Gbps, MinRate: engine.Gbps, MTU: 1000}}
	if receiver != nil {
		receiver(&cfg)
	}
	c, err := rnic.NewCluster(net, cfg, func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(3) })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func defaults(g Grid) Config {
	hosts := make([]int, g.Ranks())
	for i := range hosts {
		hosts[i] = i
	}
	return Config{Grid: g, Hosts: hosts, ParticleBytes: 128, RingCapacity: 4096, Batch: 64, Particles: 64,
		PollInterval: engine.Microsecond}
}

// run runs x to the end and checks it and the cluster; only, if not nil,
// are the pairs that send.
func run(t *testing.T, c *rnic.Cluster, cfg Config, only ...int) *Exchange {
	t.Helper()
	x, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if only != nil {
		for i, p := range x.pairs {
			if !slices.Contains(only, i) {
				p.remaining, p.total = 0, 0
			}
		}
	}
	x.Start()
	if !c.Sim.Run(engine.Second) {
		t.Fatal("events still pending at 1 s")
	}
	if !x.Done() {
		t.Fatalf("exchange not done: %+v", x.Counters)
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckDrained(); err != nil {
		t.Fatal(err)
	}
	return x
}

// One batch of 64 particles between two ranks on a 2-host star (100 Gbps,
// 1 us links): the READ of head (a 64 B request, an 8 B response of 56 B
// on the wire) completes after its round trip; the first WRITE is posted
// then, and leaves after the 60 B ACK of the READ response queued at that
// instant; its 8,192 B are 8 packets of 1048 B and one of 240 B, then the
// 76 B FETCH_ADD, back to back; the switch forwards a packet once it has
// all of it, so its output runs a 1048 B packet behind: the last full
// packet leaves it 2 serialisations after it left A, the 240 B packet and
// the FETCH_ADD queue behind it, and the FETCH_ADD executes at B a hop
// later; the tail is visible then (dma_delay 0).
func TestOneBatchTiming(t *testing.T) {
	topo, err := fabric.Star(2, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	c := cluster(t, topo, nil, nil)
	cfg := defaults(Grid{X: 2, Y: 1, Z: 1})
	x := run(t, c, cfg, 0) // rank 0 to 1 only
	if len(x.Batches) != 1 {
		t.Fatalf("got %d batches, want 1", len(x.Batches))
	}
	b := x.Batches[0]
	readDone := 2*(ser(64)+engine.Microsecond) + 2*(ser(56)+engine.Microsecond)
	faaAtB := readDone + ser(60) + 9*ser(1048) + ser(240) + ser(76) + 2*engine.Microsecond
	if b.Posted != readDone || b.TailExecuted != faaAtB || b.TailVisible != faaAtB {
		t.Errorf("batch 0: first WRITE posted at %v, tail executed at %v, visible at %v; want %v, %v, %v",
			b.Posted, b.TailExecuted, b.TailVisible, readDone, faaAtB, faaAtB)
	}
	if b.Violation || b.Writes != 1 || b.HeadReads != 1 || b.Packets != 9 || b.Reordered != 0 {
		t.Errorf("batch 0: violation %v, %d WRITEs, %d READs, %d packets, %d reordered; want false, 1, 1, 9, 0",
			b.Violation, b.Writes, b.HeadReads, b.Packets, b.Reordered)
	}
	if k := x.Counters; k.Sent != 64 || k.Received != 64 || k.Ops() != 3 || k.Violations != 0 || k.Stale != 0 {
		t.Errorf("counters %+v: want 64 sent and received, 3 operations, no violation, nothing stale", k)
	}
}

// A 3x3x3 grid on a 27-host star, 8,192 particles per ordered pair (twice
// the ring: it wraps and fills), in order: every particle arrives once,
// no batch violates, and each batch is 1 READ, 1 or 2 WRITEs and a
// FETCH_ADD, so operations per particle are about 3/64.
func TestGridInOrder(t *testing.T) {
	topo, err := fabric.Star(27, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	c := cluster(t, topo, nil, nil)
	cfg := defaults(Grid{X: 3, Y: 3, Z: 3})
	cfg.Particles = 8192
	x := run(t, c, cfg)
	k := x.Counters
	pairs := int64(len(cfg.Grid.Pairs()))
	if k.Batches != pairs*128 || k.Sent != pairs*8192 || k.Received != k.Sent || k.Violations != 0 || k.Stale != 0 {
		t.Errorf("counters %+v: want %d batches, %d particles each way, no violation", k, pairs*128, pairs*8192)
	}
	wraps := int64(0)
	for _, b := range x.Batches {
		if b.Writes == 2 {
			wraps++
		}
	}
	// 4096 is a multiple of 64: batches never straddle the end of the ring.
	if k.Atomics != k.Batches || k.Writes != k.Batches+wraps || wraps != 0 || k.Reads < k.Batches {
		t.Errorf("operations %+v with %d wraps: want a READ (or more), a WRITE and a FETCH_ADD per batch", k, wraps)
	}
	t.Logf("%d pairs, %d batches, %.4f operations per particle, %d head re-reads", pairs, k.Batches, float64(k.Ops())/float64(k.Sent), k.Reads-k.Batches)
}

// A batch size that does not divide the ring makes batches wrap: two
// WRITEs each time.
func TestWrap(t *testing.T) {
	topo, err := fabric.Star(2, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	c := cluster(t, topo, nil, nil)
	cfg := defaults(Grid{X: 2, Y: 1, Z: 1})
	cfg.Batch, cfg.RingCapacity, cfg.Particles = 48, 100, 480
	x := run(t, c, cfg)
	wraps := 0
	for _, b := range x.Batches {
		if b.Writes == 2 {
			wraps++
		}
	}
	// Batches start at 0, 48, 96 (wraps), 44, 92 (wraps), 40, 88 (wraps), 36, 84 (wraps), 32: 4 per direction.
	if wraps != 8 || x.Counters.Received != 960 {
		t.Errorf("got %d wrapping batches and %d particles received, want 8 and 960", wraps, x.Counters.Received)
	}
}

// sprayFabric is 2 leaves of 4 hosts and 4 spines; the wire from leaf 0
// to spine s is 1 us + s*spread, so the 4 paths from leaf 0 differ by up
// to 3*spread.
func sprayFabric(t *testing.T, spread engine.Time) *fabric.Topology {
	topo, err := fabric.SpineLeaf(fabric.SpineLeafConfig{Leaves: 2, HostsPerLeaf: 4, Spines: 4,
		HostLink: 100 * engine.Gbps, FabricLink: 100 * engine.Gbps, Delay: engine.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	leaf0, spine0 := topo.Hosts, topo.Hosts+2
	for i, l := range topo.Links {
		if l.A == leaf0 && l.B >= spine0 {
			topo.Links[i].Delay += engine.Time(l.B-spine0) * spread
		}
	}
	return topo
}

// The write-then-atomic publish under per-packet spraying (docs/model.md
// §11.2): 4 ranks on leaf 0 in a 2x2x2 grid with 4 on leaf 1, paths of
// different delays. ooo-eager publishes tails before their data in some
// batches; ooo-ordered, go-back-N and the implicit fence never do.
func TestPublishOrdering(t *testing.T) {
	for _, tc := range []struct {
		name      string
		receiver  func(*rnic.Config)
		violating bool
	}{
		{"inorder", nil, false},
		{"ooo-ordered", func(c *rnic.Config) { c.Selective, c.Atomics = true, rnic.AtomicDeferred }, false},
		{"ooo-eager", func(c *rnic.Config) { c.Selective, c.Atomics = true, rnic.AtomicEager }, true},
		{"ooo-eager, implicit fence", func(c *rnic.Config) {
			c.Selective, c.Atomics, c.ImplicitFence = true, rnic.AtomicEager, true
		}, false},
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		c := cluster(t, sprayFabric(t, 500*engine.Nanosecond), fabric.Spray{Rand: rng.Uint32}, tc.receiver)
		cfg := defaults(Grid{X: 2, Y: 2, Z: 2})
		cfg.Particles = 640
		x := run(t, c, cfg)
		k := x.Counters
		if got := k.Violations > 0; got != tc.violating {
			t.Errorf("%s: %d violations in %d batches, want violations %v", tc.name, k.Violations, k.Batches, tc.violating)
		}
		if !tc.violating && k.Stale != 0 {
			t.Errorf("%s: %d particles read before visible, want 0", tc.name, k.Stale)
		}
		t.Logf("%s: %d of %d batches violate, %d particles read stale, %d out-of-order packets", tc.name, k.Violations, k.Batches, k.Stale, c.Counters.OutOfOrderData)
	}
}

// The two-sided comparison: one SEND per batch, no READ and no ATOMIC
// (1/64 operations per particle), never a violation; its batch is visible
// when its last byte is.
func TestTwoSided(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := cluster(t, sprayFabric(t, 500*engine.Nanosecond), fabric.Spray{Rand: rng.Uint32},
		func(c *rnic.Config) { c.Selective, c.Atomics = true, rnic.AtomicEager })
	cfg := defaults(Grid{X: 2, Y: 2, Z: 2})
	cfg.Particles, cfg.TwoSided = 640, true
	x := run(t, c, cfg)
	k := x.Counters
	if k.Violations != 0 || k.Stale != 0 || k.Reads+k.Writes+k.Atomics != 0 || k.Sends != k.Batches || k.Ops()*64 != k.Sent {
		t.Errorf("two-sided counters %+v: want no violation, one SEND per batch (1/64 per particle)", k)
	}
	for _, b := range x.Batches {
		if b.TailVisible != b.DataVisible {
			t.Fatalf("batch %d: visible at %v, its data at %v; want equal", b.Index, b.TailVisible, b.DataVisible)
		}
	}
}

// Host memory visibility: a constant dma_delay shifts every write alike
// (the in-order exchange stays clean, the tail visible dma_delay after
// the FETCH_ADD executes); PCIe relaxed ordering draws an independent
// delay per write, so even in-order delivery can show a tail before its
// data.
func TestMemoryVisibility(t *testing.T) {
	topo, err := fabric.Star(8, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		mem       Memory
		violating bool
	}{
		{"dma_delay 300ns", Memory{DMADelay: 300 * engine.Nanosecond}, false},
		{"relaxed ordering", Memory{DMADelay: 300 * engine.Nanosecond, Relaxed: true, RelaxedMax: engine.Microsecond}, true},
	} {
		c := cluster(t, topo, nil, nil)
		cfg := defaults(Grid{X: 2, Y: 2, Z: 2})
		cfg.Particles, cfg.Memory, cfg.Rand = 640, tc.mem, rand.New(rand.NewPCG(3, 4))
		x := run(t, c, cfg)
		if got := x.Counters.Violations > 0; got != tc.violating {
			t.Errorf("%s: %d violations of %d batches, want violations %v", tc.name, x.Counters.Violations, x.Counters.Batches, tc.violating)
		}
		if !tc.mem.Relaxed {
			for _, b := range x.Batches {
				if b.TailVisible != b.TailExecuted+tc.mem.DMADelay {
					t.Fatalf("%s: batch %d: tail visible at %v, executed at %v; want %v later", tc.name, b.Index, b.TailVisible, b.TailExecuted, tc.mem.DMADelay)
				}
			}
		}
		t.Logf("%s: %d of %d batches violate", tc.name, x.Counters.Violations, x.Counters.Batches)
	}
}
