package wiring

import (
	"cmp"
	"context"
	"fmt"
	"github.com/dcsim/dcsim/scenario"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
)

// Progress is reported between chunks of simulated time.
type Progress struct {
	SimTime     engine.Time
	Duration    engine.Time // arrivals stop here; the run then drains
	Events      uint64
	FlowsPosted int64
	FlowsDone   int64
	BytesPosted int64 // sizes of the flows posted and done: what a drain has left
	BytesDone   int64
	Draining    bool
	// Training is the progress of training workloads (zero without).
	Training TrainingProgress
}

// Options control a run without changing its results.
type Options struct {
	// RunID names the run in every file it writes (the run_id column).
	// Default: a fresh UUIDv7 (time-ordered, random), so that two runs of
	// one scenario and seed, which write identical results, never share
	// an id and a join on run_id never multiplies rows. Pin it (a SLURM
	// job id, a test) to get byte-identical files (run.parquet but for its
	// wall_seconds); CheckRunID says what
	// is accepted. The scenario's own stable name is run.parquet's
	// config_hash.
	RunID    string
	Version  string // dcsim version recorded in run.parquet
	Progress func(Progress)
	// Params are the swept parameters of a sweep point (extra run.parquet columns).
	Params []analysis.Param
	// Dir, when set, is the directory WriteDir will be given: the run
	// makes it if needed and clears an earlier run's files from it first,
	// then streams flows.parquet into it while it runs (flowRecorder),
	// and samples.parquet when traced, instead of
	// holding every record in memory; Result.Flows is then nil.
	Dir string
	// Context, when set and done, stops the run at the end of the chunk
	// of simulated time under way (chunk): the files it was streaming
	// are removed, and its Result's error (which WriteDir returns) is
	// context.Cause(Context). A notebook or dcsim's Ctrl-C ends a run so.
	Context context.Context
	// holdRows, when > 0, replaces defaultHoldRows (tests).
	holdRows int
	// spillWriter, when set, wraps each spill file's writer (tests
	// inject a full disk through it).
	spillWriter func(io.Writer) io.Writer
}

// Result is what a run produced: the records that go to parquet and the
// summary that goes to the terminal.
type Result struct {
	Sim     *Sim
	Flows   []analysis.FlowRecord
	Samples []analysis.SampleRecord
	// Iterations and Collectives are filled by training workloads.
	Iterations  []analysis.IterationRecord
	Collectives []analysis.CollectiveRecord
	Batches     []analysis.BatchRecord // halo workloads: batches.parquet
	Run         analysis.RunRecord
	Params      []analysis.Param
	Analysis    analysis.Analysis
	// Drained is true when every posted flow finished before the drain
	// limit; false means the unfinished ones are recorded as such.
	Drained bool
	// dir is Options.Dir; err is a failure to write there during the
	// run (streaming samples), which WriteDir reports.
	dir string
	err error
	// waiting and spilled are the flow recorder's, for tests: the most
	// rows that waited in memory behind a running message, and the rows
	// that went through the spill file.
	waiting int
	spilled int64
}

// chunk is how much simulated time runs between progress reports and
// drain checks. It does not affect results.
const chunk = 100 * engine.Microsecond

// Run simulates the scenario: arrivals until duration, then a drain until
// every flow (and every training iteration) has finished or drain_limit
// has passed. The first error writing into Options.Dir (a full disk)
// stops the run at the end of its chunk, as Options.Context does: going
// on would keep in memory the rows the disk refused, until the machine
// ran out of it. Partial files are removed and the error names the file.
func (s *Sim) Run(opt Options) *Result {
	sc := s.Scenario
	start := time.Now()
	if opt.RunID == "" {
		opt.RunID = NewRunID()
	}
	res := &Result{Sim: s, dir: opt.Dir}
	if opt.Dir != "" {
		if res.err = PrepareDir(opt.Dir); res.err == nil {
			res.err = ClearRun(opt.Dir)
		}
	}
	var smp *sampler
	if iv := engine.Time(sc.Trace.Interval); iv > 0 {
		var stream *analysis.SampleStream
		if opt.Dir != "" && res.err == nil {
			stream, res.err = analysis.CreateSampleStream(filepath.Join(opt.Dir, analysis.SamplesFile))
		}
		smp = newSampler(s, iv, opt.RunID, stream)
	}
	fr := &flowRecorder{s: s, runID: opt.RunID, holdRows: defaultHoldRows, dir: opt.Dir, spillWriter: opt.spillWriter}
	if opt.holdRows > 0 {
		fr.holdRows = opt.holdRows
	}
	if res.streamsFlows() && res.err == nil {
		fr.stream, res.err = analysis.CreateFlowStream(filepath.Join(opt.Dir, analysis.FlowsFile))
	}
	dur := engine.Time(sc.Duration)
	limit := engine.SatAdd(dur, engine.Time(sc.DrainLimit)) // drain_limit may be never
	eng := s.clock
	s.running = true
	report := func(draining bool) {
		if opt.Progress != nil {
			k := s.Cluster.Totals()
			opt.Progress(Progress{SimTime: eng.Now(), Duration: dur, Events: eng.Events(),
				FlowsPosted: k.MessagesPosted, FlowsDone: k.MessagesDone, BytesPosted: k.BytesPosted, BytesDone: k.BytesDone,
				Draining: draining,
				Training: s.trainingProgress()})
		}
	}
	// step is the end of the next chunk towards to. Chunks in which no
	// event falls are skipped whole, staying on the chunk grid, so that an
	// idle stretch (a flow list's late flow under drain_limit: never)
	// costs one step rather than one per chunk; nothing else changes, as
	// nothing happens in them.
	step := func(to engine.Time) engine.Time {
		now := eng.Now()
		end := min(now+chunk, to)
		if t := eng.NextEventTime(); t > end && t != engine.Never {
			if skip := now + (t-now)/chunk*chunk; skip > end {
				end = min(skip, to)
			}
		}
		if smp != nil && s.World != nil {
			end = min(end, smp.next) // the parallel engine samples between Runs
		}
		return end
	}
	// run runs to the end of the next step and, on the parallel engine,
	// samples there when a sample is due.
	run := func(to engine.Time) bool {
		end := step(to)
		empty := eng.Run(end)
		if smp != nil && s.World != nil && eng.Now() == smp.next && smp.err == nil {
			smp.tick(end)
		}
		return empty
	}
	stopped := func() bool {
		return res.err != nil || fr.err != nil || (smp != nil && smp.err != nil) ||
			(opt.Context != nil && opt.Context.Err() != nil)
	}
	for eng.Now() < dur && !stopped() {
		if run(dur) {
			break // the queue emptied: nothing can happen any more (the clock stays at the last event)
		}
		fr.flush(false)
		report(false)
	}
	drained := func() bool {
		for _, d := range s.drivers {
			if !d.done {
				return false
			}
		}
		// On the parallel engine a flow made but not yet posted (sent to
		// its source's unit) counts too.
		k := s.Cluster.Totals()
		return k.MessagesDone == k.MessagesPosted && (s.World == nil || k.MessagesPosted == s.flowsMade) && s.workloadsDone()
	}
	for !drained() && eng.Now() < limit && !stopped() {
		if run(limit) {
			break // nothing left to happen
		}
		fr.flush(false)
		report(true)
	}
	for _, d := range s.drivers {
		// A flow list whose file changed after Build ends its flows early.
		if g, ok := d.gen.(interface{ Err() error }); ok && g.Err() != nil && res.err == nil {
			res.err = fmt.Errorf("workload: %v", g.Err())
		}
	}
	if smp != nil {
		smp.sample(eng.Now())
	}
	res.Drained = drained()
	// A run that failed or was stopped writes no file: both streams are
	// aborted (their temporary files removed) on the first error of any.
	var smpErr, cause error
	if smp != nil {
		smpErr = smp.err
	}
	if opt.Context != nil {
		cause = context.Cause(opt.Context)
	}
	if stop := cmp.Or(res.err, cause, fr.err, smpErr); stop != nil {
		res.err, fr.err = stop, cmp.Or(fr.err, stop)
		if smp != nil {
			smp.err = cmp.Or(smp.err, stop)
		}
	}
	if err := fr.finish(); res.err == nil {
		res.err = err
	}
	res.Flows = fr.rows
	res.waiting, res.spilled = fr.maxWaiting, fr.spilled
	res.Iterations, res.Collectives = s.trainingRecords(opt.RunID)
	res.Batches = s.BatchRecords(opt.RunID)
	if err := s.checkWorkloads(); res.err == nil {
		res.err = err
	}
	if smp != nil {
		var err error
		if res.Samples, err = smp.finish(); res.err == nil {
			res.err = err
		}
	}
	res.Analysis = analysis.AnalyzeStats(fr.stats, 5, s.BDP)
	res.Run = s.runRecord(opt, fr, time.Since(start).Seconds())
	res.Params = opt.Params
	return res
}

// streamsFlows reports whether the run writes flows.parquet into
// Options.Dir as it goes (then Result.Flows is nil). Training runs too:
// their NIC concurrency counters are counted as the run goes (nicTracker).
func (r *Result) streamsFlows() bool { return r.dir != "" }

// NewRunID is a fresh run id: a UUIDv7, whose first 48 bits are the
// Unix time in ms, so ids sort by when their runs started.
func NewRunID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// MaxRunIDLen bounds a pinned run id: it is repeated in the dictionary of
// every file's run_id column and printed in reports.
const MaxRunIDLen = 128

// CheckRunID accepts a pinned run id: 1 to MaxRunIDLen letters, digits
// and - _ . : (a UUID, a SLURM "123456_7", a name), nothing that a shell,
// a CSV or a path would need quoted.
func CheckRunID(id string) error {
	if id == "" || len(id) > MaxRunIDLen {
		return fmt.Errorf("run id %q: want 1 to %d characters", id, MaxRunIDLen)
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:", c)) {
			return fmt.Errorf("run id %q: %q is not a letter, digit, '-', '_', '.' or ':'", id, c)
		}
	}
	return nil
}

func (s *Sim) runRecord(opt Options, fr *flowRecorder, wall float64) analysis.RunRecord {
	sc := s.Scenario
	k := s.Cluster.Totals()
	nk := s.Net.Counters()
	r := analysis.RunRecord{RunID: opt.RunID, ConfigHash: sc.Hash(), Scenario: sc.Name, Scheduler: sc.NIC.Scheduler,
		CC: sc.CC.Algorithm, Workload: sc.Catalog().Label(&sc.Workload), Load: sc.Catalog().ConfiguredLoad(&sc.Workload), Seed: int64(sc.Seed),
		Version: opt.Version, SimTimeNs: s.clock.Now().Nanoseconds(), WallSeconds: wall,
		Events: int64(s.clock.Events()), BytesDropped: nk.DroppedBytes, PFCPauseFrames: nk.PauseFrames,
		NACKs: k.Nacks, RTOTimeouts: k.RTOs, CNPs: k.CNPs}
	r.SetFlowCounts(fr.total, fr.done, fr.stats)
	r.AchievedLoad = s.achievedLoad(fr.windowBytes)
	r.Counters = map[string]int64{
		"data_packets": k.DataPackets, "payload_sent": k.PayloadSent, "payload_in_order": k.PayloadInOrder,
		"retransmitted_bytes": k.Retransmitted, "acks": k.Acks, "qps_opened": k.QPsOpened,
		"control_packets": k.ControlPackets, "duplicate_data": k.DuplicateData,
		"out_of_order_data": k.OutOfOrderData,
	}
	if s.World == nil {
		// On the parallel engine each thread has its own packet pool, so
		// the packets allocated (a memory diagnostic) depend on the
		// thread count; results must not.
		r.Counters["packets_allocated"] = s.Net.Pool.Allocated()
	} else {
		// Names the model variant: the parallel engine's rows differ
		// from the sequential engine's (BuildOptions.Threads).
		r.Counters["parallel_units"] = int64(s.driverUnit)
	}
	var hdrm, ignored int64
	for _, sw := range s.Net.Switches {
		hdrm += sw.HeadroomDrops
		ignored += sw.PauseIgnoredDrops
	}
	if s.Cluster.Cfg.DupThresh > 0 {
		r.Counters["sack_acks"] = k.Sacks
	}
	r.Counters["headroom_drops"] = hdrm
	r.Counters["pause_ignored_drops"] = ignored
	isolationCounters(s.Isolation, r.Counters)
	creditCounters(s.Net, r.Counters)
	if len(s.trains) > 0 {
		for k, v := range s.nic.result(s.Engine.Now()).counters() {
			r.Counters[k] = v
		}
	}
	schedulerCounters(s.Scenario.Catalog(), s.Cluster.Hosts, r.Counters)
	for _, l := range s.workloads {
		l.Counters(r.Counters)
	}
	return r
}

// achievedLoad is the offered load of the flows that started in the
// measurement window (windowBytes, their bytes), relative to the capacity
// of every host link.
func (s *Sim) achievedLoad(windowBytes int64) float64 {
	sc := s.Scenario
	warm, dur := engine.Time(sc.Measure.Warmup), engine.Time(sc.Duration)
	if dur <= warm {
		return 0
	}
	capacity := float64(len(s.Net.HostPorts)) * float64(sc.Topology.HostLink) * (dur - warm).Seconds() / 8
	return float64(windowBytes) / capacity
}

// WriteDir writes a run's files into dir (created if needed): flows.parquet,
// samples.parquet when tracing, iterations.parquet and collectives.parquet
// for training, scenario.yaml, and run.parquet last, which marks the run
// complete. Each file appears atomically. An earlier run's files in dir
// are replaced: its run.parquet is removed first and every run file this
// run does not write is removed too; other files are left alone.
func (r *Result) WriteDir(dir string) error {
	if r.err != nil {
		return r.err
	}
	var keep []string // already this run's
	if r.streamsFlows() {
		keep = append(keep, analysis.FlowsFile)
	}
	if r.dir != "" && r.Sim.Scenario.Trace.Interval > 0 {
		keep = append(keep, analysis.SamplesFile)
	}
	if len(keep) > 0 && filepath.Clean(r.dir) != filepath.Clean(dir) {
		return fmt.Errorf("write %s: the run streamed its %s into %s (Options.Dir); write it there", dir, strings.Join(keep, " and "), r.dir)
	}
	if err := PrepareDir(dir); err != nil {
		return err
	}
	if err := ClearRun(dir, keep...); err != nil {
		return err
	}
	if err := r.writeFiles(dir); err != nil {
		// A run is all its files or none: a partial set would read as
		// a run whose run.parquet is merely missing.
		ClearRun(dir)
		return err
	}
	return nil
}

// writeFiles writes the run's files into dir, run.parquet last.
func (r *Result) writeFiles(dir string) error {
	if !r.streamsFlows() {
		if err := analysis.WriteFlows(filepath.Join(dir, analysis.FlowsFile), r.Flows); err != nil {
			return err
		}
	}
	if r.Samples != nil {
		if err := analysis.WriteSamples(filepath.Join(dir, analysis.SamplesFile), r.Samples); err != nil {
			return err
		}
	}
	if len(r.Sim.trains) > 0 {
		if err := analysis.WriteIterations(filepath.Join(dir, analysis.IterationsFile), r.Iterations); err != nil {
			return err
		}
		if err := analysis.WriteCollectives(filepath.Join(dir, analysis.CollectivesFile), r.Collectives); err != nil {
			return err
		}
	}
	if err := r.writeBatches(dir); err != nil {
		return err
	}
	yml := r.Sim.Scenario.YAML()
	if err := analysis.WriteFileAtomic(filepath.Join(dir, scenario.ScenarioFile), func(w io.Writer) error {
		_, err := w.Write(yml)
		return err
	}); err != nil {
		return err
	}
	return writeRun(filepath.Join(dir, analysis.RunFile), r.Run, r.Params)
}

// writeRun is analysis.WriteRun, which a test makes fail.
var writeRun = analysis.WriteRun

// Headline is a one-paragraph description of the run for the terminal.
func (r *Result) Headline() string {
	sc := r.Sim.Scenario
	k := r.Sim.Cluster.Totals()
	var b strings.Builder
	load := ""
	if l := r.Run.Load; l != nil {
		load = fmt.Sprintf(" at load %.2f", *l)
	}
	engineNote := ""
	if w := r.Sim.World; w != nil {
		threads := "threads"
		if w.Threads() == 1 {
			threads = "thread"
		}
		engineNote = fmt.Sprintf("; parallel engine, units by %s: %d units on %d %s", r.Sim.grain, r.Sim.driverUnit, w.Threads(), threads)
	}
	fmt.Fprintf(&b, "scenario %s: %d hosts, %s, scheduler %s, cc %s, %s%s, seed %d%s\n",
		sc.Name, len(r.Sim.Net.HostPorts), sc.Topology.Kind, sc.NIC.Scheduler, sc.CC.Algorithm,
		sc.Catalog().Label(&sc.Workload), load, sc.Seed, engineNote)
	fmt.Fprintf(&b, "simulated %v (%d events, %d data packets) in %.1f s: %.0f events/s, %.0f packets/s\n",
		r.Sim.Engine.Now(), r.Run.Events, k.DataPackets, r.Run.WallSeconds,
		float64(r.Run.Events)/r.Run.WallSeconds, float64(k.DataPackets)/r.Run.WallSeconds)
	achieved := ""
	if !sc.Catalog().Training(&sc.Workload) {
		// A training run's duration is only its start window; the load
		// of the flows that started in it says nothing.
		achieved = fmt.Sprintf("; achieved load %.3f", r.Run.AchievedLoad)
	}
	if r.Run.FlowsTotal > 0 || len(r.Sim.loops) == 0 {
		// A closed-loop workload's messages are not flows: its own line
		// below says what it did.
		fmt.Fprintf(&b, "flows %d posted, %d finished%s; ", r.Run.FlowsTotal, r.Run.FlowsDone, achieved)
	}
	fmt.Fprintf(&b, "drops %d B; PFC pauses %d; NACKs %d; RTOs %d; CNPs %d\n",
		r.Run.BytesDropped, r.Run.PFCPauseFrames, r.Run.NACKs, r.Run.RTOTimeouts, r.Run.CNPs)
	b.WriteString(r.Sim.trainingSummary())
	b.WriteString(r.haloSummary())
	b.WriteString(r.Sim.mpitraceSummary())
	tp := r.Sim.trainingProgress()
	switch {
	case r.Sim.Training() && tp.IterationsDone < tp.Iterations:
		fmt.Fprintf(&b, "note: %d of %d training iterations finished before the drain limit ended the run at %v (drain_limit %v), so iterations.parquet has %d rows; give it more time, e.g. --set drain_limit=10s\n",
			tp.IterationsDone, tp.Iterations, r.Sim.Engine.Now(), sc.DrainLimit, tp.IterationsDone)
	case r.Run.FlowsTotal == 0 && !r.Sim.Training() && len(r.Sim.loops) == 0:
		fmt.Fprintf(&b, "note: no flow started within the duration (%v); a longer duration or a higher load gives some\n", sc.Duration)
	}
	switch {
	case !r.Drained && r.Run.FlowsTotal == 0 && len(r.Sim.loops) > 0:
		fmt.Fprintf(&b, "note: the drain limit ended the run before the %s workload finished (drain_limit %v); give it more time, e.g. --set drain_limit=1s\n",
			sc.Workload.Kind, sc.DrainLimit)
	case !r.Drained:
		fmt.Fprintf(&b, "note: the drain limit ended the run with %d flows unfinished (recorded with null finish)\n",
			r.Run.FlowsTotal-r.Run.FlowsDone)
	}
	if n := r.Run.Counters["pause_ignored_drops"]; n > 0 {
		fmt.Fprintf(&b, "note: %d packets dropped at full PFC headroom behind ACKs that NICs sent into a paused class (ack_high_prio, as the reference model does; counter pause_ignored_drops)\n", n)
	}
	for _, w := range r.Warnings() {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// Warnings lists what went wrong in a run that completed: a lossless
// fabric that dropped at full headroom with no packet sent into a paused
// class to explain it (its headroom was too small, a sizing error that
// -tags invariants turns into a panic).
func (r *Result) Warnings() []string {
	var w []string
	if n := r.Run.Counters["headroom_drops"]; n > 0 && r.Sim.Scenario.Switch.PFC {
		w = append(w, fmt.Sprintf("lossless fabric dropped %d packets at full PFC headroom (counter headroom_drops): the headroom is too small for these links and frames (switch.pfc_headroom %s)",
			n, r.Sim.Scenario.Switch.PFCHeadroom))
	}
	return w
}
