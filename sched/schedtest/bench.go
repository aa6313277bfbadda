package schedtest

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// BenchPick measures one egress decision of a NIC with qps backlogged
// QPs: the NIC's Next (release of paced QPs, the scheduler's Pick, the
// packet build and the scheduler's Sent bookkeeping), called directly on
// host 0 with the port and the rest of the network frozen. Every QP holds
// one message of about 2^40 bytes (sizes differ by a few KB, so that
// size-based orders have work to do); nothing is ever acknowledged, CC is
// line rate without a window and the RTO is off, so every QP stays ready.
// A scheduler that gates large transactions (storm) should be given
// settings under which these messages are not gated.
//
// It reports ns/op per decision; compare qps = 100, 1000, 10000 for the
// growth with n.
func BenchPick(b *testing.B, newSched func(h *rnic.Host) rnic.Scheduler, qps int) {
	decide := decider(b, newSched, qps)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		decide()
	}
}

// DecisionAllocs is the average number of allocations of one egress
// decision in BenchPick's set-up (testing.AllocsPerRun over 1000
// decisions, after 1000 to warm up). A scheduler's steady state should
// allocate nothing.
func DecisionAllocs(tb testing.TB, newSched func(h *rnic.Host) rnic.Scheduler, qps int) float64 {
	decide := decider(tb, newSched, qps)
	for i := 0; i < 1000; i++ {
		decide()
	}
	return testing.AllocsPerRun(1000, decide)
}

// decider builds BenchPick's NIC and returns one decision.
func decider(tb testing.TB, newSched func(h *rnic.Host) rnic.Scheduler, qps int) func() {
	r := NewRig(tb, Config{Hosts: 2, Mapping: rnic.Mapping{Pool: qps}, Fabric: func(f *fabric.Config) {},
		NIC: func(n *rnic.Config) { n.RTO = 0 }}, newSched)
	rng := engine.NewStream(1, "bench")
	for i := 0; i < qps; i++ {
		r.PostAt(0, 0, 1, 1<<40+rng.Int64N(1<<20), 0)
	}
	r.Sim.Run(0) // posts; the port starts one packet, which stays on the wire
	h := r.Cluster.Hosts[0]
	pool := r.Net.Pool
	now := r.Sim.Now()
	n := 0
	return func() {
		p := h.Next(now)
		if p == nil {
			tb.Fatalf("decision %d: no packet (a QP was gated or not ready)", n)
		}
		n++
		pool.Put(p)
	}
}
