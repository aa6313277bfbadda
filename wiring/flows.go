package wiring

import (
	"cmp"
	"io"
	"math"
	"slices"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
)

// flowRecorder turns posted messages into flows.parquet rows in posting
// order (FlowID order), keeping of each only what the run record and the
// terminal summary need (its FlowStat when in the window, and counts).
// With a stream (Options.Dir set) it writes the rows as the run goes:
// after each chunk of simulated time every finished message becomes its
// row and leaves Sim.Messages, which keeps only the running ones, and the
// rows before the first running message are written. A running message
// holds the rows after it, not their messages: they wait in memory, up to
// holdRows of them; beyond that they are written, in order, as one more
// sorted run of rows to a spill file in Options.Dir, and once the
// message finishes the rows are merged back from the runs and memory in
// FlowID order (each run read from its front, a 4 KiB buffer each). So a finished flow costs its
// FlowStat (16 B), its row in the parquet writer's current row group
// (compressed pages of at most 2^20 rows) and, while a flow before it
// runs, its row in memory or on disk; the rows stay in posting order, so
// the file is the one the kept rows make. Without a stream the rows are
// kept and become Result.Flows.
type flowRecorder struct {
	s      *Sim
	runID  string
	stream *analysis.FlowStream // nil: keep rows in memory
	rows   []analysis.FlowRecord
	batch  []analysis.FlowRecord // rows not yet given to the stream

	// Streaming: finished rows waiting behind a running message, in
	// FlowID order, in memory (hold) and in spill runs (each in order).
	hold, fresh []analysis.FlowRecord
	runs        []*spill
	holdRows    int // hold's bound before it spills (defaultHoldRows)
	dir         string
	maxWaiting  int                       // the most rows waiting in memory after a flush
	spilled     int64                     // rows that went through the spill file
	spillWriter func(io.Writer) io.Writer // Options.spillWriter

	stats       []analysis.FlowStat
	total, done int64
	windowBytes int64 // bytes of the flows posted in the measurement window
	err         error
}

// defaultHoldRows bounds the rows waiting in memory behind a running
// message (about 9 MB of rows) before they spill to disk.
const defaultHoldRows = 1 << 16

// flush, with a stream, turns the finished messages of Sim.Messages into
// rows and writes those before the first running message; with all,
// every message (the end of the run, unfinished ones included). Without a
// stream only the end records, and Sim.Messages keeps every message.
func (fr *flowRecorder) flush(all bool) {
	s := fr.s
	if fr.stream == nil {
		if all {
			fr.rows = slices.Grow(fr.rows, len(s.Messages))
			fr.stats = slices.Grow(fr.stats, len(s.Messages))
			for _, m := range s.Messages {
				fr.rows = append(fr.rows, fr.row(m))
				fr.count(fr.rows[len(fr.rows)-1:])
			}
		}
		return
	}
	fresh, n := fr.fresh[:0], 0
	for _, m := range s.Messages {
		if all || m.Done {
			fresh = append(fresh, fr.row(m))
		} else {
			s.Messages[n] = m
			n++
		}
	}
	clear(s.Messages[n:])
	s.Messages = s.Messages[:n]
	fr.hold = mergeRows(fr.hold, fresh)
	clear(fresh)
	fr.fresh = fresh[:0]
	limit := int64(math.MaxInt64)
	if len(s.Messages) > 0 {
		limit = s.Messages[0].ID
	}
	fr.emit(limit)
	fr.maxWaiting = max(fr.maxWaiting, len(fr.hold))
	if len(fr.hold) > fr.holdRows && fr.err == nil {
		fr.spilled += int64(len(fr.hold))
		var run *spill
		if run, fr.err = newSpill(fr.dir, fr.runID, fr.spillWriter); fr.err == nil {
			fr.runs = append(fr.runs, run)
			fr.err = run.append(fr.hold)
		}
		clear(fr.hold)
		fr.hold = fr.hold[:0]
	}
	fr.writeBatch(all)
}

// emit writes, in FlowID order, every waiting row whose FlowID is below
// limit (the first running message's), from the spill runs and memory.
// A run read to its end is removed.
func (fr *flowRecorder) emit(limit int64) {
	hi := 0
	for fr.err == nil {
		best, from := limit, -1
		if hi < len(fr.hold) && fr.hold[hi].FlowID < best {
			best, from = fr.hold[hi].FlowID, len(fr.runs)
		}
		for i, run := range fr.runs {
			var f *analysis.FlowRecord
			if f, fr.err = run.peek(); fr.err != nil {
				return
			}
			if f != nil && f.FlowID < best {
				best, from = f.FlowID, i
			}
		}
		switch {
		case from < 0:
			fr.hold = dropFront(fr.hold, hi)
			return
		case from == len(fr.runs):
			fr.write(fr.hold[hi])
			hi++
		default:
			run := fr.runs[from]
			f, _ := run.peek()
			fr.write(*f)
			run.take()
			if run.done() {
				fr.err = run.close()
				fr.runs = slices.Delete(fr.runs, from, from+1)
			}
		}
	}
}

func (fr *flowRecorder) write(f analysis.FlowRecord) {
	fr.batch = append(fr.batch, f)
	fr.count(fr.batch[len(fr.batch)-1:])
}

// mergeRows merges b into a, both in FlowID order, in one pass from the
// back (hold can be 65,536 rows behind a running message: sorting it
// again at every chunk was 0.6% of a 10^6-flow run).
func mergeRows(a, b []analysis.FlowRecord) []analysis.FlowRecord {
	if len(b) == 0 {
		return a
	}
	byID := func(x, y analysis.FlowRecord) int { return cmp.Compare(x.FlowID, y.FlowID) }
	if !slices.IsSortedFunc(b, byID) {
		slices.SortFunc(b, byID) // posting order is FlowID order; this is only a safeguard
	}
	i, j := len(a)-1, len(b)-1
	a = append(a, b...)
	for k := len(a) - 1; j >= 0; k-- {
		if i >= 0 && a[i].FlowID > b[j].FlowID {
			a[k] = a[i]
			i--
		} else {
			a[k] = b[j]
			j--
		}
	}
	return a
}

func dropFront(rows []analysis.FlowRecord, n int) []analysis.FlowRecord {
	if n == 0 {
		return rows
	}
	k := copy(rows, rows[n:])
	clear(rows[k:])
	return rows[:k]
}

// row is m's flows.parquet row.
func (fr *flowRecorder) row(m *rnic.Message) analysis.FlowRecord {
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
	}
	return f
}

// count adds the row one[0], taken in posting order, to the counts and
// the stats.
func (fr *flowRecorder) count(one []analysis.FlowRecord) {
	f := &one[0]
	if f.Finished() {
		fr.done++
	}
	fr.total++
	if f.InWindow {
		fr.windowBytes += f.SizeBytes
	}
	fr.stats = analysis.AppendStats(fr.stats, one)
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
	for _, run := range fr.runs { // only after an error: emit removes a run it has read
		if err := run.close(); fr.err == nil {
			fr.err = err
		}
	}
	fr.runs = nil
	if fr.err != nil {
		fr.stream.Abort()
		return fr.err
	}
	return fr.stream.Close()
}
