package baselines_test

import (
	"fmt"
	"testing"

	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/sched/schedtest"
)

// BenchmarkPick is one egress decision with 100, 1,000 and 10,000 ready
// QPs on the NIC (see schedtest.BenchPick). Every scheduler here keeps its
// ready QPs in O(log n) structures, so the cost grows by a roughly
// constant step per tenfold n (plus cache misses once the QP states no
// longer fit in cache).
func BenchmarkPick(b *testing.B) {
	for _, s := range []struct {
		name string
		new  func(*rnic.Host) rnic.Scheduler
	}{
		{"fair", func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(3) }},
		{"srpt", baselines.NewSRPT(baselines.DefaultSRPTParams())},
		{"pias", baselines.NewPIAS(benchPIAS())},
	} {
		for _, n := range []int{100, 1000, 10000} {
			b.Run(fmt.Sprintf("%s/qps=%d", s.name, n), func(b *testing.B) { schedtest.BenchPick(b, s.new, n) })
		}
	}
}

// benchPIAS is PIAS's default with the "inherit" guard: BenchPick's rig
// never acknowledges, so the default stall guard would stop every QP at
// its first threshold (about 25 decisions per QP, 24 KB) and the
// benchmark would run out of packets at the default benchtime; inherit
// ranks by the same levels and heaps.
func benchPIAS() baselines.PIASParams {
	p := baselines.DefaultPIASParams()
	p.Guard = baselines.GuardInherit
	return p
}

// A decision allocates nothing in steady state.
func TestDecisionAllocs(t *testing.T) {
	for name, s := range map[string]func(*rnic.Host) rnic.Scheduler{
		"srpt": baselines.NewSRPT(baselines.DefaultSRPTParams()),
		"pias": baselines.NewPIAS(baselines.DefaultPIASParams()),
	} {
		if got := schedtest.DecisionAllocs(t, s, 100); got != 0 {
			t.Errorf("%s: %.2f allocations per decision, want 0", name, got)
		}
	}
}
