package mpitrace_test

import (
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/wiring"
	"github.com/dcsim/dcsim/workloads/mpitrace"
)

func run(t *testing.T, sets ...string) (*wiring.Result, *mpitrace.Exec) {
	t.Helper()
	base := []string{"topology.kind=fat-tree", "topology.k=4", "cc.algorithm=none", "duration=1us", "drain_limit=100ms", "workload.kind=mpitrace"}
	s, err := wiring.Catalog().Parse("mpitrace.yaml", wiring.Catalog().Default().YAML(), append(base, sets...))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := wiring.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run(wiring.Options{})
	x := sim.ClosedLoops()[0].(*wiring.MPITraceLoop).Exec
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	return res, x
}

type key struct{ it, ph, src int }

// Every phase of the ring allreduce is posted exactly when the rank's
// previous phase completed (its send acknowledged and its predecessor's
// message to it), or at its bucket's ready time, each iteration starts
// at the previous one's end (at least the 30 us step after its start),
// and mpitrace.exec_ns is the last rank's end. Runs twice: identical.
func TestInceptionRingDependencies(t *testing.T) {
	sets := []string{"workload.mpitrace.app=inception-v3", "workload.mpitrace.ranks=4", "workload.mpitrace.params=1000000",
		"workload.mpitrace.bucket=1MB", "workload.mpitrace.step_time=30us", "workload.mpitrace.iterations=2", "workload.hosts=0,5,10,15"}
	res, x := run(t, sets...)
	if got := len(x.Log); got != 2*4*4*6 { // 2 iterations, 4 buckets, 4 ranks, 6 steps
		t.Fatalf("got %d messages, want 192", got)
	}
	posted, finished := map[key]engine.Time{}, map[key]engine.Time{}
	for _, r := range x.Log {
		if r.Bytes != 250_000 || r.Dst != (r.Src+1)%4 {
			t.Fatalf("%+v: want 250,000 B to the ring successor", r)
		}
		k := key{r.Iteration, r.Phase, r.Src}
		posted[k], finished[k] = r.Posted, r.Finished
	}
	// 4 MB of gradients (1e6 params) in 1 MB buckets: bucket b is ready
	// 10 us (the forward third) + 20 us x (b+1)/4 into the iteration.
	var itStart [4]engine.Time
	var last engine.Time
	for it := range 2 {
		for r := range 4 {
			prev := itStart[r]
			for ph := range 24 {
				want := prev
				if ph%6 == 0 {
					want = max(want, itStart[r]+10*engine.Microsecond+engine.Time(ph/6+1)*5*engine.Microsecond)
				}
				if got := posted[key{it, ph, r}]; got != want {
					t.Fatalf("iteration %d rank %d phase %d posted at %v, want %v", it, r, ph, got, want)
				}
				prev = max(finished[key{it, ph, r}], finished[key{it, ph, (r + 3) % 4}])
			}
			itStart[r] = max(prev, itStart[r]+30*engine.Microsecond)
			last = max(last, itStart[r])
		}
	}
	if got, want := res.Run.Counters["mpitrace.exec_ns"], last.Nanoseconds(); got != want {
		t.Errorf("exec_ns %d, want %d (the last rank's end)", got, want)
	}
	if res.Run.Counters["mpitrace.done"] != 192 || res.Run.Counters["mpitrace.bytes"] != 192*250_000 {
		t.Errorf("counters %v: want 192 messages done of 250,000 B", res.Run.Counters)
	}
	again, _ := run(t, sets...)
	if again.Run.Counters["mpitrace.exec_ns"] != res.Run.Counters["mpitrace.exec_ns"] {
		t.Errorf("second run: exec_ns %d, want %d", again.Run.Counters["mpitrace.exec_ns"], res.Run.Counters["mpitrace.exec_ns"])
	}
}

// A 2 x 2 PTRANS grid: ranks 1 and 2 swap their blocks, ranks 0 and 3
// keep theirs (and so never wait); each iteration ends the update time
// after both messages are acknowledged, and the next starts then.
func TestPTRANSIterations(t *testing.T) {
	res, x := run(t, "workload.mpitrace.p=2", "workload.mpitrace.q=2", "workload.mpitrace.n=512", "workload.mpitrace.nb=64",
		"workload.mpitrace.iterations=3", "workload.mpitrace.memory_rate=800Gbps", "workload.hosts=0,5,10,15")
	// Per process 4 x 4 blocks of 64 x 64 doubles = 512 KiB; the update
	// streams 24 B of each of its 65,536 elements at 100 GB/s: 15,728.64 ns.
	const compute = 15_728_640 * engine.Picosecond
	if got := len(x.Log); got != 6 {
		t.Fatalf("got %d messages, want 6 (2 per iteration)", got)
	}
	var end engine.Time
	for it := range 3 {
		var fin engine.Time
		for _, r := range x.Log[2*it : 2*it+2] {
			if r.Iteration != it || r.Bytes != 512*1024 || r.Src+r.Dst != 3 || r.Src == 0 || r.Src == 3 {
				t.Errorf("message %+v: want 524,288 B between ranks 1 and 2 in iteration %d", r, it)
			}
			if r.Posted != end {
				t.Errorf("iteration %d posted at %v, want the previous end %v", it, r.Posted, end)
			}
			fin = max(fin, r.Finished)
		}
		end = fin + compute
	}
	if got := res.Run.Counters["mpitrace.exec_ns"]; got != end.Nanoseconds() {
		t.Errorf("exec_ns %d, want %d", got, end.Nanoseconds())
	}
	// Ranks 0 and 3 finish at 3 x compute, without waiting for anyone.
	if x.Finish[0] != 3*compute || x.Finish[3] != 3*compute {
		t.Errorf("ranks 0 and 3 finish at %v and %v, want %v", x.Finish[0], x.Finish[3], 3*compute)
	}
}

func TestMPITraceBadInput(t *testing.T) {
	for set, want := range map[string]string{
		"workload.mpitrace.app=hpl":              "workload.mpitrace.app",
		"workload.mpitrace.p=0":                  "workload.mpitrace.p",
		"workload.mpitrace.n=10":                 "workload.mpitrace.n",
		"workload.mpitrace.p=5":                  "workload.mpitrace.app", // 20 ranks on 16 hosts
		"workload.mpitrace.forward_fraction=1.5": "workload.mpitrace.forward_fraction",
		"workload.mpitrace.iterations=0":         "workload.mpitrace.iterations",
	} {
		base := []string{"topology.kind=fat-tree", "topology.k=4", "workload.kind=mpitrace", set}
		if strings.Contains(set, "forward") {
			base = append(base, "workload.mpitrace.app=inception-v3")
		}
		_, err := wiring.Catalog().Parse("bad.yaml", wiring.Catalog().Default().YAML(), base)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %s", set, err, want)
		}
	}
}
