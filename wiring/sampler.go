package wiring

import (
	"fmt"
	"github.com/dcsim/dcsim/scenario"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// sampler records the trace.metrics of every switch port, host port and
// QP at a fixed interval: queue depth (bytes queued at the egress, all
// classes), pause time (fraction of the interval the most-paused data
// class of the egress was paused), utilisation (fraction of the interval the egress
// transmitted) and per-QP rate (b/s as set by congestion control).
type sampler struct {
	sim      *Sim
	interval engine.Time
	metrics  map[string]bool
	ports    []*fabric.Port
	names    []string
	lastTx   []int64
	lastPaus [][fabric.NumClasses]engine.Time
	lastAt   engine.Time
	runID    string
	rows     []analysis.SampleRecord
	// stream, when set, takes the rows every streamBatch rows, so that
	// they are never all in memory; err is its first error.
	stream *analysis.SampleStream
	err    error
	eff    *efficiency // trace metric efficiency, nil without
	// next is the next sample time on the parallel engine (newSampler).
	next engine.Time
	// written counts the rows added: the drain's are not bounded before
	// the run (its length is not known), so the run stops at
	// scenario.MaxSampleRows instead of writing for hours.
	written int64
}

// maxSampleRows is scenario.MaxSampleRows, lowered by a test.
var maxSampleRows int64 = scenario.MaxSampleRows

// streamBatch is how many rows the sampler and the flow recorder hold
// before they hand them to their stream.
const streamBatch = 1 << 14

func newSampler(s *Sim, interval engine.Time, runID string, stream *analysis.SampleStream) *sampler {
	sm := &sampler{sim: s, interval: interval, metrics: map[string]bool{}, runID: runID, stream: stream}
	for _, m := range s.Scenario.Trace.Metrics {
		sm.metrics[m] = true
	}
	for _, sw := range s.Net.Switches {
		for _, pt := range sw.Ports {
			sm.ports = append(sm.ports, pt)
			sm.names = append(sm.names, fmt.Sprintf("%s/p%d", sw.Name, pt.Index))
		}
	}
	for h, pt := range s.Net.HostPorts {
		sm.ports = append(sm.ports, pt)
		sm.names = append(sm.names, fmt.Sprintf("host%d", h))
	}
	sm.lastTx = make([]int64, len(sm.ports))
	sm.lastPaus = make([][fabric.NumClasses]engine.Time, len(sm.ports))
	if sm.metrics[scenario.MetricEfficiency] {
		sm.eff = newEfficiency(s)
	}
	if s.World != nil {
		// On the parallel engine the sampler reads every unit's state, so
		// it samples between Runs, which Sim.Run ends at each sample time
		// (next); a tick in the generators' unit keeps the queues from
		// emptying before the run ends, as the sampler's own event does
		// on the sequential engine.
		sm.next = interval
		ds := s.World.Sim(int(s.driverUnit))
		ds.At(interval, &sampleTick{ds, interval}, 0)
		return sm
	}
	s.Engine.At(interval, sm, 0)
	return sm
}

// Fire implements engine.Handler.
func (sm *sampler) Fire(now engine.Time, _ uint8) {
	if sm.tick(now) {
		sm.sim.Engine.At(now+sm.interval, sm, 0)
	}
}

// tick samples at now and reports whether sampling goes on: past
// maxSampleRows it stops, and the run with it at the end of its chunk
// (Sim.Run).
func (sm *sampler) tick(now engine.Time) bool {
	sm.sample(now)
	sm.next = now + sm.interval
	if sm.written > maxSampleRows {
		if sm.err == nil {
			sm.err = fmt.Errorf("trace: the run has written %d sample rows by %v, above the limit of %.0e (trace.interval %v; the drain's rows add to duration's): use a longer trace.interval or a shorter drain_limit",
				sm.written, now, float64(maxSampleRows), scenario.Duration(sm.interval))
		}
		return false
	}
	return true
}

// sampleTick is the parallel engine's stand-in for the sampler's event:
// it fires at every sample time, doing nothing but keeping the queues
// from emptying (newSampler).
type sampleTick struct {
	sim      *engine.Sim
	interval engine.Time
}

// Fire implements engine.Handler.
func (t *sampleTick) Fire(now engine.Time, _ uint8) { t.sim.At(now+t.interval, t, 0) }

func (sm *sampler) add(now engine.Time, comp, metric string, v float64) {
	sm.written++
	sm.rows = append(sm.rows, analysis.SampleRecord{RunID: sm.runID, TimeNs: now.Nanoseconds(), Component: comp, Metric: metric, Value: v})
}

// flush hands the rows held to the stream, if there is one.
func (sm *sampler) flush() {
	if sm.stream == nil || len(sm.rows) == 0 {
		return
	}
	if sm.err == nil {
		sm.err = sm.stream.Write(sm.rows)
	}
	sm.rows = sm.rows[:0]
}

func (sm *sampler) sample(now engine.Time) {
	span := now - sm.lastAt
	if span <= 0 {
		return
	}
	for i, pt := range sm.ports {
		if sm.metrics[scenario.MetricQueueDepth] {
			sm.add(now, sm.names[i], scenario.MetricQueueDepth, float64(pt.QueuedBytes()))
		}
		if sm.metrics[scenario.MetricUtilisation] {
			busy := engine.Rate(pt.Rate).TxTime(pt.TxBytes - sm.lastTx[i])
			sm.add(now, sm.names[i], scenario.MetricUtilisation, min(1, float64(busy)/float64(span)))
		}
		sm.lastTx[i] = pt.TxBytes
		if sm.metrics[scenario.MetricPauseTime] {
			var most engine.Time
			for c := 1; c < fabric.NumClasses; c++ {
				p := pt.PausedFor(now, c)
				most = max(most, p-sm.lastPaus[i][c])
				sm.lastPaus[i][c] = p
			}
			sm.add(now, sm.names[i], scenario.MetricPauseTime, min(1, float64(most)/float64(span)))
		}
	}
	if sm.metrics[scenario.MetricQPRate] {
		for _, h := range sm.sim.Cluster.Hosts {
			for _, qp := range h.QPs() {
				sm.add(now, fmt.Sprintf("qp%d", qp.ID), scenario.MetricQPRate, float64(qp.Rate()))
			}
		}
	}
	if sm.eff != nil {
		sm.eff.sample(now, span, sm.add)
	}
	sm.lastAt = now
	if len(sm.rows) >= streamBatch {
		sm.flush()
	}
}

// finish ends the sampling: with a stream, the rest of the rows go to it
// and the file is put in place (the records returned are nil); without
// one, the records are returned.
func (sm *sampler) finish() ([]analysis.SampleRecord, error) {
	if sm.stream == nil {
		return sm.rows, nil
	}
	sm.flush()
	if sm.err != nil {
		sm.stream.Abort()
		return nil, sm.err
	}
	return nil, sm.stream.Close()
}
