package scenario

import (
	"math"

	"github.com/dcsim/dcsim/engine"
)

// Scenario is one simulation, fully described. doc.go documents every
// field with its unit and default; Default returns the defaults.
type Scenario struct {
	Name           string     `yaml:"name"`
	Seed           uint64     `yaml:"seed"`
	Compat         string     `yaml:"compat"`
	Duration       Duration   `yaml:"duration"`
	DrainLimit     Duration   `yaml:"drain_limit"`
	Measure        Measure    `yaml:"measure"`
	Topology       Topology   `yaml:"topology"`
	Switch         Switch     `yaml:"switch"`
	NIC            NIC        `yaml:"nic"`
	CC             CC         `yaml:"cc"`
	Workload       Workload   `yaml:"workload"`
	ExtraWorkloads []Workload `yaml:"extra_workloads"`
	Trace          Trace      `yaml:"trace"`
	// Parallel, when given, runs the scenario on the parallel engine
	// (docs/parallel.md): its rows depend on the cut (Parallel.Units), not
	// on the number of threads, so the cut is part of the scenario (its
	// YAML and hash) and the thread count is not. Absent: the sequential
	// engine, and nothing printed, so sequential scenarios hash as before.
	Parallel *Parallel `yaml:"parallel,omitempty"`
	// Warnings are what Parse accepted but thinks a mistake, one line
	// each (a sub-map of a scheduler or algorithm that is not the chosen
	// one, which is ignored). dcsim run, show and validate print them.
	Warnings []string `yaml:"-"`

	// cat is the catalog the scenario was made with, which names its
	// plugins and workload kinds.
	cat *Catalog
}

// Classes is the number of traffic classes (priorities) of a link, 0 to
// Classes-1, class 0 the control traffic's; fabric.NumClasses, which
// wiring's TestSchemaConstants checks.
const Classes = 8

// Reference-compatibility profiles (Scenario.Compat).
const (
	CompatNone    = "none"
	CompatHPCCNS3 = "hpcc-ns3"
)

var compatProfiles = []string{CompatNone, CompatHPCCNS3}

// Measure selects the flows that summaries cover.
type Measure struct {
	Warmup Duration `yaml:"warmup"`
}

// Topology kinds.
const (
	SpineLeaf = "spine-leaf"
	Star      = "star"
	Dumbbell  = "dumbbell"
	FatTree   = "fat-tree"
	TopoFile  = "file"
)

var topologyKinds = []string{SpineLeaf, Star, Dumbbell, FatTree, TopoFile}

// Topology is the network: its shape, link rates and delays.
type Topology struct {
	Kind           string   `yaml:"kind"`
	Leaves         int      `yaml:"leaves"`
	HostsPerLeaf   int      `yaml:"hosts_per_leaf"`
	Spines         int      `yaml:"spines"`
	Hosts          int      `yaml:"hosts"`
	HostsPerSide   int      `yaml:"hosts_per_side"`
	K              int      `yaml:"k"`
	File           string   `yaml:"file"`
	HostLink       Rate     `yaml:"host_link"`
	FabricLink     Rate     `yaml:"fabric_link"`
	BottleneckLink Rate     `yaml:"bottleneck_link"`
	LinkDelay      Duration `yaml:"link_delay"`
}

// HostCount is the number of hosts the topology has; ok is false for a
// topology file, whose size is known only once the file is read.
func (t *Topology) HostCount() (n int, ok bool) {
	switch t.Kind {
	case SpineLeaf:
		return t.Leaves * t.HostsPerLeaf, true
	case Star:
		return t.Hosts, true
	case Dumbbell:
		return 2 * t.HostsPerSide, true
	case FatTree:
		return t.K * t.K * t.K / 4, true
	}
	return 0, false
}

// Switch queue disciplines (docs/model.md §3.1).
const (
	DisciplineRR     = "rr"
	DisciplineStrict = "strict"
	DisciplineWRR    = "wrr"
)

var disciplines = []string{DisciplineRR, DisciplineStrict, DisciplineWRR}

// INT modes.
const (
	INTAuto = "auto"
	INTOn   = "on"
	INTOff  = "off"
)

var intModes = []string{INTAuto, INTOn, INTOff}

// PFC headroom rules (Switch.PFCHeadroom): auto is the larger of sized
// and reference (fabric.HeadroomCovering), or reference under compat:
// hpcc-ns3.
const (
	HeadroomAuto      = "auto"
	HeadroomSized     = "sized"
	HeadroomReference = "reference"
)

var headroomRules = []string{HeadroomAuto, HeadroomSized, HeadroomReference}

// Switch is the configuration shared by every switch.
type Switch struct {
	Buffer          Size         `yaml:"buffer"`
	PFC             bool         `yaml:"pfc"`
	PFCPauseExpiry  bool         `yaml:"pfc_pause_expiry"`
	PFCPauseTime    Duration     `yaml:"pfc_pause_time"`
	PFCReserve      Size         `yaml:"pfc_reserve"`
	PFCResumeOffset Size         `yaml:"pfc_resume_offset"`
	PFCHeadroom     string       `yaml:"pfc_headroom"`
	PFCResponseTime Duration     `yaml:"pfc_response_time"`
	Discipline      string       `yaml:"discipline"`
	WRRWeights      [Classes]int `yaml:"wrr_weights"`
	LossyQueueLimit Size         `yaml:"lossy_queue_limit"`
	ECN             ECN          `yaml:"ecn"`
	INT             string       `yaml:"int"`
	Routing         *Routing     `yaml:"routing,omitempty"`
	Isolation       *Isolation   `yaml:"isolation,omitempty"`
	Queueing        *Queueing    `yaml:"queueing,omitempty"`
	Credit          *Credit      `yaml:"credit,omitempty"`
}

// ECN is RED marking at dequeue (docs/model.md §3.4). KMin and KMax are
// given for a port of rate BaseRate and scale linearly with the port rate.
type ECN struct {
	Enabled  bool    `yaml:"enabled"`
	BaseRate Rate    `yaml:"base_rate"`
	KMin     Size    `yaml:"kmin"`
	KMax     Size    `yaml:"kmax"`
	PMax     float64 `yaml:"pmax"`
}

// Thresholds returns kmin and kmax for a port of rate r: the configured
// values times r/BaseRate, rounded down to whole bytes.
func (e *ECN) Thresholds(r engine.Rate) (kmin, kmax int64) {
	return scaleBytes(int64(e.KMin), r, engine.Rate(e.BaseRate)), scaleBytes(int64(e.KMax), r, engine.Rate(e.BaseRate))
}

func scaleBytes(b int64, num, den engine.Rate) int64 {
	if den <= 0 || num <= 0 {
		return b
	}
	// Rates are whole bit/s and thresholds whole bytes; go through float
	// only if the exact product would overflow.
	if num%den == 0 {
		m := int64(num / den)
		if b > math.MaxInt64/m {
			return math.MaxInt64
		}
		return b * m
	}
	return int64(float64(b) * float64(num) / float64(den))
}

// ACK classes and CNP modes.
const (
	ACKClassAuto    = "auto"
	ACKClassData    = "data"
	ACKClassControl = "control"
	CNPAckFlag      = "ack_flag"
	CNPPacket       = "packet"
	ReceiverInOrder = "inorder"
	Selective       = "selective"
	// OOOEager and OOOOrdered are selective repeat with an ATOMIC that
	// arrives out of order kept and executed on arrival, or when every
	// lower PSN has arrived (docs/model.md §9.3); selective resends it.
	OOOEager      = "ooo-eager"
	OOOOrdered    = "ooo-ordered"
	FenceImplicit = "implicit"
)

var (
	ackClasses = []string{ACKClassAuto, ACKClassData, ACKClassControl}
	cnpModes   = []string{CNPAckFlag, CNPPacket}
	receivers  = []string{ReceiverInOrder, Selective, OOOEager, OOOOrdered}
	fences     = []string{"none", FenceImplicit}
)

// NIC is the host RNIC and its RoCEv2 transport.
type NIC struct {
	MTU              int       `yaml:"mtu"`
	QPMapping        QPMapping `yaml:"qp_mapping"`
	DataClass        int       `yaml:"data_class"`
	ACKClass         string    `yaml:"ack_class"`
	ACKInterval      int       `yaml:"ack_interval"`
	NACKInterval     Duration  `yaml:"nack_interval"`
	RTO              Duration  `yaml:"rto"`
	CNP              string    `yaml:"cnp"`
	CNPInterval      Duration  `yaml:"cnp_interval"`
	RealisticHeaders bool      `yaml:"realistic_headers"`
	// Receiver is the transport's receiver: inorder (go-back-N, the
	// reference; the empty default, which prints nothing so that existing
	// scenarios keep their printed form and hash) or selective (IRN-style
	// selective repeat), ooo-eager or ooo-ordered (selective repeat with
	// out-of-order ATOMICs kept, SelectiveReceiver).
	Receiver string `yaml:"receiver,omitempty"`
	// Fence is the requester's fence on ATOMICs: none (the empty default,
	// printing nothing) or implicit (an ATOMIC waits until the WRITEs
	// before it on its QP are acknowledged).
	Fence string `yaml:"fence,omitempty"`
	// Sack is the selective receiver's reorder-tolerant mode (nic.sack:
	// {} for the defaults): absent, IRN's NACK per out-of-order packet
	// (prints nothing); present, the receiver SACKs and the requester
	// treats a hole as lost only after DupThreshold packets beyond it are
	// SACKed (rocev2.SelectiveSender.DupThresh).
	Sack      *Sack  `yaml:"sack,omitempty"`
	Scheduler string `yaml:"scheduler"`
	// Params is the active scheduler's parameter struct: the pointer its
	// Plugin.Params returned, decoded from nic.<scheduler>. It prints
	// under that key.
	Params any `yaml:"-"`
}

// Sack is nic.sack, the reorder-tolerant loss detection of the selective
// receiver.
type Sack struct {
	// DupThreshold is how many packets beyond a hole must be selectively
	// acknowledged before the requester resends it: RFC 6675's DupThresh,
	// 3 as in TCP (RFC 5681's three duplicate ACKs).
	DupThreshold int `yaml:"dup_threshold"`
	// ReorderWindow > 0 also asks that the lowest hole has been open that
	// long since the first SACK above it (RFC 8985 RACK's reorder window):
	// reordering that resolves within it is never resent. 0: the count
	// alone.
	ReorderWindow Duration `yaml:"reorder_window"`
}

func (k *Sack) setDefaults() { *k = Sack{DupThreshold: 3} }

// SelectiveReceiver reports whether the receiver keeps out-of-order data
// (every receiver but inorder).
func (n *NIC) SelectiveReceiver() bool {
	return n.Receiver != "" && n.Receiver != ReceiverInOrder
}

// rto is the retransmission timeout the RNIC takes: 0 for both "0" and
// "never" (no timeout), so that now + rto cannot overflow.
func (n *NIC) RTOTime() engine.Time {
	if n.RTO.T() == engine.Never {
		return 0
	}
	return n.RTO.T()
}

// CC is the congestion control run by every QP.
type CC struct {
	Algorithm string `yaml:"algorithm"`
	// Params is the active algorithm's parameter struct, decoded from
	// cc.<algorithm>.
	Params any `yaml:"-"`
}

// Workload is one traffic generator: its kind (workloads.go lists them)
// and the fields every kind has; a kind's own fields are in Params.
type Workload struct {
	Kind         string  `yaml:"kind"`
	Distribution string  `yaml:"distribution"`
	Load         float64 `yaml:"load"`
	Hosts        HostSet `yaml:"hosts"`
	// Params is the kind's parameter struct (the pointer its
	// WorkloadKind.Params returned, decoded from workload.<kind>), nil for
	// a kind without one (cloud). It prints under that key; a Scenario
	// built in Go may leave it nil for the kind's defaults.
	Params any `yaml:"-"`
}

// Trace metrics.
const (
	MetricQueueDepth  = "queue_depth"
	MetricPauseTime   = "pause_time"
	MetricUtilisation = "utilisation"
	MetricQPRate      = "qp_rate"
	// MetricEfficiency is delivered / injected payload over the host
	// links, and the throughput to hot spots and to other hosts; it is
	// not among the defaults (it observes every host link).
	MetricEfficiency = "efficiency"
)

var traceMetrics = []string{MetricQueueDepth, MetricPauseTime, MetricUtilisation, MetricQPRate}

var traceMetricsAll = append(append([]string(nil), traceMetrics...), MetricEfficiency)

// Trace configures the periodic sampler.
type Trace struct {
	Interval Duration `yaml:"interval"`
	Metrics  []string `yaml:"metrics"`
}

// Default returns the scenario in which every field has its default; its
// Name is empty. The defaults are the default scenario of docs/design.md
// "Command line".
func (c *Catalog) Default() *Scenario {
	s := &Scenario{
		cat:        c,
		Seed:       1,
		Compat:     CompatNone,
		Duration:   Duration(10 * engine.Millisecond),
		DrainLimit: Duration(100 * engine.Millisecond),
		Topology: Topology{
			Kind:           SpineLeaf,
			Leaves:         8,
			HostsPerLeaf:   16,
			Spines:         4,
			Hosts:          16,
			HostsPerSide:   8,
			K:              4,
			HostLink:       Rate(100 * engine.Gbps),
			FabricLink:     Rate(400 * engine.Gbps),
			BottleneckLink: Rate(100 * engine.Gbps),
			LinkDelay:      Duration(engine.Microsecond),
		},
		Switch: Switch{
			Buffer:          Size(32 * engine.MiB),
			PFC:             true,
			PFCPauseTime:    Duration(5 * engine.Microsecond),
			PFCReserve:      4096,
			PFCResumeOffset: 3072,
			PFCHeadroom:     HeadroomAuto,
			Discipline:      DisciplineRR,
			WRRWeights:      [Classes]int{1, 1, 1, 1, 1, 1, 1, 1},
			ECN: ECN{
				Enabled:  true,
				BaseRate: Rate(100 * engine.Gbps),
				KMin:     Size(400 * engine.KB),
				KMax:     Size(1600 * engine.KB),
				PMax:     0.2,
			},
			INT: INTAuto,
		},
		NIC: NIC{
			MTU:          1000,
			DataClass:    3,
			ACKClass:     ACKClassAuto,
			ACKInterval:  1,
			NACKInterval: Duration(500 * engine.Microsecond),
			RTO:          Duration(5 * engine.Millisecond),
			CNP:          CNPAckFlag,
			CNPInterval:  Duration(50 * engine.Microsecond),
			Scheduler:    "fair",
		},
		CC: CC{
			Algorithm: "dcqcn", // as every built-in: one default everywhere
		},
		Workload: defaultWorkload(),
		Trace: Trace{
			Metrics: append([]string(nil), traceMetrics...),
		},
	}
	s.NIC.Params = mustPlugin(c.Schedulers, s.NIC.Scheduler).Params(s.Topology.HostLink.R())
	s.CC.Params = mustPlugin(c.Algorithms, s.CC.Algorithm).Params(s.Topology.HostLink.R())
	return s
}

func defaultWorkload() Workload {
	return Workload{Kind: Cloud, Distribution: "websearch", Load: 0.5, Hosts: AllHosts}
}

// setDefaults implementations let the decoder default a list element or
// a sub-map that appears in the input.
func (w *Workload) setDefaults() { *w = defaultWorkload() }

// Parallel is the parallel engine's part of a scenario (Scenario.Parallel).
type Parallel struct {
	// Units is how the fabric is cut into the engine's units: "pod" (a
	// fat-tree pod's edge and aggregation switches with their hosts, each
	// top-tier switch alone; on two tiers a leaf with its hosts) or
	// "switch" (every switch with its hosts).
	Units string `yaml:"units"`
}

// ParallelUnits are the values of parallel.units.
var ParallelUnits = []string{"pod", "switch"}

func defaultParallel() *Parallel { return &Parallel{Units: "pod"} }

func (p *Parallel) setDefaults() { *p = *defaultParallel() }

func (p *Parallel) validate() *FieldError {
	if p == nil {
		return nil
	}
	return oneOf("parallel.units", "unit cut", p.Units, ParallelUnits)
}
