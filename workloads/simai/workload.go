package simai

import (
	"fmt"
	"strings"

	"github.com/dcsim/dcsim/engine"
)

// Policy is the parallelism policy named by the first token of a workload
// file.
type Policy string

// Policies this package reads. Other Astra-sim policies (DATA, MODEL,
// HYBRID_DLRM, ...) are rejected by Parse.
const (
	// PolicyTransformer is HYBRID_TRANSFORMER_FWD_IN_BCKWD, the policy of
	// every LLM training workload AICB writes.
	PolicyTransformer Policy = "HYBRID_TRANSFORMER_FWD_IN_BCKWD"
	// PolicyTransformerPlain is HYBRID_TRANSFORMER. Without activation
	// checkpoints (which SimAI never enables, see doc.go) it executes
	// exactly like PolicyTransformer.
	PolicyTransformerPlain Policy = "HYBRID_TRANSFORMER"
	// PolicyMicro is MICRO, AICB's collective micro-tests: only the
	// weight-gradient column is used and its collectives span every GPU.
	PolicyMicro Policy = "MICRO"
)

// Op is a collective operation.
type Op uint8

// Collective operations. OpNone means "no collective"; it is also what
// unknown tokens such as BROADCAST become.
const (
	OpNone Op = iota
	OpAllReduce
	OpAllGather
	OpReduceScatter
	OpAllToAll
	// OpAllReduceAllToAll is parsed and written back, and executed as a
	// ring all-reduce (SimAI's token decoding turns it into an all-reduce).
	OpAllReduceAllToAll
)

var opNames = [...]string{"none", "allreduce", "allgather", "reducescatter", "alltoall", "allreducealltoall"}
var opTokens = [...]string{"NONE", "ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL", "ALLREDUCEALLTOALL"}

// String is the lower-case name used in outputs: "allreduce", "allgather",
// "reducescatter", "alltoall", "allreducealltoall" or "none".
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Token is the upper-case file token without a group suffix, e.g. "ALLREDUCE".
func (o Op) Token() string {
	if int(o) < len(opTokens) {
		return opTokens[o]
	}
	return fmt.Sprintf("OP%d", uint8(o))
}

// ParseOp reads an operation name as written in outputs, in a file, or in
// common spellings: "allreduce", "all-reduce", "all_reduce", "ALLREDUCE",
// "reduce-scatter", "all-gather", "all-to-all", "none". Case and the
// separators '-' and '_' are ignored.
func ParseOp(s string) (Op, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.NewReplacer("-", "", "_", "", " ", "").Replace(k)
	for i, n := range opNames {
		if k == n {
			return Op(i), nil
		}
	}
	return OpNone, fmt.Errorf("unknown collective %q (valid: allreduce, allgather, reducescatter, alltoall, allreducealltoall, none)", s)
}

// GroupKind names the communicator a collective runs on.
type GroupKind uint8

// Communicators. GroupNone goes with OpNone.
const (
	GroupNone GroupKind = iota
	// GroupTP is the tensor-parallel group: TP consecutive ranks.
	GroupTP
	// GroupDP is the data-parallel group: ranks with the same TP index and
	// pipeline stage.
	GroupDP
	// GroupEP is the expert-parallel group (token suffix _EP).
	GroupEP
	// GroupDPEP is the data-parallel group among expert replicas (_DP_EP).
	GroupDPEP
	// GroupWorld is every GPU; MICRO workloads use it.
	GroupWorld
)

var groupNames = [...]string{"none", "tp", "dp", "ep", "dpep", "world"}

// String is "tp", "dp", "ep", "dpep", "world" or "none".
func (g GroupKind) String() string {
	if int(g) < len(groupNames) {
		return groupNames[g]
	}
	return fmt.Sprintf("group(%d)", uint8(g))
}

// Phase is one of a line's three columns.
type Phase uint8

// The phases of a line, in file order.
const (
	Fwd Phase = iota // forward
	IG               // input gradient (backward)
	WG               // weight gradient
)

var phaseNames = [...]string{"fwd", "ig", "wg"}

// String is "fwd", "ig" or "wg".
func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// Comm is the collective of one phase of a line.
type Comm struct {
	Op    Op
	Group GroupKind
	// Bytes is the size as written in the file: the full buffer for
	// all-reduce, all-gather and reduce-scatter, the per-rank send buffer
	// for all-to-all. The forward rule of SimAI (sizes in (0, 4096) run as
	// 4096) is applied at execution time, see Line.CommBytes.
	Bytes int64
	// Unknown holds a token that names no collective this package knows
	// (e.g. "BROADCAST"); then Op is OpNone. It is kept so that Write
	// reproduces the file.
	Unknown string
}

// Token is the file token of c in phase p, e.g. "ALLREDUCE",
// "ALLTOALL_EP", "REDUCESCATTER" (DP in the wg column) or "NONE".
func (c Comm) Token(p Phase) string {
	if c.Op == OpNone {
		if c.Unknown != "" {
			return c.Unknown
		}
		return "NONE"
	}
	switch c.Group {
	case GroupEP:
		return c.Op.Token() + "_EP"
	case GroupDPEP:
		return c.Op.Token() + "_DP_EP"
	}
	return c.Op.Token()
}

// Active reports whether c names a collective with a non-zero size.
func (c Comm) Active() bool { return c.Op != OpNone && c.Bytes > 0 }

// Stage is one phase of a line: a compute delay, then a collective.
type Stage struct {
	Compute engine.Time // whole nanoseconds when read from or written to a file
	Comm    Comm
}

// Line is one layer line of a workload file.
type Line struct {
	Name string // informative only; a single token
	Dep  int    // the unused dependency field, always -1 in practice
	Fwd  Stage
	IG   Stage
	WG   Stage
	// Update is SimAI's delay after each collective of this line completes.
	Update engine.Time
}

// Stage returns the stage of phase p.
func (l *Line) Stage(p Phase) *Stage {
	switch p {
	case Fwd:
		return &l.Fwd
	case IG:
		return &l.IG
	case WG:
		return &l.WG
	}
	panic(fmt.Sprintf("simai: bad phase %d", p))
}

// MinForwardBytes is SimAI's minimum forward collective size: a forward
// size in (0, MinForwardBytes) runs as MinForwardBytes.
const MinForwardBytes = 4096

// CommBytes is the size the collective of phase p moves when executed:
// Bytes, except that a forward size in (0, 4096) is raised to 4096.
func (l *Line) CommBytes(p Phase) int64 {
	b := l.Stage(p).Comm.Bytes
	if p == Fwd && b > 0 && b < MinForwardBytes {
		return MinForwardBytes
	}
	return b
}

// Workload is a parsed (or generated) SimAI workload: the header and the
// layer lines. Every GPU runs the same lines over its own communicators.
type Workload struct {
	Name   string // file name or generator description; not written
	Policy Policy
	// TP is model_parallel_NPU_group, the tensor-parallel group size.
	TP int
	// EP, PP, VPP and GA are the expert-parallel size, pipeline stages,
	// AICB's layers per stage, and gradient-accumulation steps; 1 when the
	// header does not give them.
	EP, PP, VPP, GA int
	// AllGPUs is the world size from the header; 0 when absent.
	AllGPUs int
	// PPComm is the pipeline point-to-point transfer size in bytes (0 when
	// absent). Pipeline parallelism is not executed (see doc.go).
	PPComm int64
	// Checkpoints and CheckpointInitiates are the activation-recompute
	// markers (line indices). They are kept but not executed.
	Checkpoints         []int
	CheckpointInitiates []int
	// FullHeader records whether the header carried the keys beyond
	// model_parallel_NPU_group (ep, pp, vpp, ga, all_gpus); Write writes
	// the full header when it is set or when any of them differs from its
	// default.
	FullHeader bool
	// ExtraHeader holds unknown "key:" value pairs of the header, in order
	// (key, value, key, value, ...). They do not affect execution.
	ExtraHeader []string
	Lines       []Line
}

// defaults fills the header fields a file may omit.
func (w *Workload) defaults() {
	for _, p := range []*int{&w.EP, &w.PP, &w.VPP, &w.GA} {
		if *p == 0 {
			*p = 1
		}
	}
}

// Validate checks that w can be written and executed: sizes, times and
// header values in range, names that are single tokens, collectives whose
// communicator fits their column.
func (w *Workload) Validate() error {
	switch w.Policy {
	case PolicyTransformer, PolicyTransformerPlain, PolicyMicro:
	default:
		return fmt.Errorf("policy: unsupported %q (supported: %s, %s, %s)", w.Policy, PolicyTransformer, PolicyTransformerPlain, PolicyMicro)
	}
	if w.Policy != PolicyMicro {
		for _, f := range []struct {
			name string
			v    int
		}{{"model_parallel_NPU_group", w.TP}, {"ep", w.EP}, {"pp", w.PP}, {"vpp", w.VPP}, {"ga", w.GA}} {
			if f.v < 1 {
				return fmt.Errorf("%s: must be >= 1, got %d", f.name, f.v)
			}
		}
	}
	if w.AllGPUs < 0 {
		return fmt.Errorf("all_gpus: must be >= 0, got %d", w.AllGPUs)
	}
	if w.PPComm < 0 {
		return fmt.Errorf("pp_comm: must be >= 0, got %d", w.PPComm)
	}
	for _, list := range []struct {
		name string
		ids  []int
	}{{"checkpoints", w.Checkpoints}, {"checkpoint_initiates", w.CheckpointInitiates}} {
		for _, id := range list.ids {
			if id < 0 || id >= len(w.Lines) {
				return fmt.Errorf("%s: line %d out of range [0, %d)", list.name, id, len(w.Lines))
			}
		}
	}
	if len(w.ExtraHeader)%2 != 0 {
		return fmt.Errorf("header: extra pairs: odd length %d", len(w.ExtraHeader))
	}
	for i := 0; i < len(w.ExtraHeader); i += 2 {
		k, v := w.ExtraHeader[i], w.ExtraHeader[i+1]
		if !isToken(k) || !strings.HasSuffix(k, ":") || len(k) == 1 || knownHeaderKey(k) {
			return fmt.Errorf("header: %q is not an unknown key ending in ':'", k)
		}
		if !isToken(v) || strings.HasSuffix(v, ":") {
			return fmt.Errorf("%s value %q is not one token", k, v)
		}
	}
	for i := range w.Lines {
		if err := w.validateLine(&w.Lines[i]); err != nil {
			return fmt.Errorf("line %d (%s): %w", i, w.Lines[i].Name, err)
		}
	}
	return nil
}

func (w *Workload) validateLine(l *Line) error {
	if !isToken(l.Name) {
		return fmt.Errorf("name: must be one non-empty token, got %q", l.Name)
	}
	for p := Fwd; p <= WG; p++ {
		s := l.Stage(p)
		if s.Compute < 0 || s.Compute%engine.Nanosecond != 0 {
			return fmt.Errorf("%s_ns: must be whole non-negative nanoseconds, got %v", p, s.Compute)
		}
		c := s.Comm
		if c.Bytes < 0 {
			return fmt.Errorf("%s_bytes: must be >= 0, got %d", p, c.Bytes)
		}
		if c.Op > OpAllReduceAllToAll {
			return fmt.Errorf("%s_coll: unknown op %d", p, c.Op)
		}
		if c.Op == OpNone {
			if c.Group != GroupNone {
				return fmt.Errorf("%s_coll: no collective but group %v", p, c.Group)
			}
			if c.Unknown != "" {
				if _, _, ok := lookupToken(c.Unknown); ok || !isToken(c.Unknown) {
					return fmt.Errorf("%s_coll: %q is not an unknown token", p, c.Unknown)
				}
			}
			continue
		}
		if c.Unknown != "" {
			return fmt.Errorf("%s_coll: op %v with unknown token %q", p, c.Op, c.Unknown)
		}
		if want := defaultGroup(w.Policy, p); c.Group != want && c.Group != GroupEP && c.Group != GroupDPEP {
			return fmt.Errorf("%s_coll: group %v cannot be written in the %s column (want %v, ep or dpep)", p, c.Group, p, want)
		}
	}
	if l.Update < 0 || l.Update%engine.Nanosecond != 0 {
		return fmt.Errorf("update_ns: must be whole non-negative nanoseconds, got %v", l.Update)
	}
	return nil
}

// isToken reports whether s is one non-empty whitespace-free token, i.e.
// survives strings.Fields unchanged.
func isToken(s string) bool {
	f := strings.Fields(s)
	return len(f) == 1 && f[0] == s
}

func knownHeaderKey(k string) bool {
	switch k {
	case "model_parallel_NPU_group:", "ep:", "pp:", "vpp:", "ga:", "all_gpus:", "checkpoints:", "checkpoint_initiates:", "pp_comm:", "pp_comm":
		return true
	}
	return false
}

// defaultGroup is the communicator of an unsuffixed token in column p.
func defaultGroup(pol Policy, p Phase) GroupKind {
	if p != WG {
		return GroupTP
	}
	if pol == PolicyMicro {
		return GroupWorld
	}
	return GroupDP
}

// Compute is the total compute of one pass: the sum of the forward,
// input-gradient and weight-gradient compute times of every line.
func (w *Workload) Compute() engine.Time {
	var t engine.Time
	for i := range w.Lines {
		l := &w.Lines[i]
		t += l.Fwd.Compute + l.IG.Compute + l.WG.Compute
	}
	return t
}
