package rnic_test

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// The packet path (NIC pick, port transmit, wire, switch admission,
// enqueue, dequeue, ECN, delivery, ACK generation and processing) allocates
// nothing in steady state.
func TestSteadyStateNoAllocs(t *testing.T) {
	r := newRig(t, star(t, 3), fabric.DefaultConfig(), nil)
	r.postAt(0, 1, 0, 1<<40)
	r.postAt(0, 2, 0, 1<<40)          // two senders: the switch queue and PFC are exercised
	r.sim.Run(3 * engine.Millisecond) // past the buffer fill: the pool stops growing
	step := 10 * engine.Microsecond
	allocs := testing.AllocsPerRun(20, func() { r.sim.Run(r.sim.Now() + step) })
	if allocs != 0 {
		t.Fatalf("%.1f allocations per %v of simulated time, want 0", allocs, step)
	}
}

// BenchmarkForwarding is two long flows into one receiver through a
// switch: per data packet it costs the NIC pick, 2 hops each way, the ACK,
// queueing and PFC at the switch. Reported per data packet.
func BenchmarkForwarding(b *testing.B) {
	r := newRig(b, star(b, 3), fabric.DefaultConfig(), nil)
	r.postAt(0, 1, 0, 1<<50)
	r.postAt(0, 2, 0, 1<<50)
	r.sim.Run(100 * engine.Microsecond)
	b.ReportAllocs()
	b.ResetTimer()
	start := r.c.Counters.DataPackets
	ev := r.sim.Events()
	for r.c.Counters.DataPackets-start < int64(b.N) {
		r.sim.Run(r.sim.Now() + engine.Microsecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(r.sim.Events()-ev)/float64(b.N), "events/pkt")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pkts/s")
}
