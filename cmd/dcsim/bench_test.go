package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/wiring"
)

// BenchmarkNetwork is the whole-network benchmark: the 128-host 100 Gbps
// spine-leaf under all-to-all Poisson WebSearch traffic at 50% load, MTU
// 1000, for 1 ms of arrivals plus the drain, once per congestion-control
// algorithm. One iteration is one whole run (building the scenario is not
// timed). It reports data packets and events per wall second, data packets
// per CPU second of the process (pkts/cpu-s), data packets delivered per
// CPU second (dlv/cpu-s: sent minus those still queued or on a wire when
// the run ends, ACKs there included; the same when it drained), events and
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

// permutation writes a flow list in which every one of n hosts (hosts 0,
// stride, 2*stride, ...) sends size bytes at time 0 to another, by a fixed
// random derangement (seed 1), and returns its path.
func permutation(b *testing.B, n, stride int, size int64) string {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 0))
	var perm []int
	for {
		perm = rng.Perm(n)
		ok := true
		for i, p := range perm {
			ok = ok && i != p
		}
		if ok {
			break
		}
	}
	var sb strings.Builder
	sb.WriteString("src,dst,size_bytes,start_ns\n")
	for i, p := range perm {
		fmt.Fprintf(&sb, "%d,%d,%d,0\n", i*stride, p*stride, size)
	}
	path := filepath.Join(b.TempDir(), "perm.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkDeepQueues is the htsim comparison's workload (a k = 8
// fat-tree of 100 Gbps links, 128 hosts, a permutation of 125 MB flows,
// MTU 1000) for the
// first 2 ms, with DCQCN and with no congestion control: without CC the
// queues fill the 32 MiB shared buffers (hundreds of thousands of packets
// queued), so every hop touches packets queued long ago.
//
//	go test ./cmd/dcsim -run '^$' -bench DeepQueues -benchtime 1x -count 6
func BenchmarkDeepQueues(b *testing.B) {
	flows := permutation(b, 128, 1, 125_000_000)
	for _, alg := range []string{"dcqcn", "none"} {
		b.Run(alg, func(b *testing.B) {
			benchRun(b, "topology.kind=fat-tree", "topology.k=8", "topology.fabric_link=100Gbps", "workload.kind=flowlist",
				"workload.flowlist.file="+flows, "duration=1us", "drain_limit=2ms", "cc.algorithm="+alg)
		})
	}
}

// BenchmarkFlowList is the default's network running one flow list of
// 10^6 flows of 10 KB between random pairs (seed 1), one every 12.5 ns (50%
// of the hosts' capacity), to the end of the list plus the drain: the cost
// per packet and the memory of a million flow records. Building (scanning
// the list) is not timed. "kept" holds the records to the end
// of the run (wiring.Options without Dir, as a library caller that wants
// Result.Flows does); "streamed" gives the run a directory, as dcsim run
// does, so flows.parquet is written as flows finish. "control" is
// "streamed" with the same bytes in a tenth of the flows (10^5 flows of
// 100 KB, one every 125 ns, same pairs and load, the same 10^7 data
// packets): the difference between the two is the per-flow work. Run each
// alone for its own peak resident memory (maxrssMiB is the process's):
//
//	go test ./cmd/dcsim -run '^$' -bench 'FlowList/streamed' -benchtime 1x
func BenchmarkFlowList(b *testing.B) {
	list := flowList(b, 1_000_000, 10_000)
	sets := []string{"workload.kind=flowlist", "workload.flowlist.file=" + list, "duration=13ms"}
	b.Run("kept", func(b *testing.B) { benchScenario(b, "default", sets...) })
	b.Run("streamed", func(b *testing.B) { benchScenarioIn(b, b.TempDir(), "default", sets...) })
	b.Run("control", func(b *testing.B) {
		list := flowList(b, 100_000, 100_000)
		benchScenarioIn(b, b.TempDir(), "default", "workload.kind=flowlist", "workload.flowlist.file="+list, "duration=13ms")
	})
}

// flowList writes BenchmarkFlowList's list: n flows of size bytes between
// random pairs of the 128 hosts (seed 1), starting 12.5 ns * size/10^4
// apart (50% load), and returns its path.
func flowList(b *testing.B, n int, size int64) string {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 0))
	var sb strings.Builder
	sb.WriteString("src,dst,size_bytes,start_ns\n")
	for i := int64(0); i < int64(n); i++ {
		src := rng.IntN(128)
		dst := (src + 1 + rng.IntN(127)) % 128
		ps := i * size * 25 / 20 // 12.5 ns per 10 KB
		fmt.Fprintf(&sb, "%d,%d,%d,%d.%03d\n", src, dst, size, ps/1000, ps%1000)
	}
	path := filepath.Join(b.TempDir(), "flows.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkLargeFabric is the default's workload (WebSearch at 50%, DCQCN,
// MTU 1000) on k-ary fat-trees of 1024, 3456 and 8192 hosts (k = 16, 24,
// 32) for 100 us of arrivals plus the drain, against the same on the
// 128-host default: per-packet cost as the fabric grows.
// examples/scaling/measure.sh runs each size in its own process, for the
// peak resident memory (maxrssMiB) of that size alone.
//
//	go test ./cmd/dcsim -run '^$' -bench LargeFabric -benchtime 1x -count 6
func BenchmarkLargeFabric(b *testing.B) {
	for _, tc := range largeFabrics {
		b.Run(tc.name, func(b *testing.B) { benchRun(b, append(tc.sets, "duration=100us")...) })
	}
}

// largeFabrics are BenchmarkLargeFabric's and BenchmarkParallel's sizes.
var largeFabrics = []struct {
	name string
	sets []string
}{
	{"hosts=128", nil},
	{"hosts=1024", []string{"topology.kind=fat-tree", "topology.k=16"}},
	{"hosts=3456", []string{"topology.kind=fat-tree", "topology.k=24"}},
	{"hosts=8192", []string{"topology.kind=fat-tree", "topology.k=32"}},
}

// BenchmarkParallel is BenchmarkLargeFabric's runs on the parallel engine
// (--threads, docs/parallel.md) at 1 and 2 threads, with units by pod and,
// on the fat-trees, by switch (--units; the same on spine-leaf). Besides
// benchScenario's metrics it reports the World's: windows run, events
// per window, the speed-up its partition allows (events over the
// critical path's, docs/parallel.md), and the barrier's cost per window
// (exchange: handing out windows and delivering; wait: the first thread
// waiting for the others).
//
//	go test ./cmd/dcsim -run '^$' -bench 'Parallel/hosts=(128|1024|8192)' -benchtime 1x -count 6
func BenchmarkParallel(b *testing.B) {
	for _, tc := range largeFabrics {
		for _, units := range []fabric.Grain{fabric.GrainPod, fabric.GrainSwitch} {
			if units == fabric.GrainSwitch && tc.sets == nil {
				continue // spine-leaf: a unit per switch either way
			}
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/units=%s/threads=%d", tc.name, units, threads), func(b *testing.B) {
					benchScenarioWith(b, benchOptions{threads: threads, units: units}, "default", append(tc.sets, "duration=100us")...)
				})
			}
		}
	}
}

// BenchmarkSparseFabric separates the fabric's size from its load: the
// same 128 flows of 4 MB (a permutation, DCQCN, MTU 1000, to the drain) on
// a k = 8 fat-tree of 128 hosts and on a k = 32 fat-tree of 8,192, whose
// senders are hosts 0, 64, 128, ... (two per edge switch of every pod, so
// paths cross the cores as on k = 8). Both have the same packets in
// flight and about as many ports in use; what differs is the memory the
// fabric spans.
//
//	go test ./cmd/dcsim -run '^$' -bench SparseFabric -benchtime 1x -count 6
func BenchmarkSparseFabric(b *testing.B) {
	for _, tc := range []struct {
		name      string
		k, stride int
	}{{"hosts=128", 8, 1}, {"hosts=8192", 32, 64}} {
		flows := permutation(b, 128, tc.stride, 4_000_000)
		b.Run(tc.name, func(b *testing.B) {
			benchRun(b, "topology.kind=fat-tree", fmt.Sprintf("topology.k=%d", tc.k), "workload.kind=flowlist",
				"workload.flowlist.file="+flows, "duration=1us", "drain_limit=2ms")
		})
	}
}

func benchScenario(b *testing.B, name string, sets ...string) { benchScenarioIn(b, "", name, sets...) }

// benchScenarioIn is benchScenario with wiring.Options.Dir = dir (files
// streamed there during the run; "" for none).
func benchScenarioIn(b *testing.B, dir, name string, sets ...string) {
	benchScenarioWith(b, benchOptions{dir: dir}, name, sets...)
}

// benchOptions are benchScenarioWith's: the directory files are streamed
// to ("" for none), the parallel engine's threads (0: the sequential
// engine) and its units.
type benchOptions struct {
	dir     string
	threads int
	units   fabric.Grain
}

func benchScenarioWith(b *testing.B, opt benchOptions, name string, sets ...string) {
	var pkts, delivered, events int64
	var mallocs, structs uint64
	var heap uint64
	var cpu float64
	var world engine.WorldStats
	if opt.threads > 0 {
		sets = append([]string{"parallel.units=" + opt.units.String()}, sets...)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := wiring.Catalog().Load(name, sets)
		if err != nil {
			b.Fatal(err)
		}
		sim, err := wiring.BuildWith(s, wiring.BuildOptions{Threads: opt.threads})
		if err != nil {
			b.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		cpu0 := cpuSeconds()
		b.StartTimer()
		r := sim.Run(wiring.Options{Dir: opt.dir})
		b.StopTimer()
		cpu += cpuSeconds() - cpu0
		runtime.ReadMemStats(&after)
		k := sim.Cluster.Totals()
		pkts += k.DataPackets
		transit, _ := sim.Net.InTransit()
		delivered += k.DataPackets - transit
		events += r.Run.Events
		mallocs += after.Mallocs - before.Mallocs
		structs = max(structs, uint64(sim.Net.Pool.Allocated()))
		heap = max(heap, after.HeapInuse)
		if sim.World != nil {
			st := sim.World.Stats()
			world.Windows += st.Windows
			world.Events += st.Events
			world.CriticalEvents += st.CriticalEvents
			world.Exchange += st.Exchange
			world.Wait += st.Wait
		}
		b.StartTimer()
	}
	if world.Windows > 0 {
		w := float64(world.Windows)
		b.ReportMetric(float64(world.Events)/w, "events/window")
		b.ReportMetric(float64(world.Events)/float64(world.CriticalEvents), "bound")
		b.ReportMetric(world.Exchange.Seconds()*1e6/w, "exch-us/window")
		b.ReportMetric(world.Wait.Seconds()*1e6/w, "wait-us/window")
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(pkts)/sec, "pkts/s")
	b.ReportMetric(float64(pkts)/cpu, "pkts/cpu-s")
	b.ReportMetric(float64(delivered)/cpu, "dlv/cpu-s")
	b.ReportMetric(float64(events)/sec, "events/s")
	b.ReportMetric(float64(events)/float64(pkts), "events/pkt")
	b.ReportMetric(float64(mallocs)/float64(pkts), "allocs/pkt")
	b.ReportMetric(float64(structs), "pktStructs")
	b.ReportMetric(float64(heap)/(1<<20), "heapMiB")
	if mib, ok := maxRSSMiB(); ok {
		b.ReportMetric(mib, "maxrssMiB")
	}
}

// BenchmarkBuild is building a k-ary fat-tree scenario (the default's
// workload on k^3/4 hosts) up to its first event: topology, switches,
// route tables, NICs, the workload's generators. It reports the heap in
// use once built and the CPU seconds per build.
//
//	go test ./cmd/dcsim -run '^$' -bench Build -benchtime 1x -count 3
func BenchmarkBuild(b *testing.B) {
	for _, k := range []int{16, 32, 48} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) { benchBuild(b, k, 0) })
	}
	// The parallel engine's build (its per-thread views, pools and
	// queues), at 2 threads.
	for _, k := range []int{32, 48} {
		b.Run(fmt.Sprintf("k=%d/threads=2", k), func(b *testing.B) { benchBuild(b, k, 2) })
	}
}

// benchBuild is BenchmarkBuild on a k-ary fat-tree, on the parallel
// engine with threads threads (0: the sequential engine).
func benchBuild(b *testing.B, k, threads int) {
	var heap uint64
	var cpu float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := wiring.Catalog().Load("default", []string{"topology.kind=fat-tree", fmt.Sprintf("topology.k=%d", k)})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		cpu0 := cpuSeconds()
		b.StartTimer()
		sim, err := wiring.BuildWith(s, wiring.BuildOptions{Threads: threads})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cpuSeconds() - cpu0
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapInuse)
		runtime.KeepAlive(sim)
		b.StartTimer()
	}
	b.ReportMetric(float64(heap)/(1<<20), "heapMiB")
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
}
