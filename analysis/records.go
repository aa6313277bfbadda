package analysis

import "fmt"

// FlowRecord is one row of flows.parquet: one message from post to the ACK
// of its last byte. Times are ns since the start of the simulation.
type FlowRecord struct {
	RunID              string   `parquet:"run_id,dict"`
	FlowID             int64    `parquet:"flow_id"`
	Generator          string   `parquet:"generator,dict"`
	Tag                string   `parquet:"tag,dict"`
	Src                int32    `parquet:"src"`
	Dst                int32    `parquet:"dst"`
	QP                 int64    `parquet:"qp"`
	PriorityClass      int32    `parquet:"priority_class"`
	SizeBytes          int64    `parquet:"size_bytes"`
	StartNs            int64    `parquet:"start_ns"`
	FinishNs           *int64   `parquet:"finish_ns,optional"`
	FctNs              *int64   `parquet:"fct_ns,optional"`
	IdealFctNs         int64    `parquet:"ideal_fct_ns"`
	Slowdown           *float64 `parquet:"slowdown,optional"`
	InWindow           bool     `parquet:"in_window"`
	RetransmittedBytes int64    `parquet:"retransmitted_bytes"`
}

// Finished reports whether the flow has a slowdown, which is what the
// summaries count as finished. SetFinish sets finish_ns, fct_ns and
// slowdown together, so for records it built the three agree.
func (f *FlowRecord) Finished() bool { return f.Slowdown != nil }

// SetFinish records that the ACK of the flow's last byte reached the sender
// at finishNs: it sets finish_ns, fct_ns = finish - start and the unclamped
// slowdown = fct / ideal. IdealFctNs must already be set and positive, and
// finishNs must not precede StartNs; the simulator breaking either is a bug,
// so it panics.
func (f *FlowRecord) SetFinish(finishNs int64) {
	if f.IdealFctNs <= 0 {
		panic(fmt.Sprintf("analysis: flow %d finishes with ideal_fct_ns %d; set a positive ideal first", f.FlowID, f.IdealFctNs))
	}
	if finishNs < f.StartNs {
		panic(fmt.Sprintf("analysis: flow %d finishes at %d ns before its start at %d ns", f.FlowID, finishNs, f.StartNs))
	}
	// One allocation for the three optional values (three were 12% of a
	// 10^6-flow run's allocations).
	v := &struct {
		fin, fct int64
		sd       float64
	}{fin: finishNs, fct: finishNs - f.StartNs}
	v.sd = float64(v.fct) / float64(f.IdealFctNs)
	f.FinishNs, f.FctNs, f.Slowdown = &v.fin, &v.fct, &v.sd
}

// IterationRecord is one row of iterations.parquet (training workloads).
type IterationRecord struct {
	RunID         string `parquet:"run_id,dict"`
	Iteration     int64  `parquet:"iteration"`
	StartNs       int64  `parquet:"start_ns"`
	EndNs         int64  `parquet:"end_ns"`
	DurationNs    int64  `parquet:"duration_ns"`
	ComputeNs     int64  `parquet:"compute_ns"`
	ExposedCommNs int64  `parquet:"exposed_comm_ns"`
}

// CollectiveRecord is one row of collectives.parquet: one collective of one
// iteration, from its first flow's post to its last flow's finish.
type CollectiveRecord struct {
	RunID     string `parquet:"run_id,dict"`
	Iteration int64  `parquet:"iteration"`
	Name      string `parquet:"name,dict"`
	Op        string `parquet:"op,dict"`
	Group     string `parquet:"group,dict"`
	Bytes     int64  `parquet:"bytes"`
	StartNs   int64  `parquet:"start_ns"`
	EndNs     int64  `parquet:"end_ns"`
}

// SampleRecord is one row of samples.parquet: one metric of one component
// at one sampling instant.
type SampleRecord struct {
	RunID     string  `parquet:"run_id,dict"`
	TimeNs    int64   `parquet:"time_ns"`
	Component string  `parquet:"component,dict"`
	Metric    string  `parquet:"metric,dict"`
	Value     float64 `parquet:"value"`
}

// RunRecord is the one row of run.parquet. Its columns are pinned; the
// swept parameters of a sweep point follow them as extra columns (see
// WriteRun). The slowdown statistics are clamped at 1.
type RunRecord struct {
	RunID string `parquet:"run_id"`
	// ConfigHash names the resolved scenario, seed included: 16 hex
	// digits of the SHA-256 of its scenario.yaml, a sweep point's
	// directory name. Equal for two runs of one scenario and seed, which
	// write the same results under different run ids.
	ConfigHash     string           `parquet:"config_hash"`
	Scenario       string           `parquet:"scenario"`
	Scheduler      string           `parquet:"scheduler"`
	CC             string           `parquet:"cc"`
	Workload       string           `parquet:"workload"`
	Load           *float64         `parquet:"load,optional"` // nil (null) when the main workload takes no load
	Seed           int64            `parquet:"seed"`
	Version        string           `parquet:"version"`
	SimTimeNs      int64            `parquet:"sim_time_ns"`
	WallSeconds    float64          `parquet:"wall_seconds"`
	Events         int64            `parquet:"events"`
	FlowsTotal     int64            `parquet:"flows_total"`
	FlowsDone      int64            `parquet:"flows_done"`
	AchievedLoad   float64          `parquet:"achieved_load"`
	MeanSlowdown   float64          `parquet:"mean_slowdown"`
	P50Slowdown    float64          `parquet:"p50_slowdown"`
	P95Slowdown    float64          `parquet:"p95_slowdown"`
	P99Slowdown    float64          `parquet:"p99_slowdown"`
	FlowsBelowOne  int64            `parquet:"flows_below_one"`
	BytesDropped   int64            `parquet:"bytes_dropped"`
	PFCPauseFrames int64            `parquet:"pfc_pause_frames"`
	NACKs          int64            `parquet:"nacks"`
	RTOTimeouts    int64            `parquet:"rto_timeouts"`
	CNPs           int64            `parquet:"cnps"`
	Counters       map[string]int64 `parquet:"counters"`
}

// SetFlowStats fills the flow columns of r from flows: flows_total and
// flows_done count every flow (in the window or not), the slowdown columns
// and flows_below_one summarise the in-window ones as Summarize does.
func (r *RunRecord) SetFlowStats(flows []FlowRecord) {
	var done int64
	for i := range flows {
		if flows[i].Finished() {
			done++
		}
	}
	r.SetFlowCounts(int64(len(flows)), done, Stats(flows))
}

// SetFlowCounts is SetFlowStats from what a run that streamed its flows
// kept of them: the number of flows, the number finished, and the
// in-window ones' stats (Stats of the records, in order).
func (r *RunRecord) SetFlowCounts(total, done int64, inWindow []FlowStat) {
	r.FlowsTotal, r.FlowsDone = total, done
	s := SummarizeStats(inWindow)
	r.MeanSlowdown, r.P50Slowdown, r.P95Slowdown, r.P99Slowdown = s.Mean, s.P50, s.P95, s.P99
	r.FlowsBelowOne = int64(s.BelowOne)
}

// Param is one swept parameter of a run: Name is its dotted path in the
// scenario ("workload.load") and Value one of string, bool, an integer type
// (stored as int64) or a float type (stored as float64).
type Param struct {
	Name  string
	Value any
}

// BatchRecord is one row of batches.parquet (the halo workload): one
// publication of a ring buffer, READ head, WRITE(s), FETCH_ADD tail (one
// SEND when two-sided). Times are ns from the start of the run; -1 when
// the event did not happen (a two-sided batch has no READ).
type BatchRecord struct {
	RunID            string `parquet:"run_id,dict"`
	Batch            int64  `parquet:"batch"` // in publication-start order
	Pair             int64  `parquet:"pair"`  // ordered neighbour pair
	SrcRank          int64  `parquet:"src_rank"`
	DstRank          int64  `parquet:"dst_rank"`
	Src              int64  `parquet:"src"`
	Dst              int64  `parquet:"dst"`
	Particles        int64  `parquet:"particles"`
	Bytes            int64  `parquet:"bytes"`
	Writes           int64  `parquet:"writes"` // WRITEs (1, or 2 on a wrap), or SENDs
	HeadReads        int64  `parquet:"head_reads"`
	Hops             int64  `parquet:"hops"`      // links on the path (its ECMP path's length; spraying keeps the length)
	Packets          int64  `parquet:"packets"`   // data packets placed
	Reordered        int64  `parquet:"reordered"` // of them, placed after a packet of higher offset (the paths reordered them)
	ReadPostedNs     int64  `parquet:"read_posted_ns"`
	PostedNs         int64  `parquet:"posted_ns"` // the first WRITE (SEND) posted
	DataVisibleNs    int64  `parquet:"data_visible_ns"`
	TailExecutedNs   int64  `parquet:"tail_executed_ns"`
	TailVisibleNs    int64  `parquet:"tail_visible_ns"`
	CompletedNs      int64  `parquet:"completed_ns"`
	PublishLatencyNs int64  `parquet:"publish_latency_ns"` // tail_visible_ns - posted_ns
	Violation        bool   `parquet:"violation"`          // tail visible before all payload
	Stale            int64  `parquet:"stale"`              // particles read before visible
}
