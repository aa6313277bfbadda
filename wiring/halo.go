package wiring

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dcsim/dcsim/analysis"
)

// workloadsDone reports whether every workload finished.
func (s *Sim) workloadsDone() bool {
	for _, l := range s.workloads {
		if !l.Done() {
			return false
		}
	}
	return true
}

// checkWorkloads is the first broken invariant of a workload.
func (s *Sim) checkWorkloads() error {
	for _, l := range s.workloads {
		if err := l.Check(); err != nil {
			return err
		}
	}
	return nil
}

// BatchRecords are the halo workloads' batches, as batches.parquet rows.
func (s *Sim) BatchRecords(runID string) []analysis.BatchRecord {
	var rows []analysis.BatchRecord
	ns := func(t int64) int64 {
		if t < 0 {
			return -1
		}
		return t / 1000
	}
	for _, l := range s.loops {
		h, ok := l.(*HaloLoop)
		if !ok || h.Exec == nil {
			continue
		}
		for i, b := range h.Exec.Batches {
			rows = append(rows, analysis.BatchRecord{RunID: runID, Batch: int64(i), Pair: int64(b.Pair),
				SrcRank: int64(b.SrcRank), DstRank: int64(b.DstRank), Src: int64(b.Src), Dst: int64(b.Dst),
				Particles: b.Particles, Bytes: b.Bytes, Writes: int64(b.Writes), HeadReads: int64(b.HeadReads),
				Hops: int64(len(s.Net.PathBetween(b.Src, b.Dst).Delays)), Packets: int64(b.Packets), Reordered: int64(b.Reordered),
				ReadPostedNs: ns(int64(b.ReadPosted)), PostedNs: ns(int64(b.Posted)), DataVisibleNs: ns(int64(b.DataVisible)),
				TailExecutedNs: ns(int64(b.TailExecuted)), TailVisibleNs: ns(int64(b.TailVisible)),
				CompletedNs: ns(int64(b.Completed)), PublishLatencyNs: ns(int64(b.PublishLatency())),
				Violation: b.Violation, Stale: b.Stale})
		}
	}
	return rows
}

// hasHalo reports whether the run has a halo workload (and so writes
// batches.parquet).
func (s *Sim) hasHalo() bool {
	for _, l := range s.loops {
		if _, ok := l.(*HaloLoop); ok {
			return true
		}
	}
	return false
}

func (r *Result) writeBatches(dir string) error {
	if !r.Sim.hasHalo() {
		return nil
	}
	return analysis.WriteBatches(filepath.Join(dir, analysis.BatchesFile), r.Batches)
}

// haloSummary is the terminal's line for halo workloads: batches,
// violations, operations per particle and the publish latency.
func (r *Result) haloSummary() string {
	if !r.Sim.hasHalo() {
		return ""
	}
	c := r.Run.Counters
	var sum, n int64
	for _, b := range r.Batches {
		if b.PublishLatencyNs >= 0 {
			sum += b.PublishLatencyNs
			n++
		}
	}
	mean := 0.0
	if n > 0 {
		mean = float64(sum) / float64(n)
	}
	ops := c["halo.reads"] + c["halo.writes"] + c["halo.atomics"] + c["halo.sends"]
	perParticle := 0.0
	if c["halo.particles_sent"] > 0 {
		perParticle = float64(ops) / float64(c["halo.particles_sent"])
	}
	return fmt.Sprintf("halo: %d batches, %d violations, %d particles read before visible; %d of %d particles received; %.4f operations per particle; mean publish latency %.0f ns\n",
		c["halo.batches"], c["halo.violations"], c["halo.stale_particles"], c["halo.particles_received"], c["halo.particles_sent"], perParticle, mean)
}

// mpitraceSummary is the terminal's line for each mpitrace workload:
// ranks, iterations, messages and the execution time (mpitrace.exec_ns).
func (s *Sim) mpitraceSummary() string {
	var b strings.Builder
	for _, l := range s.loops {
		m, ok := l.(*MPITraceLoop)
		if !ok || m.Exec == nil {
			continue
		}
		p, x := m.Config.Program, m.Exec
		exec := "unfinished: the run ended first"
		if t := x.ExecTime(); t >= 0 {
			exec = fmt.Sprintf("%.3f ms (to the last rank's end, its final compute included)", t.Seconds()*1e3)
		}
		its := "iterations"
		if p.Iterations == 1 {
			its = "iteration"
		}
		fmt.Fprintf(&b, "mpitrace %s: %d ranks, %d %s, %d of %d messages done (%s posted); execution time %s\n",
			p.Name, p.Ranks(), p.Iterations, its, x.Done, x.Messages, analysis.HumanSize(x.Bytes), exec)
	}
	return b.String()
}

// ClosedLoops are the run's closed-loop workloads (halo, mpitrace), for
// a caller that reads their own records.
func (s *Sim) ClosedLoops() []Workload { return s.loops }
