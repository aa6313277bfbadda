package queueing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// A fluid M/G/1 simulation, independent of the formulas: it checks the
// model choices the formulas encode (SRPT ties to the earlier arrival, LAS
// ties share the server) on distributions with point masses.

type mcJob struct {
	size, rem, attained, arrive float64
	seq                         int
}

type mcResult struct{ resp, slow, respSE, slowSE float64 }

// simulate runs the queue in units of service time until the jobs with
// sequence numbers [n/10, n) have left, and reports their mean response
// time and slowdown with standard errors from 20 batch means.
func simulate(p Policy, draw func(*rand.Rand) float64, lambda float64, n int, seed uint64) mcResult {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	warm := n / 10
	const batches = 20
	var bResp, bSlow [batches]float64
	var bCount [batches]int
	var jobs []mcJob
	now, nextArrival := 0.0, rng.ExpFloat64()/lambda
	seq, pending := 0, n-warm
	share := make([]float64, 0, 64)
	for pending > 0 {
		// Service shares of the jobs in the system.
		share = share[:0]
		for range jobs {
			share = append(share, 0)
		}
		switch p {
		case FCFS, SRPT:
			best := -1
			for i, j := range jobs {
				if best < 0 || (p == FCFS && j.seq < jobs[best].seq) ||
					(p == SRPT && (j.rem < jobs[best].rem || (j.rem == jobs[best].rem && j.seq < jobs[best].seq))) {
					best = i
				}
			}
			if best >= 0 {
				share[best] = 1
			}
		case PS:
			for i := range jobs {
				share[i] = 1 / float64(len(jobs))
			}
		case LAS:
			low, cnt := math.Inf(1), 0
			for _, j := range jobs {
				if j.attained < low {
					low, cnt = j.attained, 1
				} else if j.attained == low {
					cnt++
				}
			}
			for i, j := range jobs {
				if j.attained == low {
					share[i] = 1 / float64(cnt)
				}
			}
		}
		// Time to the next event: an arrival, a completion, or (LAS) the
		// least-served group catching up with the next one.
		dt := nextArrival - now
		catchUp, level := false, math.Inf(1)
		for i, j := range jobs {
			if share[i] > 0 {
				dt = math.Min(dt, j.rem/share[i])
			} else if p == LAS {
				level = math.Min(level, j.attained)
			}
		}
		if p == LAS && !math.IsInf(level, 1) {
			for i, j := range jobs {
				if share[i] > 0 {
					if c := (level - j.attained) / share[i]; c <= dt {
						dt, catchUp = c, true
					}
					break
				}
			}
		}
		now += dt
		kept := jobs[:0]
		for i, j := range jobs {
			if share[i] > 0 {
				j.rem -= dt * share[i]
				j.attained += dt * share[i]
				if catchUp {
					j.attained = level // snap, so the groups merge exactly
				}
			}
			if j.rem > 1e-9*j.size {
				kept = append(kept, j)
				continue
			}
			if j.seq >= warm && j.seq < n {
				b := (j.seq - warm) * batches / (n - warm)
				t := now - j.arrive
				bResp[b] += t
				bSlow[b] += t / j.size
				bCount[b]++
				pending--
			}
		}
		jobs = kept
		if now >= nextArrival {
			s := draw(rng)
			jobs = append(jobs, mcJob{size: s, rem: s, arrive: now, seq: seq})
			seq++
			nextArrival = now + rng.ExpFloat64()/lambda
		}
	}
	var r mcResult
	var rs, ss [batches]float64
	for b := range batches {
		rs[b], ss[b] = bResp[b]/float64(bCount[b]), bSlow[b]/float64(bCount[b])
		r.resp += rs[b] / batches
		r.slow += ss[b] / batches
	}
	for b := range batches {
		r.respSE += (rs[b] - r.resp) * (rs[b] - r.resp)
		r.slowSE += (ss[b] - r.slow) * (ss[b] - r.slow)
	}
	r.respSE = math.Sqrt(r.respSE / (batches * (batches - 1)))
	r.slowSE = math.Sqrt(r.slowSE / (batches * (batches - 1)))
	return r
}

// linearDraw samples the linear interpolant of CDF points (docs/model.md
// §7.2 without the integer floor).
func linearDraw(sizes, cdf []float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 {
		u := r.Float64()
		for i := 1; i < len(sizes); i++ {
			if u <= cdf[i] && cdf[i] > cdf[i-1] {
				return sizes[i-1] + (sizes[i]-sizes[i-1])*(u-cdf[i-1])/(cdf[i]-cdf[i-1])
			}
		}
		return sizes[len(sizes)-1]
	}
}

func TestMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 1.2e6 jobs")
	}
	cases := []struct {
		name       string
		sizes, cdf []float64
		load       float64
	}{
		// Two sizes: ties everywhere, exercising the tie rules.
		{"two sizes", []float64{1, 1, 10, 10}, []float64{0, 0.5, 0.5, 1}, 0.5},
		// Uniform (0, 1), a point mass at 1, uniform (1, 4).
		{"mixed", []float64{0, 1, 1, 4}, []float64{0, 0.5, 0.7, 1}, 0.7},
	}
	for ci, c := range cases {
		d := mustDist(t, c.sizes, c.cdf, Continuous)
		q := mustMG1(t, d, 1, c.load)
		for pi, p := range Policies {
			sim := simulate(p, linearDraw(c.sizes, c.cdf), c.load/d.Mean(), 150000, uint64(10*ci+pi+1))
			m := mustMeans(t, q, p)
			tag := fmt.Sprintf("%s %v", c.name, p)
			// 4 standard errors: a correct formula fails with probability
			// 6e-5 per check, and the seeds are fixed, so the outcome never
			// changes from run to run.
			if math.Abs(sim.resp-m.Response) > 4*sim.respSE {
				t.Errorf("%s E[T]: simulated %.4f +- %.4f, formula %.4f", tag, sim.resp, sim.respSE, m.Response)
			}
			if p != FCFS || d.MeanInverse() < math.Inf(1) {
				if math.Abs(sim.slow-m.Slowdown) > 4*sim.slowSE {
					t.Errorf("%s E[T/x]: simulated %.4f +- %.4f, formula %.4f", tag, sim.slow, sim.slowSE, m.Slowdown)
				}
			}
			t.Logf("%s: E[T] simulated %.4f +- %.4f, formula %.4f; E[T/x] simulated %.4f +- %.4f, formula %.4f",
				tag, sim.resp, sim.respSE, m.Response, sim.slow, sim.slowSE, m.Slowdown)
		}
	}
}
