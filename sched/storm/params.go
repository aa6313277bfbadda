package storm

import (
	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// Variant selects one of the three STORM schedulers (docs/model.md §6.7).
type Variant string

// The variants, named as in scenarios (nic.scheduler).
const (
	Full       Variant = "storm"        // dynamic tags, first-BDP rule, receiver grants, urgency order
	SenderOnly Variant = "storm-sender" // dynamic tags and first-BDP rule, no grants
	Software   Variant = "storm-sw"     // tags decided by host software at post time, round robin
)

// Setting values.
const (
	GrantRemainder = "remainder" // a grant covers the whole rest of the transaction
	GrantChunk     = "chunk"     // grants of GrantChunkBytes, kept one chunk ahead

	GroupAuto     = "auto"     // same nonzero TxnID, else (both 0) posted within GroupWindow
	GroupID       = "id"       // same nonzero TxnID only
	GroupTemporal = "temporal" // posted within GroupWindow, ids ignored
	GroupNone     = "none"     // every message is its own transaction

	OrderUrgency = "urgency" // backlog desc, remaining asc, then least recently served
	OrderRR      = "rr"      // least recently served (round robin)

	GuardStall   = "stall"   // wait until the other class's packets are acknowledged
	GuardInherit = "inherit" // keep sending in the old class until then
	GuardOff     = "off"     // no guard (ablation: reordering, NACKs)
)

// Params are every STORM setting of docs/model.md §6.7 ("not published"
// unless noted). Sizes are bytes, times picoseconds (engine.Time).
type Params struct {
	// Variant is set by the constructor of the defaults and follows the
	// scheduler's name; it is not a YAML field.
	Variant Variant `yaml:"-"`

	// BDPBytes is "1 BDP" of the first-BDP rule and the small/large cut;
	// 0 = the topology's maxBdp (Env.BDP).
	BDPBytes int64 `yaml:"bdp_bytes"`
	// Priorities is the number of wire classes used, 1..3 (published
	// default 3): 3 = P_small, P_backlog, P_low; 2 = P_backlog merged into
	// P_small; 1 = everything in P_low.
	Priorities int `yaml:"priorities"`
	// SlotsBacklog and SlotsOther are the receiver's active-set sizes for
	// candidates with and without backlog (published default 1 and 1).
	SlotsBacklog int `yaml:"slots_backlog"`
	SlotsOther   int `yaml:"slots_other"`
	// GrantGranularity is "remainder" (one grant for the whole rest) or
	// "chunk" (GrantChunkBytes at a time).
	GrantGranularity string `yaml:"grant_granularity"`
	// GrantChunkBytes is the chunk of "chunk" grants; 0 = 1 BDP.
	GrantChunkBytes int64 `yaml:"grant_chunk_bytes"`
	// Preempt keeps the active set ranked: a more urgent candidate takes
	// the slot of the least urgent occupant of its kind, whose grant is
	// revoked at the bytes received.
	Preempt bool `yaml:"preempt"`
	// BacklogUpdates makes a sender tell the receiver, in a control
	// packet of BacklogUpdateBytes, when the backlog behind an announced
	// transaction that still has bytes to send changes; at most one per QP
	// per BacklogUpdateGap (0 = the topology's base RTT), later changes
	// within the gap coalesce into one at its end.
	BacklogUpdates     bool        `yaml:"backlog_updates"`
	BacklogUpdateGap   engine.Time `yaml:"backlog_update_gap"`
	BacklogUpdateBytes int64       `yaml:"backlog_update_bytes"`
	// ReleaseAfterRTTs releases an occupant of which no byte arrived for
	// that many base RTTs while a candidate waits for its slot: its grant
	// is revoked at the bytes received and it may be granted again only
	// after as long again. 0 never releases.
	ReleaseAfterRTTs float64 `yaml:"release_after_rtts"`
	// Lend lets a slot with no candidate of its kind go to the best
	// candidate of the other kind (granted in that candidate's class).
	Lend bool `yaml:"lend"`
	// SmallInActiveSet makes P_small transactions occupy receiver slots
	// (they are never gated; they only delay grants to others).
	SmallInActiveSet bool `yaml:"small_in_active_set"`
	// Grouping is how messages form transactions: "auto", "id",
	// "temporal" or "none" (published: explicit id, else temporal).
	Grouping string `yaml:"grouping"`
	// GroupWindow is the temporal grouping window between consecutive
	// posts on one QP.
	GroupWindow engine.Time `yaml:"group_window"`
	// WithinClassOrder is "urgency" or "rr".
	WithinClassOrder string `yaml:"within_class_order"`
	// Guard is the in-order promotion guard: "stall", "inherit" or "off".
	Guard string `yaml:"guard"`
	// StormHeaderBytes is added to every packet that announces a
	// transaction to its receiver (storm only).
	StormHeaderBytes int64 `yaml:"storm_header_bytes"`
	// GrantBytes and GrantClass are the grant packet's size and class.
	GrantBytes int64 `yaml:"grant_bytes"`
	GrantClass int   `yaml:"grant_class"`
	// SWDecisionDelay is host software's latency per tagging decision:
	// a message reaches the NIC this long after it is posted (storm-sw).
	SWDecisionDelay engine.Time `yaml:"sw_decision_delay"`
	// PSmall, PBacklog and PLow are the wire classes, highest first
	// (dcsim default 1, 2, 3).
	PSmall   int `yaml:"p_small"`
	PBacklog int `yaml:"p_backlog"`
	PLow     int `yaml:"p_low"`
}

// DefaultParams are the defaults of the full scheduler, "storm".
func DefaultParams() Params { return DefaultParamsFor(Full) }

// DefaultParamsFor returns variant v's defaults (docs/model.md §6.7 and the
// receiver's gap-fills argued in the package doc): the same for all three
// except WithinClassOrder, "rr" for storm-sw. The receiver settings
// (Preempt, BacklogUpdates, ReleaseAfterRTTs, Lend, the slots) matter to
// storm only.
func DefaultParamsFor(v Variant) Params {
	p := Params{
		Variant:            v,
		BDPBytes:           0,
		Priorities:         3,
		SlotsBacklog:       1,
		SlotsOther:         1,
		GrantGranularity:   GrantRemainder,
		GrantChunkBytes:    0,
		Preempt:            true,
		BacklogUpdates:     true,
		BacklogUpdateGap:   0,
		BacklogUpdateBytes: 60,
		ReleaseAfterRTTs:   2,
		Lend:               false,
		SmallInActiveSet:   false,
		Grouping:           GroupAuto,
		GroupWindow:        engine.Microsecond,
		WithinClassOrder:   OrderUrgency,
		Guard:              GuardStall,
		StormHeaderBytes:   0,
		GrantBytes:         60,
		GrantClass:         0,
		SWDecisionDelay:    0,
		PSmall:             1,
		PBacklog:           2,
		PLow:               3,
	}
	if c, ok := compositions[v]; ok {
		p.WithinClassOrder = c.order
	}
	return p
}

// Env is what the scenario knows that the settings do not say.
type Env struct {
	// BDP is the topology's maxBdp in bytes, used when BDPBytes is 0; when
	// it is 0 too, the NIC's cc.Env.BDP is used.
	BDP int64
}

// Literal turns off the receiver's gap-fills (Preempt, BacklogUpdates,
// ReleaseAfterRTTs, Lend): the active set exactly as docs/model.md §6.7
// reconstructs the published text, for ablations (nic.storm: {preempt:
// false, backlog_updates: false, release_after_rtts: 0}).
func (p Params) Literal() Params {
	p.Preempt, p.BacklogUpdates, p.ReleaseAfterRTTs, p.Lend = false, false, 0, false
	return p
}

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// Validate returns a *cc.ParamError naming the first bad field (by its
// YAML key).
func (p Params) Validate() error {
	name := string(p.Variant)
	if name == "" {
		name = string(Full)
	}
	bad := func(field, format string, args ...any) error { return cc.ParamErrorf(name, field, format, args...) }
	switch {
	case !oneOf(name, string(Full), string(SenderOnly), string(Software)):
		return bad("variant", "unknown variant %q", p.Variant)
	case p.BDPBytes < 0:
		return bad("bdp_bytes", "must be >= 0 (0 = topology maxBdp), got %d", p.BDPBytes)
	case p.Priorities < 1 || p.Priorities > 3:
		return bad("priorities", "must be 1, 2 or 3, got %d", p.Priorities)
	case p.SlotsBacklog < 1:
		return bad("slots_backlog", "must be >= 1 (candidates with backlog wait for this slot), got %d", p.SlotsBacklog)
	case p.SlotsOther < 1:
		return bad("slots_other", "must be >= 1 (candidates without backlog wait for this slot), got %d", p.SlotsOther)
	case !oneOf(p.GrantGranularity, GrantRemainder, GrantChunk):
		return bad("grant_granularity", "must be %q or %q, got %q", GrantRemainder, GrantChunk, p.GrantGranularity)
	case p.GrantChunkBytes < 0:
		return bad("grant_chunk_bytes", "must be >= 0 (0 = 1 BDP), got %d", p.GrantChunkBytes)
	case !oneOf(p.Grouping, GroupAuto, GroupID, GroupTemporal, GroupNone):
		return bad("grouping", "must be %q, %q, %q or %q, got %q", GroupAuto, GroupID, GroupTemporal, GroupNone, p.Grouping)
	case p.GroupWindow < 0:
		return bad("group_window", "must be >= 0, got %v", p.GroupWindow)
	case !oneOf(p.WithinClassOrder, OrderUrgency, OrderRR):
		return bad("within_class_order", "must be %q or %q, got %q", OrderUrgency, OrderRR, p.WithinClassOrder)
	case !oneOf(p.Guard, GuardStall, GuardInherit, GuardOff):
		return bad("guard", "must be %q, %q or %q, got %q", GuardStall, GuardInherit, GuardOff, p.Guard)
	case p.BacklogUpdateGap < 0:
		return bad("backlog_update_gap", "must be >= 0 (0 = one base RTT), got %v", p.BacklogUpdateGap)
	case p.BacklogUpdateBytes < 1 || p.BacklogUpdateBytes > fabric.MaxFrameBytes:
		return bad("backlog_update_bytes", "must be 1..%d, got %d", fabric.MaxFrameBytes, p.BacklogUpdateBytes)
	case !(p.ReleaseAfterRTTs >= 0 && p.ReleaseAfterRTTs <= 1e6):
		return bad("release_after_rtts", "must be 0..1e6 (0 = never release), got %v", p.ReleaseAfterRTTs)
	case p.StormHeaderBytes < 0 || p.StormHeaderBytes > 1024:
		return bad("storm_header_bytes", "must be 0..1024, got %d", p.StormHeaderBytes)
	case p.GrantBytes < 1 || p.GrantBytes > fabric.MaxFrameBytes:
		return bad("grant_bytes", "must be 1..%d, got %d", fabric.MaxFrameBytes, p.GrantBytes)
	case p.GrantClass < 0 || p.GrantClass >= fabric.NumClasses:
		return bad("grant_class", "must be 0..%d, got %d", fabric.NumClasses-1, p.GrantClass)
	case p.SWDecisionDelay < 0:
		return bad("sw_decision_delay", "must be >= 0, got %v", p.SWDecisionDelay)
	}
	for _, c := range []struct {
		field string
		v     int
	}{{"p_small", p.PSmall}, {"p_backlog", p.PBacklog}, {"p_low", p.PLow}} {
		if c.v < 1 || c.v >= fabric.NumClasses {
			return bad(c.field, "must be a data class 1..%d, got %d", fabric.NumClasses-1, c.v)
		}
	}
	if p.PBacklog < p.PSmall {
		return bad("p_backlog", "must not outrank p_small (%d < %d): lower numbers are higher priorities", p.PBacklog, p.PSmall)
	}
	if p.PLow < p.PBacklog {
		return bad("p_low", "must not outrank p_backlog (%d < %d): lower numbers are higher priorities", p.PLow, p.PBacklog)
	}
	return nil
}

// wireClasses are the classes used after Priorities collapses them.
func (p Params) wireClasses() (small, backlog, low uint8) {
	switch p.Priorities {
	case 1:
		return uint8(p.PLow), uint8(p.PLow), uint8(p.PLow)
	case 2:
		return uint8(p.PSmall), uint8(p.PSmall), uint8(p.PLow)
	}
	return uint8(p.PSmall), uint8(p.PBacklog), uint8(p.PLow)
}
