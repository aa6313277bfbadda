package simai

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dcsim/dcsim/engine"
)

// RunConfig places a workload on GPUs and hosts and sets the collective
// model. DefaultRunConfig holds the documented defaults; NewRun uses the
// values as given (an explicit 0 is honoured where it is valid).
type RunConfig struct {
	// GPUs is the world size. 0 takes the workload's all_gpus (an error if
	// that is absent too). SimAI also takes the world size from its
	// topology, not from all_gpus.
	GPUs int
	// GPUsPerHost places rank r on host r/GPUsPerHost. Transfers between
	// GPUs of one host do not use the network: they cross an NVLink-class
	// link of NVLinkRate per GPU (default 1: every GPU is its own host).
	GPUsPerHost int
	// NVLinkRate is the per-GPU egress rate of intra-host transfers
	// (default 2400 Gbps: A100 NVLink 3, 300 GB/s per direction).
	NVLinkRate engine.Rate
	// Iterations is the number of passes over the workload (default 1).
	Iterations int
	// SendLatency is the fixed delay before every send (default 6us,
	// SimAI's AS_SEND_LAT default).
	SendLatency engine.Time
	// SendLatencyTable replaces SendLatency by SimAI 1.7's table
	// (SendLatencyFor): per protocol, NVLink or network.
	SendLatencyTable bool
	// Protocol is the NCCL protocol the table is read for (default
	// Simple).
	Protocol Protocol
	// Channels forces C rings on every group: each ring flow carries
	// S/(n*C) bytes. 0 (the default) is SimAI's rule: each group gets one
	// ring per rank it has on a host (Layout.Channels), all-to-all one.
	Channels int
	// OverlapDP starts every weight-gradient collective as soon as its
	// rank issues it. false (the default) is SimAI's rule: one collective
	// per rank and dimension in flight, waiting ones newest-first.
	OverlapDP bool
	// CommScale and ComputeScale multiply every collective size and every
	// compute time (SimAI's comm_scale and compute_scale; default 1).
	// Scaled sizes round to the nearest byte (at least 1 B) and scaled
	// times to the nearest picosecond. Update delays are not scaled.
	CommScale, ComputeScale float64
}

// Defaults of RunConfig.
const (
	DefaultSendLatency = 6 * engine.Microsecond
	DefaultNVLinkRate  = 2400 * engine.Gbps
)

// DefaultRunConfig returns the defaults: GPUs from the workload, one GPU
// per host, NVLink 2400 Gbps, one iteration, a fixed 6us send latency
// (table protocol Simple), SimAI's channels per group, SimAI's
// per-dimension queues, no scaling.
func DefaultRunConfig() RunConfig {
	return RunConfig{GPUsPerHost: 1, NVLinkRate: DefaultNVLinkRate, Iterations: 1,
		SendLatency: DefaultSendLatency, Protocol: ProtoSimple, CommScale: 1, ComputeScale: 1}
}

// Protocol is an NCCL protocol, a key of SimAI 1.7's send-latency table.
type Protocol uint8

// Protocols.
const (
	ProtoLL Protocol = iota
	ProtoLL128
	ProtoSimple
)

var protocolNames = [...]string{"ll", "ll128", "simple"}

func (p Protocol) String() string {
	if int(p) < len(protocolNames) {
		return protocolNames[p]
	}
	return "protocol(" + strconv.Itoa(int(p)) + ")"
}

// ParseProtocol reads "ll", "ll128" or "simple".
func ParseProtocol(s string) (Protocol, error) {
	for i, n := range protocolNames {
		if s == n {
			return Protocol(i), nil
		}
	}
	return 0, fmt.Errorf("unknown protocol %q (ll, ll128, simple)", s)
}

// sendLatencyRing is the Ring row of SimAI 1.7's send-latency tables
// (network_frontend/ns3/entry.h SendFlow, send_lat_table_nvlink and
// send_lat_table_net), in ns as its authors mean, by protocol LL, LL128,
// Simple: NCCL 2.30's base plus hardware latency (SimAI's ns-3 build
// applies them in µs; see doc.go).
var sendLatencyRing = [2][3]engine.Time{
	{7200, 15900, 11800}, // NVLink (same node)
	{9300, 18000, 22400}, // network
}

// SendLatencyFor is SimAI 1.7's send latency of a ring flow with protocol
// p, between GPUs of one host (NVLink) or over the network. dcsim runs
// every collective as a ring or a direct all-to-all, so it reads the Ring
// row for all of them.
func SendLatencyFor(p Protocol, sameHost bool) engine.Time {
	row := 1
	if sameHost {
		row = 0
	}
	return sendLatencyRing[row][p] * engine.Nanosecond
}

// Transfer is one RDMA message between two hosts.
type Transfer struct {
	// ID is unique within the Run; IDs of intra-host transfers, which are
	// never posted, leave gaps.
	ID             int
	Src, Dst       int // hosts
	SrcGPU, DstGPU int // ranks
	Bytes          int64
	// Tag names the collective and step:
	// "i<iteration>/L<line>/<name>.<phase>/<group>/s<step>" plus "c<channel>"
	// when there is more than one channel, e.g. "i0/L4/attention_layer.fwd/tp3/s5".
	Tag string
}

// ActionKind says what an Action asks for.
type ActionKind uint8

// Kinds of Action.
const (
	// Post: hand Transfer to the network at time At; call Run.Sent with
	// its ID when its last byte has been serialised onto the sender's link
	// and Run.Done when that byte is acknowledged.
	Post ActionKind = iota + 1
	// Wake: call Run.Wake with Token at time At.
	Wake
)

// Action is one request from a Run to its driver.
type Action struct {
	Kind     ActionKind
	At       engine.Time
	Transfer Transfer // Post
	Token    int      // Wake
}

// IterationStat describes one iteration (pass over the workload): from the
// first rank starting it to the last rank finishing it, including its
// outstanding collectives. It mirrors analysis.IterationRecord.
type IterationStat struct {
	Iteration            int
	Start, End, Duration engine.Time
	// Compute is one rank's compute in the pass: the sum of fwd, ig and wg
	// times (scaled), the same for every rank.
	Compute engine.Time
	// ExposedComm is Duration - Compute: communication, update delays and
	// waiting not hidden behind compute.
	ExposedComm engine.Time
}

// CollectiveStat describes one collective on one group in one iteration.
// It mirrors analysis.CollectiveRecord, with Line, Phase and Issued added.
type CollectiveStat struct {
	Iteration int
	Name      string // "<line name>.<phase>", e.g. "attention_layer.fwd"
	Line      int
	Phase     Phase
	Op        Op
	Group     string // e.g. "tp3", "dp0", "world"
	Bytes     int64  // as executed: after the forward minimum and CommScale
	// Issued is when the first member issued it, Start when its first flow
	// was posted (Issued + SendLatency), End when its last member finished
	// (the last flow delivered), before the update delay.
	Issued, Start, End engine.Time
}

// Wake tokens: the low two bits say what the token is about.
const (
	tokRank   = 0 // a rank's compute or blocking update delay elapsed
	tokWG     = 1 // a non-blocking collective's update delay elapsed (rank*N + line)
	tokNVLink = 2 // an intra-host transfer finished (transfer ID)
)

type opKind uint8

const (
	opCompute opKind = iota
	opWaitWG
	opColl
	opWaitAll
)

// progOp is one step of the program every rank runs.
type progOp struct {
	kind     opKind
	blocking bool
	phase    Phase
	line     int
	d        engine.Time
}

// groupInfo is a communicator with its ring orders, built on first use.
type groupInfo struct {
	Group
	name     string
	channels int     // rings of its ring collectives
	ring     [][]int // per channel: ring position -> member
	pos      [][]int // per channel: member -> ring position
}

type instKey struct {
	pass, line int32
	phase      Phase
	kind       GroupKind
	index      int32
}

type member struct {
	issued, done     bool
	recv, sendsDone  int
	nextSend         []int // per channel: next ring step to send
	gotStep          []bool
	issuedAt, doneAt engine.Time
}

// inst is one collective in flight on one group.
type inst struct {
	key       instKey
	g         *groupInfo
	op        Op
	bytes     int64
	steps     int
	expect    int // flows each member sends and receives
	blocking  bool
	members   []member
	doneCount int
	issued    engine.Time
	start     engine.Time
	end       engine.Time
	tagPrefix string
	channels  int
	// slot: its members hold their rank's queue of its dimension (not
	// with OverlapDP on the DP dimension).
	slot bool
}

type flowRef struct {
	in        *inst
	from, to  int // members
	ch, step  int
	intraHost bool
	sent      bool // the sender's side is released
}

// Dimensions: SimAI's ns-3 front end has one queue per dimension, and the
// workload splits its one dimension at the TP size (Sys::break_dimension):
// the fwd and ig columns run on the model dimension, the wg column on the
// data dimension (Workload::decode_involved_dimensions), whatever the
// group (TP, EP, DP, DP_EP).
const (
	dimModel = iota
	dimData
	numDims
)

func dimOf(p Phase) int {
	if p == WG {
		return dimData
	}
	return dimModel
}

// dimQueue is one rank's queue of one dimension: one stream running
// (queue_threshold 1), the waiting ones run newest-first (LIFO priority,
// Sys::insert_stream after the running stream).
type dimQueue struct {
	busy    bool
	waiting []*progOp
}

type rankState struct {
	pc        int
	pass      int
	blocked   bool // waiting for a blocking collective
	dims      [numDims]dimQueue
	waitLine  int
	waitAll   bool
	pendingWG int
	wgPending []bool
	passStart engine.Time
	finished  bool
}

type passAcc struct {
	start, end engine.Time
	ranksDone  int
}

// Run executes a workload on a set of GPUs as a state machine with no
// network of its own: Start, Done and Wake return Actions (transfers to
// post, wake-ups to schedule) and the driver reports back. It is
// deterministic: the same calls in the same order give the same actions.
type Run struct {
	w      *Workload
	cfg    RunConfig
	layout Layout
	prog   []progOp
	// per line and phase: executed bytes and whether the collective runs
	bytes   [][3]int64
	compute engine.Time

	groups  [6][]*groupInfo
	insts   map[instKey]*inst
	flows   map[int]flowRef
	nextID  int
	ranks   []rankState
	nvFree  []engine.Time
	passes  []passAcc
	started bool
	done    int

	iters []IterationStat
	colls []CollectiveStat
	out   []Action

	posted, nvlinked int
}

// NewRun prepares w for execution. The workload is not copied and must
// not change while the run is in use.
func NewRun(w *Workload, cfg RunConfig) (*Run, error) {
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", w.Name, err)
	}
	if cfg.GPUs == 0 {
		cfg.GPUs = w.AllGPUs
		if cfg.GPUs == 0 {
			return nil, fmt.Errorf("gpus: not set and the workload %s has no all_gpus", w.Name)
		}
	}
	switch {
	case cfg.Iterations < 1:
		return nil, fmt.Errorf("iterations: must be >= 1, got %d", cfg.Iterations)
	case cfg.Channels < 0:
		return nil, fmt.Errorf("channels: must be >= 0 (0 = per group), got %d", cfg.Channels)
	case int(cfg.Protocol) >= len(protocolNames):
		return nil, fmt.Errorf("protocol: %v", cfg.Protocol)
	case cfg.SendLatency < 0:
		return nil, fmt.Errorf("send_latency: must be >= 0, got %v", cfg.SendLatency)
	case cfg.NVLinkRate <= 0:
		return nil, fmt.Errorf("nvlink_rate: must be > 0, got %v", cfg.NVLinkRate)
	case !(cfg.CommScale > 0 && cfg.CommScale <= 1e6):
		return nil, fmt.Errorf("comm_scale: must be in (0, 1e6], got %v", cfg.CommScale)
	case !(cfg.ComputeScale > 0 && cfg.ComputeScale <= 1e6):
		return nil, fmt.Errorf("compute_scale: must be in (0, 1e6], got %v", cfg.ComputeScale)
	}
	layout, err := NewLayout(cfg.GPUs, cfg.GPUsPerHost, w.TP, w.PP, w.EP)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.Name, err)
	}
	r := &Run{w: w, cfg: cfg, layout: layout, insts: map[instKey]*inst{}, flows: map[int]flowRef{}}
	r.bytes = make([][3]int64, len(w.Lines))
	for i := range w.Lines {
		l := &w.Lines[i]
		for p := Fwd; p <= WG; p++ {
			c := l.Stage(p).Comm
			if !c.Active() || layout.Size(c.Group) < 2 || (w.Policy == PolicyMicro && p != WG) {
				continue
			}
			b := l.CommBytes(p)
			if cfg.CommScale != 1 {
				f := math.Round(float64(b) * cfg.CommScale)
				if f > 1<<62 {
					return nil, fmt.Errorf("comm_scale: line %d %s size %d x %v overflows", i, p, b, cfg.CommScale)
				}
				b = max(int64(f), 1)
			}
			r.bytes[i][p] = b
		}
	}
	scale := func(d engine.Time) (engine.Time, error) {
		if cfg.ComputeScale == 1 || d == 0 {
			return d, nil
		}
		f := math.Round(float64(d) * cfg.ComputeScale)
		if f > 1<<62 {
			return 0, fmt.Errorf("compute_scale: time %v x %v overflows", d, cfg.ComputeScale)
		}
		return engine.Time(f), nil
	}
	if err := r.compile(scale); err != nil {
		return nil, err
	}
	r.ranks = make([]rankState, cfg.GPUs)
	for i := range r.ranks {
		r.ranks[i] = rankState{waitLine: -1, wgPending: make([]bool, len(w.Lines))}
	}
	r.nvFree = make([]engine.Time, cfg.GPUs)
	r.passes = make([]passAcc, cfg.Iterations)
	for i := range r.passes {
		r.passes[i].start = engine.Never
	}
	return r, nil
}

// compile builds the per-rank program of docs/model.md §7.5 (or MICRO's).
func (r *Run) compile(scale func(engine.Time) (engine.Time, error)) error {
	var prog []progOp
	var total engine.Time
	addCompute := func(d engine.Time) error {
		d, err := scale(d)
		if err != nil {
			return err
		}
		total += d
		if d == 0 {
			return nil
		}
		if n := len(prog); n > 0 && prog[n-1].kind == opCompute {
			prog[n-1].d += d
			return nil
		}
		prog = append(prog, progOp{kind: opCompute, d: d})
		return nil
	}
	coll := func(i int, p Phase, blocking bool) {
		if r.bytes[i][p] > 0 {
			prog = append(prog, progOp{kind: opColl, line: i, phase: p, blocking: blocking})
		}
	}
	lines := r.w.Lines
	if r.w.Policy == PolicyMicro {
		for i := range lines {
			l := &lines[i]
			for _, d := range []engine.Time{l.Fwd.Compute, l.IG.Compute, l.WG.Compute} {
				if err := addCompute(d); err != nil {
					return err
				}
			}
			coll(i, WG, true)
		}
	} else {
		for i := range lines {
			if r.bytes[i][WG] > 0 {
				prog = append(prog, progOp{kind: opWaitWG, line: i})
			}
			if err := addCompute(lines[i].Fwd.Compute); err != nil {
				return err
			}
			coll(i, Fwd, true)
		}
		for i := len(lines) - 1; i >= 0; i-- {
			if err := addCompute(lines[i].IG.Compute); err != nil {
				return err
			}
			coll(i, IG, true)
			if err := addCompute(lines[i].WG.Compute); err != nil {
				return err
			}
			coll(i, WG, false)
		}
	}
	prog = append(prog, progOp{kind: opWaitAll})
	r.prog, r.compute = prog, total
	return nil
}

// Layout is the placement of ranks into groups and hosts.
func (r *Run) Layout() Layout { return r.layout }

// Hosts is the number of hosts the run needs: GPUs/GPUsPerHost, host h
// holding ranks [h*GPUsPerHost, (h+1)*GPUsPerHost).
func (r *Run) Hosts() int { return r.layout.Hosts() }

// Config is the configuration in use (GPUs filled in from the workload).
func (r *Run) Config() RunConfig { return r.cfg }

// Compute is one rank's compute time per iteration (scaled).
func (r *Run) Compute() engine.Time { return r.compute }

// Finished reports whether every rank has completed every iteration.
func (r *Run) Finished() bool { return r.done == len(r.ranks) }

// Iterations returns the statistics of the iterations completed so far.
func (r *Run) Iterations() []IterationStat { return r.iters }

// Collectives returns the statistics of the collectives completed so far,
// in completion order.
func (r *Run) Collectives() []CollectiveStat { return r.colls }

// Transfers returns how many transfers were posted to the network and how
// many were carried over NVLink inside a host.
func (r *Run) Transfers() (network, nvlink int) { return r.posted, r.nvlinked }

// Start begins the run at now: every rank starts its first iteration. The
// returned slice is valid until the next call on r.
func (r *Run) Start(now engine.Time) []Action {
	if r.started {
		panic("simai: Run.Start called twice")
	}
	r.started = true
	r.out = r.out[:0]
	for i := range r.ranks {
		r.ranks[i].passStart = now
		r.advance(i, now)
	}
	return r.out
}

// Done reports that network transfer id (from a Post action) has been
// delivered at now. The returned slice is valid until the next call on r.
func (r *Run) Done(now engine.Time, id int) []Action {
	ref, ok := r.flows[id]
	if !ok || ref.intraHost {
		panic(fmt.Sprintf("simai: Done for unknown transfer %d", id))
	}
	r.out = r.out[:0]
	r.flowDone(id, ref, now)
	return r.out
}

// Wake reports that the wake-up with token (from a Wake action) is due.
// The returned slice is valid until the next call on r.
func (r *Run) Wake(now engine.Time, token int) []Action {
	if !r.started {
		panic("simai: Run.Wake before Start")
	}
	r.out = r.out[:0]
	idx := token >> 2
	switch token & 3 {
	case tokRank:
		if idx < 0 || idx >= len(r.ranks) {
			panic(fmt.Sprintf("simai: Wake with bad rank token %d", token))
		}
		r.advance(idx, now)
	case tokWG:
		n := len(r.w.Lines)
		if n == 0 || idx < 0 || idx/n >= len(r.ranks) {
			panic(fmt.Sprintf("simai: Wake with bad collective token %d", token))
		}
		r.wgDone(idx/n, idx%n, now)
	case tokNVLink:
		ref, ok := r.flows[idx]
		if !ok || !ref.intraHost {
			panic(fmt.Sprintf("simai: Wake for unknown intra-host transfer %d", idx))
		}
		r.flowDone(idx, ref, now)
	default:
		panic(fmt.Sprintf("simai: Wake with bad token %d", token))
	}
	return r.out
}

func (r *Run) wake(at engine.Time, token int) {
	r.out = append(r.out, Action{Kind: Wake, At: at, Token: token})
}

// advance runs rank i's program from its current position until it must
// wait for compute, a collective or an outstanding weight-gradient
// collective.
func (r *Run) advance(i int, now engine.Time) {
	rs := &r.ranks[i]
	for !rs.finished {
		if rs.pc == len(r.prog) {
			r.finishPass(i, now)
			continue
		}
		op := &r.prog[rs.pc]
		switch op.kind {
		case opCompute:
			rs.pc++
			r.wake(now+op.d, i<<2|tokRank)
			return
		case opWaitWG:
			if rs.wgPending[op.line] {
				rs.waitLine = op.line
				return
			}
			rs.pc++
		case opColl:
			rs.pc++
			r.enqueue(i, op, now)
			if op.blocking {
				rs.blocked = true
				return
			}
			rs.wgPending[op.line] = true
			rs.pendingWG++
		case opWaitAll:
			if rs.pendingWG > 0 {
				rs.waitAll = true
				return
			}
			rs.pc++
		}
	}
}

func (r *Run) finishPass(i int, now engine.Time) {
	rs := &r.ranks[i]
	acc := &r.passes[rs.pass]
	acc.start = min(acc.start, rs.passStart)
	acc.end = max(acc.end, now)
	acc.ranksDone++
	if acc.ranksDone == len(r.ranks) {
		d := acc.end - acc.start
		r.iters = append(r.iters, IterationStat{Iteration: rs.pass, Start: acc.start, End: acc.end,
			Duration: d, Compute: r.compute, ExposedComm: d - r.compute})
	}
	rs.pass++
	rs.pc = 0
	rs.passStart = now
	if rs.pass == len(r.passes) {
		rs.finished = true
		r.done++
	}
}

// enqueue issues rank i's collective of op now if its dimension's queue
// is free (or it is a weight-gradient collective with OverlapDP), else
// leaves it waiting.
func (r *Run) enqueue(i int, op *progOp, now engine.Time) {
	d := dimOf(op.phase)
	if d == dimData && r.cfg.OverlapDP {
		r.issue(i, op, now, false)
		return
	}
	q := &r.ranks[i].dims[d]
	q.waiting = append(q.waiting, op)
	r.schedule(i, d, now)
}

// release frees rank i's queue of dimension d and starts the next
// waiting collective.
func (r *Run) release(i, d int, now engine.Time) {
	q := &r.ranks[i].dims[d]
	if !q.busy {
		panic(fmt.Sprintf("simai: rank %d released an idle queue %d", i, d))
	}
	q.busy = false
	r.schedule(i, d, now)
}

// schedule starts rank i's next collective of dimension d if its queue is
// free: SimAI's newest waiting one, except that a rank follows its peers.
// A waiting collective that a peer has already started goes first (the
// newest such), and while a peer has started one of this pass that rank i
// has not issued yet, rank i waits for it. SimAI decides per rank alone,
// which deadlocks when two ranks of a group pick different collectives
// (one released its queue before the other issued the newest); its
// lock-step analytical timing never does, a network's jitter does. The
// model dimension's collectives block their rank, so its queue never
// holds more than one and needs no such rule (waiting there for a peer
// of another group, ahead in the program, would deadlock).
func (r *Run) schedule(i, d int, now engine.Time) {
	q := &r.ranks[i].dims[d]
	if q.busy || len(q.waiting) == 0 {
		return
	}
	pick := -1
	for k := len(q.waiting) - 1; k >= 0 && pick < 0; k-- {
		if r.insts[r.keyOf(i, q.waiting[k])] != nil {
			pick = k
		}
	}
	if pick < 0 {
		if d == dimData && r.peerStartedOther(i, d) {
			return
		}
		pick = len(q.waiting) - 1
	}
	op := q.waiting[pick]
	q.waiting = append(q.waiting[:pick], q.waiting[pick+1:]...)
	q.busy = true
	r.issue(i, op, now, true)
}

// keyOf is the collective instance rank i joins with op in its current pass.
func (r *Run) keyOf(i int, op *progOp) instKey {
	k := r.w.Lines[op.line].Stage(op.phase).Comm.Group
	gi, _ := r.layout.Index(k, i)
	return instKey{pass: int32(r.ranks[i].pass), line: int32(op.line), phase: op.phase, kind: k, index: int32(gi)}
}

// peerStartedOther reports whether a peer of rank i has started a
// queued collective of dimension d in rank i's pass that rank i has not
// issued.
func (r *Run) peerStartedOther(i, d int) bool {
	pass := int32(r.ranks[i].pass)
	for key, in := range r.insts {
		if key.pass != pass || !in.slot || dimOf(key.phase) != d {
			continue
		}
		if gi, m := r.layout.Index(key.kind, i); int32(gi) == key.index && !in.members[m].issued {
			return true
		}
	}
	return false
}

// wgDone clears rank i's outstanding weight-gradient collective of line.
func (r *Run) wgDone(i, line int, now engine.Time) {
	rs := &r.ranks[i]
	if !rs.wgPending[line] {
		panic(fmt.Sprintf("simai: rank %d line %d: weight-gradient collective finished twice", i, line))
	}
	rs.wgPending[line] = false
	rs.pendingWG--
	switch {
	case rs.waitLine == line:
		rs.waitLine = -1
		r.advance(i, now)
	case rs.waitAll && rs.pendingWG == 0:
		rs.waitAll = false
		r.advance(i, now)
	}
}

func (r *Run) group(k GroupKind, index int) *groupInfo {
	gs := r.groups[k]
	if gs == nil {
		gs = make([]*groupInfo, r.layout.Count(k))
		r.groups[k] = gs
	}
	if g := gs[index]; g != nil {
		return g
	}
	g := &groupInfo{Group: r.layout.Group(k, index)}
	g.name = g.Group.Name()
	g.channels = r.cfg.Channels
	if g.channels == 0 {
		g.channels = r.layout.Channels(g.Group)
	}
	n := len(g.Ranks)
	for c := 0; c < g.channels; c++ {
		ring := r.layout.Ring(g.Group, c)
		pos := make([]int, n)
		for p, m := range ring {
			pos[m] = p
		}
		g.ring = append(g.ring, ring)
		g.pos = append(g.pos, pos)
	}
	gs[index] = g
	return g
}

// issue makes rank i join the collective of op, creating it on first use,
// and sends what it can; slot says its part holds the rank's queue.
func (r *Run) issue(i int, op *progOp, now engine.Time, slot bool) {
	l := &r.w.Lines[op.line]
	c := l.Stage(op.phase).Comm
	key := r.keyOf(i, op)
	_, m := r.layout.Index(c.Group, i)
	gi := int(key.index)
	in := r.insts[key]
	if in == nil {
		g := r.group(c.Group, gi)
		n := len(g.Ranks)
		execOp := c.Op
		if execOp == OpAllReduceAllToAll {
			execOp = OpAllReduce
		}
		in = &inst{key: key, g: g, op: execOp, bytes: r.bytes[op.line][op.phase], steps: Steps(execOp, n),
			blocking: op.blocking, members: make([]member, n), issued: now, start: engine.Never, slot: slot}
		in.channels = g.channels
		if execOp == OpAllToAll {
			// SimAI's all-to-all is one channel (MockNcclGroup::
			// genAlltoAllFlowModels) unless Channels forces more.
			in.channels = max(r.cfg.Channels, 1)
			in.expect = (n - 1) * in.channels
		} else {
			in.expect = in.steps * in.channels
		}
		if execOp != OpAllToAll {
			// A member may receive before it issues, so every member's
			// ring state exists from the start.
			ch := in.channels
			next := make([]int, n*ch)
			got := make([]bool, n*ch*in.steps)
			for j := range in.members {
				in.members[j].nextSend = next[j*ch : (j+1)*ch]
				in.members[j].gotStep = got[j*ch*in.steps : (j+1)*ch*in.steps]
			}
		}
		in.tagPrefix = "i" + strconv.Itoa(int(key.pass)) + "/L" + strconv.Itoa(op.line) + "/" + l.Name + "." + op.phase.String() + "/" + g.name + "/s"
		r.insts[key] = in
	}
	mb := &in.members[m]
	if mb.issued {
		panic(fmt.Sprintf("simai: rank %d issued %s twice", i, in.tagPrefix))
	}
	mb.issued = true
	mb.issuedAt = now
	n := len(in.members)
	if in.op == OpAllToAll {
		for ch := 0; ch < in.channels; ch++ {
			for j := 0; j < n; j++ {
				if j != m {
					r.send(in, m, j, ch, 0, flowBytes(in.op, in.bytes, n, in.channels, ch, j), now)
				}
			}
		}
	} else {
		for ch := 0; ch < in.channels; ch++ {
			r.trySend(in, m, ch, now)
		}
	}
}

// trySend sends every ring step member m may send on channel ch: step k
// once m has issued the collective and received step k-1.
func (r *Run) trySend(in *inst, m, ch int, now engine.Time) {
	mb := &in.members[m]
	if !mb.issued {
		return
	}
	g := in.g
	n := len(in.members)
	p := g.pos[ch][m]
	succ := g.ring[ch][(p+1)%n]
	for k := mb.nextSend[ch]; k < in.steps; k++ {
		if k > 0 && !mb.gotStep[ch*in.steps+k-1] {
			break
		}
		mb.nextSend[ch] = k + 1
		r.send(in, m, succ, ch, k, flowBytes(in.op, in.bytes, n, in.channels, ch, ringChunk(in.op, n, p, k)), now)
	}
}

// send posts (or carries over NVLink) one flow from member from to member to.
func (r *Run) send(in *inst, from, to, ch, step int, bytes int64, now engine.Time) {
	id := r.nextID
	r.nextID++
	src, dst := in.g.Ranks[from], in.g.Ranks[to]
	hs, hd := r.layout.Host(src), r.layout.Host(dst)
	at := now + r.cfg.SendLatency
	if r.cfg.SendLatencyTable {
		at = now + SendLatencyFor(r.cfg.Protocol, hs == hd)
	}
	in.start = min(in.start, at)
	ref := flowRef{in: in, from: from, to: to, ch: ch, step: step, intraHost: hs == hd}
	r.flows[id] = ref
	if ref.intraHost {
		t0 := max(at, r.nvFree[src])
		end := t0 + r.cfg.NVLinkRate.TxTime(bytes)
		r.nvFree[src] = end
		r.nvlinked++
		r.wake(end, id<<2|tokNVLink)
		return
	}
	tag := in.tagPrefix + strconv.Itoa(step)
	if in.channels > 1 {
		tag += "c" + strconv.Itoa(ch)
	}
	r.posted++
	r.out = append(r.out, Action{Kind: Post, At: at, Transfer: Transfer{ID: id, Src: hs, Dst: hd,
		SrcGPU: src, DstGPU: dst, Bytes: bytes, Tag: tag}})
}

// Sent reports that the last byte of network transfer id has been
// serialised onto its sender's link at now: SimAI's send_finish
// (network_frontend/ns3/entry.h), which releases the sender's side of the
// flow. The receiver's side waits for Done. A driver that never calls Sent
// releases both at Done. The returned slice is valid until the next call.
func (r *Run) Sent(now engine.Time, id int) []Action {
	ref, ok := r.flows[id]
	if !ok || ref.intraHost || ref.sent {
		panic(fmt.Sprintf("simai: Sent for unknown or sent transfer %d", id))
	}
	r.out = r.out[:0]
	ref.sent = true
	r.flows[id] = ref
	in := ref.in
	in.end = max(in.end, now)
	in.members[ref.from].sendsDone++
	r.checkMember(in, ref.from, now)
	return r.out
}

// flowDone is SimAI's qp_finish: the last ACK reached the sender, so the
// receiver has the data (and the sender's side ends too if Sent did not
// come first).
func (r *Run) flowDone(id int, ref flowRef, now engine.Time) {
	delete(r.flows, id)
	in := ref.in
	in.end = max(in.end, now)
	if !ref.sent {
		in.members[ref.from].sendsDone++
	}
	to := &in.members[ref.to]
	to.recv++
	if in.op != OpAllToAll {
		to.gotStep[ref.ch*in.steps+ref.step] = true
		r.trySend(in, ref.to, ref.ch, now)
	}
	r.checkMember(in, ref.from, now)
	r.checkMember(in, ref.to, now)
}

// checkMember finishes member m's part once it has sent and received
// every flow.
func (r *Run) checkMember(in *inst, m int, now engine.Time) {
	mb := &in.members[m]
	if mb.done || !mb.issued || mb.recv < in.expect || mb.sendsDone < in.expect {
		return
	}
	mb.done = true
	mb.doneAt = now
	in.doneCount++
	if in.doneCount == len(in.members) {
		l := &r.w.Lines[in.key.line]
		r.colls = append(r.colls, CollectiveStat{Iteration: int(in.key.pass), Name: l.Name + "." + in.key.phase.String(),
			Line: int(in.key.line), Phase: in.key.phase, Op: l.Stage(in.key.phase).Comm.Op, Group: in.g.name,
			Bytes: in.bytes, Issued: in.issued, Start: in.start, End: in.end})
		delete(r.insts, in.key)
	}
	rank := in.g.Ranks[m]
	if in.slot {
		r.release(rank, dimOf(in.key.phase), now)
	}
	upd := r.w.Lines[in.key.line].Update
	if in.blocking {
		rs := &r.ranks[rank]
		if !rs.blocked {
			panic(fmt.Sprintf("simai: rank %d finished %s it was not waiting for", rank, in.tagPrefix))
		}
		rs.blocked = false
		if upd > 0 {
			r.wake(now+upd, rank<<2|tokRank)
		} else {
			r.advance(rank, now)
		}
		return
	}
	if upd > 0 {
		r.wake(now+upd, (rank*len(r.w.Lines)+int(in.key.line))<<2|tokWG)
	} else {
		r.wgDone(rank, int(in.key.line), now)
	}
}
