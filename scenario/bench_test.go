package scenario

import (
	"runtime"
	"testing"
)

// BenchmarkNetwork is the whole-network benchmark: the 128-host 100 Gbps
// spine-leaf under all-to-all Poisson websearch traffic at 50% load, MTU
// 1000, for 1 ms of arrivals plus the drain, once per congestion-control
// algorithm. One iteration is one whole run; it reports data packets and
// events per wall second, events per data packet and the peak heap.
func BenchmarkNetwork(b *testing.B) {
	for _, alg := range []string{"dcqcn", "hpcc", "timely", "dctcp", "none"} {
		b.Run(alg, func(b *testing.B) {
			var pkts, events int64
			var peak uint64
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, err := Load("default", []string{"duration=1ms", "cc.algorithm=" + alg})
				if err != nil {
					b.Fatal(err)
				}
				sim, err := Build(s)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				r := sim.Run(Options{})
				pkts += sim.Cluster.Counters.DataPackets
				events += r.Run.Events
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(pkts)/sec, "pkts/s")
			b.ReportMetric(float64(events)/sec, "events/s")
			b.ReportMetric(float64(events)/float64(pkts), "events/pkt")
			b.ReportMetric(float64(peak)/(1<<20), "heapMiB")
		})
	}
}
