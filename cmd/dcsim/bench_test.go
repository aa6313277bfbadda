package main

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/dcsim/dcsim/scenario"
)

// BenchmarkNetwork is the whole-network benchmark: the 128-host 100 Gbps
// spine-leaf under all-to-all Poisson WebSearch traffic at 50% load, MTU
// 1000, for 1 ms of arrivals plus the drain, once per congestion-control
// algorithm. One iteration is one whole run (building the scenario is not
// timed). It reports data packets and events per wall second, events and
// allocations per data packet, the peak number of packet structs (packets
// in flight) and the heap in use at the end of the run.
//
// It lives in package main so that it is compiled like the dcsim binary,
// with the profile-guided optimisation of default.pgo. To refresh that
// profile after changing a hot path:
//
//	go test ./cmd/dcsim -run '^$' -bench Network -benchtime 1x -o /tmp/dcsim.test -cpuprofile cmd/dcsim/default.pgo
func BenchmarkNetwork(b *testing.B) {
	for _, alg := range []string{"dcqcn", "hpcc", "timely", "dctcp", "none"} {
		b.Run(alg, func(b *testing.B) { benchRun(b, "duration=1ms", "cc.algorithm="+alg) })
	}
}

// BenchmarkSchedulers is the STORM comparison's network (the storm-cloud
// built-in: per-pair QPs, strict-priority switches, DCQCN, WebSearch 50%)
// for 1 ms of arrivals plus the drain, once per RNIC scheduler: the cost
// of the schedulers' heaps and bookkeeping on top of the fabric.
func BenchmarkSchedulers(b *testing.B) {
	for _, s := range []string{"fair", "srpt", "pias", "storm"} {
		b.Run(s, func(b *testing.B) { benchScenario(b, "storm-cloud", "duration=1ms", "nic.scheduler="+s) })
	}
}

// BenchmarkDefaultRun is `dcsim run` without writing files: the same network
// with 10 ms of arrivals (7.8M data packets). It takes about 20 s per
// iteration, so it is run by name only:
//
//	go test ./cmd/dcsim -run '^$' -bench DefaultRun -benchtime 1x -count 3
func BenchmarkDefaultRun(b *testing.B) { benchRun(b) }

func benchRun(b *testing.B, sets ...string) { benchScenario(b, "default", sets...) }

func benchScenario(b *testing.B, name string, sets ...string) {
	var pkts, events int64
	var mallocs, structs uint64
	var heap uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := scenario.Load(name, sets)
		if err != nil {
			b.Fatal(err)
		}
		sim, err := scenario.Build(s)
		if err != nil {
			b.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		r := sim.Run(scenario.Options{})
		b.StopTimer()
		runtime.ReadMemStats(&after)
		pkts += sim.Cluster.Counters.DataPackets
		events += r.Run.Events
		mallocs += after.Mallocs - before.Mallocs
		structs = max(structs, uint64(sim.Net.Pool.Allocated()))
		heap = max(heap, after.HeapInuse)
		b.StartTimer()
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(pkts)/sec, "pkts/s")
	b.ReportMetric(float64(events)/sec, "events/s")
	b.ReportMetric(float64(events)/float64(pkts), "events/pkt")
	b.ReportMetric(float64(mallocs)/float64(pkts), "allocs/pkt")
	b.ReportMetric(float64(structs), "pktStructs")
	b.ReportMetric(float64(heap)/(1<<20), "heapMiB")
}

// BenchmarkBuild is building a k-ary fat-tree scenario (the default's
// workload on k^3/4 hosts) up to its first event: topology, switches,
// route tables, NICs, the workload's generators. It reports the heap in
// use once built.
//
//	go test ./cmd/dcsim -run '^$' -bench Build -benchtime 1x -count 3
func BenchmarkBuild(b *testing.B) {
	for _, k := range []int{16, 32, 48} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			var heap uint64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, err := scenario.Load("default", []string{"topology.kind=fat-tree", fmt.Sprintf("topology.k=%d", k)})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				b.StartTimer()
				sim, err := scenario.Build(s)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heap = max(heap, ms.HeapInuse)
				runtime.KeepAlive(sim)
				b.StartTimer()
			}
			b.ReportMetric(float64(heap)/(1<<20), "heapMiB")
		})
	}
}
