package wiring

import (
	"math"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/workloads/cloud"
)

// ticker calls f every interval of simulated time.
type ticker struct {
	sim   *engine.Sim
	every engine.Time
	f     func(now engine.Time)
}

func (tk *ticker) Fire(now engine.Time, _ uint8) {
	tk.f(now)
	tk.sim.At(now+tk.every, tk, 0)
}

// ccStar builds a star of n hosts with the named algorithm and posts flows.
func ccStar(t *testing.T, alg string, n int, flows []cloud.Flow, sets ...string) *Sim {
	t.Helper()
	s, err := Catalog().Load("default", append([]string{"topology.kind=star", "topology.hosts=" + itoa(n),
		"cc.algorithm=" + alg, "duration=1us", "workload.load=0.0001"}, sets...))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	sim.drivers = nil
	sim.AddGenerator(cloud.NewFlowList(flows))
	return sim
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// egressTo is the switch port that sends to host h.
func egressTo(net *fabric.Network, h int) *fabric.Port {
	return net.HostPorts[h].Peer
}

// goodputCap is the payload rate of a saturated 100 Gbps link at MTU 1000.
const goodputCap = 100e9 * 1000 / 1048

// Two long flows share one 100 Gbps bottleneck; the second joins after
// 1 ms. Each algorithm must bring them to within 10% of an equal share
// (averaged over 1 ms windows) and keep aggregate goodput above 90% of the
// link's payload capacity. TIMELY has no unique fair fixed point (Zhu et
// al., CoNEXT 2016): its shares are reported, not asserted.
func TestTwoFlowConvergence(t *testing.T) {
	const join, end, window = engine.Millisecond, 60 * engine.Millisecond, engine.Millisecond
	for _, alg := range []string{"dcqcn", "hpcc", "dctcp", "timely"} {
		t.Run(alg, func(t *testing.T) {
			sim := ccStar(t, alg, 3, []cloud.Flow{
				{Src: 0, Dst: 2, Size: 1 << 40, Start: 0},
				{Src: 1, Dst: 2, Size: 1 << 40, Start: join},
			}, ecnFor(alg)...)
			var last [2]int64
			var rates [][2]float64
			sim.Engine.At(join+window, &ticker{sim.Engine, window, func(now engine.Time) {
				var r [2]float64
				for i := 0; i < 2; i++ {
					qp := sim.Messages[i].QP
					r[i] = float64(qp.Acked()-last[i]) * 8 / window.Seconds()
					last[i] = qp.Acked()
				}
				rates = append(rates, r)
			}}, 0)
			sim.Engine.At(join, &ticker{sim.Engine, end, func(engine.Time) {
				last[0] = sim.Messages[0].QP.Acked() // flow 2 has sent nothing yet
			}}, 0)
			sim.Engine.Run(end)
			converged := -1
			for i := range rates {
				ok := true
				for _, r := range rates[i:] {
					mean := (r[0] + r[1]) / 2
					if math.Abs(r[0]-mean) > 0.1*mean {
						ok = false
						break
					}
				}
				if ok {
					converged = i
					break
				}
			}
			var tot, min float64 = 0, math.Inf(1)
			for _, r := range rates {
				tot += r[0] + r[1]
				min = math.Min(min, r[0]+r[1])
			}
			agg := tot / float64(len(rates)) / goodputCap
			lastR := rates[len(rates)-1]
			t.Logf("%s: converged %v after the join; final window %.1f / %.1f Gbps; mean aggregate %.1f%% (min %.1f%%) of payload capacity",
				alg, engine.Time(converged+1)*window, lastR[0]/1e9, lastR[1]/1e9, 100*agg, 100*min/goodputCap)
			if alg == "timely" {
				return
			}
			if converged < 0 {
				t.Errorf("%s: shares never stayed within 10%% of equal in %v", alg, end-join)
			}
			if agg < 0.9 {
				t.Errorf("%s: aggregate goodput %.1f%% of capacity, want > 90%%", alg, 100*agg)
			}
		})
	}
}

// A 16:1 incast of 1 MB flows through one switch, per algorithm: peak and
// mean queue at the receiver's egress, PFC pauses and completion time. The
// robust published ordering is asserted (HPCC keeps a shorter queue than
// DCQCN); the rest is reported.
func TestIncastComparison(t *testing.T) {
	meanQ := map[string]float64{}
	for _, alg := range []string{"none", "dcqcn", "hpcc", "dctcp", "timely"} {
		var flows []cloud.Flow
		for s := 1; s <= 16; s++ {
			flows = append(flows, cloud.Flow{Src: s, Dst: 0, Size: 1_000_000})
		}
		sim := ccStar(t, alg, 17, flows, append(ecnFor(alg), "drain_limit=1s")...)
		q := egressTo(sim.Net, 0)
		var sum, n, peak float64
		sim.Engine.At(0, &ticker{sim.Engine, engine.Microsecond, func(engine.Time) {
			if sim.Cluster.Counters.MessagesDone < 16 {
				b := float64(q.QueuedBytes())
				sum += b
				n++
				peak = math.Max(peak, b)
			}
		}}, 0)
		res := sim.Run(Options{})
		if !res.Drained {
			t.Fatalf("%s: incast did not finish", alg)
		}
		var last engine.Time
		for _, m := range sim.Messages {
			last = max(last, m.Finished)
		}
		meanQ[alg] = sum / n
		t.Logf("%-6s: queue mean %7.0f B, peak %8.0f B; PFC pauses %4d; CNPs %5d; last flow done at %v (ideal %v)",
			alg, sum/n, peak, sim.Net.PauseFrames, sim.Cluster.Counters.CNPs, last,
			engine.Time(16*1_048_000*80))
	}
	if !(meanQ["hpcc"] < meanQ["dcqcn"]) {
		t.Errorf("HPCC mean queue %.0f B, DCQCN %.0f B: want HPCC below DCQCN", meanQ["hpcc"], meanQ["dcqcn"])
	}
}

// ecnFor gives the reference model's marking for an algorithm (docs/model.md
// §3.4): DCTCP runs use a step at K = 300 KB (kmin = kmax, pmax 1); the
// others RED 400 KB / 1600 KB / 0.2, the scenario default.
func ecnFor(alg string) []string {
	if alg == "dctcp" {
		return []string{"switch.ecn.kmin=300KB", "switch.ecn.kmax=300KB", "switch.ecn.pmax=1"}
	}
	return nil
}

// DCQCN's fluid model (Zhu et al., "ECN or Delay", CoNEXT 2016) gives, for
// N long flows on one bottleneck, an equilibrium where the rates sum to the
// capacity and the queue sits inside the RED region (kmin, kmax): below
// kmin nothing is marked and every rate grows, above kmax every packet is
// marked and every rate falls. With the reference parameters (rate_ai
// 20 Mb/s per 300 us, g = 1/256) dcsim shows a limit cycle around that
// equilibrium rather than a fixed point: the queue rises past kmin, the
// CNPs cut the rates, the queue drains below kmin and the rates creep back.
// What the analysis guarantees for such a cycle is checked: the queue must
// reach the marking region (no cut happens otherwise), its time average
// must stay below kmax, and the link must stay busy (aggregate > 90%). The
// time-averaged queue and per-flow shares are reported; they are not
// bent to the fixed point. A quantitative comparison with the numerically
// integrated fluid model is still to be done (see the notes).
func TestDCQCNEquilibrium(t *testing.T) {
	const warm, end = 10 * engine.Millisecond, 20 * engine.Millisecond
	kmin, kmax := 400e3, 1600e3
	for _, n := range []int{2, 4, 8, 16} {
		var flows []cloud.Flow
		for s := 1; s <= n; s++ {
			flows = append(flows, cloud.Flow{Src: s, Dst: 0, Size: 1 << 40})
		}
		sim := ccStar(t, "dcqcn", n+1, flows)
		q := egressTo(sim.Net, 0)
		var qsum, samples, peak float64
		start := make([]int64, n)
		sim.Engine.At(warm, &ticker{sim.Engine, engine.Microsecond, func(now engine.Time) {
			if now == warm {
				for i, m := range sim.Messages {
					start[i] = m.QP.Acked()
				}
			}
			b := float64(q.QueuedBytes())
			qsum += b
			peak = math.Max(peak, b)
			samples++
		}}, 0)
		sim.Engine.Run(end)
		meanQ := qsum / samples
		var total, worst float64
		fair := goodputCap / float64(n)
		for i, m := range sim.Messages {
			r := float64(m.QP.Acked()-start[i]) * 8 / (end - warm).Seconds()
			total += r
			worst = math.Max(worst, math.Abs(r-fair)/fair)
		}
		t.Logf("N=%2d: queue mean %7.0f B, peak %7.0f B (RED region %.0f-%.0f B); aggregate %.1f%% of capacity; worst flow %.1f%% from C/N",
			n, meanQ, peak, kmin, kmax, 100*total/goodputCap, 100*worst)
		if peak <= kmin {
			t.Errorf("N=%d: queue never reached the marking region (peak %.0f B)", n, peak)
		}
		if meanQ >= kmax {
			t.Errorf("N=%d: mean queue %.0f B at or above kmax", n, meanQ)
		}
		if total < 0.9*goodputCap {
			t.Errorf("N=%d: aggregate %.1f%% of capacity, want > 90%%", n, 100*total/goodputCap)
		}
	}
}

// markOnce sets CE on the n-th data packet leaving a port.
type markOnce struct {
	fabric.NopObserver
	n, seen int
}

func (m *markOnce) Dequeue(_ engine.Time, _ *fabric.Port, p *fabric.Packet) {
	if p.Kind == fabric.Data {
		m.seen++
		if m.seen == m.n {
			p.CE = true
		}
	}
}

// rateLog records a QP's rate changes.
type rateLog struct {
	at    []engine.Time
	rates []engine.Rate
	cnpAt engine.Time
}

func (l *rateLog) Sent(engine.Time, *rnic.QP, *fabric.Packet) {}
func (l *rateLog) Acked(now engine.Time, _ *rnic.QP, p *fabric.Packet) {
	if p.CNP && l.cnpAt == 0 {
		l.cnpAt = now
	}
}
func (l *rateLog) RateChange(now engine.Time, _ *rnic.QP, _, r engine.Rate) {
	l.at = append(l.at, now)
	l.rates = append(l.rates, r)
}

// docs/model.md §11.2 "One CNP to a DCQCN QP", end to end: a switch marks one
// data packet, the receiver echoes it on the ACK, and the sender's rate
// must follow docs/model.md §5.2's sequence exactly: 50.7767 Gbps at the CNP's
// arrival + 4 us + 1 ns, then 75.3883, 87.6942, 93.8471 Gbps at the
// increase timer's 300 us firings. This checks the whole feedback path
// (marking, echo, CC timers armed through the NIC), not just the
// algorithm.
func TestDCQCNOneCNPEndToEnd(t *testing.T) {
	sim := ccStar(t, "dcqcn", 2, []cloud.Flow{{Src: 0, Dst: 1, Size: 1 << 40}})
	egressTo(sim.Net, 1).Observer = &markOnce{n: 100}
	log := &rateLog{}
	sim.Cluster.Observer = log
	sim.Engine.Run(2 * engine.Millisecond)
	if log.cnpAt == 0 || len(log.rates) < 4 {
		t.Fatalf("CNP at %v, %d rate changes; want one CNP and at least 4 changes", log.cnpAt, len(log.rates))
	}
	want := []struct {
		at   engine.Time
		gbps float64
	}{
		{log.cnpAt + 4*engine.Microsecond + engine.Nanosecond, 50.7767},
		{log.cnpAt + 4*engine.Microsecond + engine.Nanosecond + 300*engine.Microsecond, 75.3883},
		{log.cnpAt + 4*engine.Microsecond + engine.Nanosecond + 600*engine.Microsecond, 87.6942},
		{log.cnpAt + 4*engine.Microsecond + engine.Nanosecond + 900*engine.Microsecond, 93.8471},
	}
	for i, w := range want {
		got := float64(log.rates[i]) / 1e9
		if log.at[i] != w.at || math.Abs(got-w.gbps) > 5e-5 {
			t.Errorf("change %d: %.4f Gbps at %v, want %.4f Gbps at %v", i, got, log.at[i], w.gbps, w.at)
		}
	}
}
