package wiring

import (
	"slices"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
)

// flowRecorder turns posted messages into flows.parquet rows in posting
// order, keeping of each only what the run record and the terminal
// summary need (its FlowStat when in the window, and counts). With a
// stream (Options.Dir set, no training workload) it writes the rows as the
// run goes: after each chunk of simulated time, the finished messages at
// the head of Sim.Messages become rows in the stream and leave
// Sim.Messages, so a finished flow costs its FlowStat (16 B) and its row
// in the parquet writer's current row group (compressed pages of at most
// 2^20 rows) rather than its Message and FlowRecord. A message still
// running holds the ones behind it (finished or not) until it finishes.
// Without a stream the rows are kept and become Result.Flows.
type flowRecorder struct {
	s      *Sim
	runID  string
	stream *analysis.FlowStream // nil: keep rows in memory
	rows   []analysis.FlowRecord
	batch  []analysis.FlowRecord // rows not yet given to the stream

	stats       []analysis.FlowStat
	total, done int64
	windowBytes int64 // bytes of the flows posted in the measurement window
	err         error
}

// flush, with a stream, records the finished messages at the head of
// Sim.Messages and removes them; with all, every message (the end of the
// run, unfinished ones included). Without a stream only the end records,
// and Sim.Messages keeps every message.
func (fr *flowRecorder) flush(all bool) {
	s := fr.s
	if fr.stream == nil {
		if all {
			fr.rows = slices.Grow(fr.rows, len(s.Messages))
			fr.stats = slices.Grow(fr.stats, len(s.Messages))
			for _, m := range s.Messages {
				fr.record(m)
			}
		}
		return
	}
	n := 0
	for n < len(s.Messages) && (all || s.Messages[n].Done) {
		fr.record(s.Messages[n])
		s.Messages[n] = nil
		n++
	}
	s.Messages = s.Messages[n:]
	fr.writeBatch(all)
}

func (fr *flowRecorder) record(m *rnic.Message) {
	sc := fr.s.Scenario
	warm, dur := engine.Time(sc.Measure.Warmup), engine.Time(sc.Duration)
	p := fr.s.path(m.Src, m.Dst)
	f := analysis.FlowRecord{RunID: fr.runID, FlowID: m.ID, Generator: m.Generator, Tag: m.Tag,
		Src: int32(m.Src), Dst: int32(m.Dst), PriorityClass: int32(m.FirstClass), SizeBytes: m.Size,
		StartNs:    m.Posted.Nanoseconds(),
		IdealFctNs: analysis.IdealFCT(m.Size, int64(sc.NIC.MTU), fr.s.Cluster.Cfg.Headers.Data, p.baseRTT, p.bottleneck).Nanoseconds(),
		InWindow:   m.Posted >= warm && m.Posted < dur, RetransmittedBytes: m.Retransmitted}
	f.QP = m.QPID
	if m.Done {
		f.SetFinish(m.Finished.Nanoseconds())
		fr.done++
	}
	fr.total++
	if f.InWindow {
		fr.windowBytes += m.Size
	}
	dst := &fr.batch
	if fr.stream == nil {
		dst = &fr.rows
	}
	*dst = append(*dst, f)
	fr.stats = analysis.AppendStats(fr.stats, (*dst)[len(*dst)-1:])
}

// writeBatch gives the stream the rows gathered, once there are
// streamBatch of them (the sampler's batch) or at the end. The batches do
// not change the file: the writer's row groups are 2^20 rows whatever
// they are.
func (fr *flowRecorder) writeBatch(all bool) {
	if fr.stream == nil || len(fr.batch) == 0 || (!all && len(fr.batch) < streamBatch) {
		return
	}
	if fr.err == nil {
		fr.err = fr.stream.Write(fr.batch)
	}
	clear(fr.batch) // drop the rows' strings and pointers
	fr.batch = fr.batch[:0]
}

// finish records every message left and closes the stream.
func (fr *flowRecorder) finish() error {
	fr.flush(true)
	if fr.stream == nil {
		return nil
	}
	if fr.err != nil {
		fr.stream.Abort()
		return fr.err
	}
	return fr.stream.Close()
}
