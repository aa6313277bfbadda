//go:build unix

package sweep

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// scalingSweep has 8 points of equal size (the same scenario under 8
// seeds), each about 0.3 s of simulation on this machine.
const scalingSweep = `name: scaling
base: base.yaml
set: {duration: 4ms, topology: {kind: star, hosts: 8}}
zip:
  seed: [1, 2, 3, 4, 5, 6, 7, 8]
`

// BenchmarkSweepScaling runs the same points with one worker and with two
// and reports the wall time of each and the speedup, W1 time / W2 time.
// The ideal is 2 on a machine with two idle cores; simulations share
// nothing, so what is lost goes to the garbage collector, to memory
// bandwidth, and to whatever else the machine runs. cpu-ratio, the
// process's CPU time with two workers over that with one, separates the
// two: near 1, two workers do no extra work, and a speedup below 2 means
// the second core was busy elsewhere. Every iteration recomputes every
// point (Force).
func BenchmarkSweepScaling(b *testing.B) {
	_, pts := mustPoints(b, writeSweep(b, scalingSweep))
	out := b.TempDir()
	var wall, cpu [3]time.Duration
	for b.Loop() {
		for _, w := range []int{1, 2} {
			t0, c0 := time.Now(), cpuTime()
			sum, err := Run(context.Background(), pts, Options{Out: out, Workers: w, Force: true})
			if err != nil || sum.Done != len(pts) {
				b.Fatalf("W=%d: %v, %d of %d points done", w, err, sum.Done, len(pts))
			}
			wall[w] += time.Since(t0)
			cpu[w] += cpuTime() - c0
		}
	}
	n := float64(b.N)
	b.ReportMetric(wall[1].Seconds()/n, "W1-s/sweep")
	b.ReportMetric(wall[2].Seconds()/n, "W2-s/sweep")
	b.ReportMetric(wall[1].Seconds()/wall[2].Seconds(), "speedup")
	b.ReportMetric(cpu[2].Seconds()/cpu[1].Seconds(), "cpu-ratio")
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
