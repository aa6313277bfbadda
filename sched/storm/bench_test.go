package storm_test

import (
	"fmt"
	"testing"

	"github.com/dcsim/dcsim/sched/schedtest"
	"github.com/dcsim/dcsim/sched/storm"
)

// BenchmarkPick is one egress decision with 100, 1,000 and 10,000 ready
// QPs on the NIC (see schedtest.BenchPick). The full scheduler runs with
// bdp_bytes = 2^50 so that the 2^40-byte messages are P_small and never
// wait for grants: the benchmark measures the urgency heaps, which every
// decision of every variant uses. storm-sw (round robin) moves the served
// QP to the bottom of its heap each time, the worst case of O(log n).
func BenchmarkPick(b *testing.B) {
	full := storm.DefaultParams()
	full.BDPBytes = 1 << 50
	for _, s := range []struct {
		name string
		p    storm.Params
	}{
		{"storm", full},
		{"storm-sender", storm.DefaultParamsFor(storm.SenderOnly)},
		{"storm-sw", storm.DefaultParamsFor(storm.Software)},
	} {
		for _, n := range []int{100, 1000, 10000} {
			b.Run(fmt.Sprintf("%s/qps=%d", s.name, n), func(b *testing.B) {
				schedtest.BenchPick(b, storm.New(s.p, storm.Env{}), n)
			})
		}
	}
}

// A decision allocates nothing in steady state.
func TestDecisionAllocs(t *testing.T) {
	full := storm.DefaultParams()
	full.BDPBytes = 1 << 50
	for _, p := range []storm.Params{full, storm.DefaultParamsFor(storm.SenderOnly), storm.DefaultParamsFor(storm.Software)} {
		if got := schedtest.DecisionAllocs(t, storm.New(p, storm.Env{}), 100); got != 0 {
			t.Errorf("%s: %.2f allocations per decision, want 0", p.Variant, got)
		}
	}
}
