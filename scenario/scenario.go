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
	// Warnings are what Parse accepted but thinks a mistake, one line
	// each (a sub-map of a scheduler or algorithm that is not the chosen
	// one, which is ignored). dcsim run, show and validate print them.
	Warnings []string `yaml:"-"`
}

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

// Switch queue disciplines (REFERENCE.md 3.1).
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
	Buffer          Size     `yaml:"buffer"`
	PFC             bool     `yaml:"pfc"`
	PFCPauseExpiry  bool     `yaml:"pfc_pause_expiry"`
	PFCPauseTime    Duration `yaml:"pfc_pause_time"`
	PFCReserve      Size     `yaml:"pfc_reserve"`
	PFCResumeOffset Size     `yaml:"pfc_resume_offset"`
	PFCHeadroom     string   `yaml:"pfc_headroom"`
	PFCResponseTime Duration `yaml:"pfc_response_time"`
	Discipline      string   `yaml:"discipline"`
	WRRWeights      [8]int   `yaml:"wrr_weights"`
	LossyQueueLimit Size     `yaml:"lossy_queue_limit"`
	ECN             ECN      `yaml:"ecn"`
	INT             string   `yaml:"int"`
	Routing         *Routing `yaml:"routing,omitempty"`
}

// ECN is RED marking at dequeue (REFERENCE.md 3.4). KMin and KMax are
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
)

var (
	ackClasses = []string{ACKClassAuto, ACKClassData, ACKClassControl}
	cnpModes   = []string{CNPAckFlag, CNPPacket}
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
	Scheduler        string    `yaml:"scheduler"`
	// Params is the active scheduler's parameter struct: the pointer its
	// Plugin.Params returned, decoded from nic.<scheduler>. It prints
	// under that key.
	Params any `yaml:"-"`
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

// Workload kinds.
const (
	Cloud    = "cloud"
	Incast   = "incast"
	Flowlist = "flowlist"
	Storage  = "storage"
	// SimAI and Collective runs end when their work is done, not at duration.
	SimAI      = "simai"
	Collective = "collective"
)

var workloadKinds = []string{Cloud, Incast, Flowlist, Storage, SimAI, Collective}

// Workload is one traffic generator. Exactly the sub-struct of its kind
// is non-nil (none for cloud).
type Workload struct {
	Kind         string            `yaml:"kind"`
	Distribution string            `yaml:"distribution"`
	Load         float64           `yaml:"load"`
	Hosts        HostSet           `yaml:"hosts"`
	Incast       *IncastParams     `yaml:"incast,omitempty"`
	Flowlist     *FlowlistParams   `yaml:"flowlist,omitempty"`
	Storage      *StorageParams    `yaml:"storage,omitempty"`
	SimAI        *SimAIParams      `yaml:"simai,omitempty"`
	Collective   *CollectiveParams `yaml:"collective,omitempty"`
}

// IncastParams are the fields of an incast workload.
type IncastParams struct {
	Senders      int      `yaml:"senders"`
	FlowSize     Size     `yaml:"flow_size"`
	LoadFraction float64  `yaml:"load_fraction"`
	Period       Duration `yaml:"period"`
	Receiver     int      `yaml:"receiver"`
}

// FlowlistParams are the fields of a flowlist workload.
type FlowlistParams struct {
	File string `yaml:"file"`
}

// StorageParams are the fields of a storage (fan-out) workload.
type StorageParams struct {
	Servers              HostSet  `yaml:"servers"`
	FanOut               int      `yaml:"fan_out"`
	ResponseSize         Size     `yaml:"response_size"`
	ResponseDistribution string   `yaml:"response_distribution"`
	RequestLoad          float64  `yaml:"request_load"`
	MeanInterval         Duration `yaml:"mean_interval"`
}

// SimAIParams are the fields of a training workload (REFERENCE.md 7.4-7.6):
// a SimAI/AICB workload file, or one generated from a model.
type SimAIParams struct {
	File          string   `yaml:"file"`            // workload file, or a shipped one by name; empty = generate from model
	Model         string   `yaml:"model"`           // gpt3-13b | gpt3-175b | llama-7b | llama-65b | mixtral-8x7b (when file is empty)
	TP            int      `yaml:"tp"`              // generator: tensor parallel size
	DP            int      `yaml:"dp"`              // generator: data parallel size (0 = gpus/tp)
	EP            int      `yaml:"ep"`              // generator: expert parallel size
	GA            int      `yaml:"ga"`              // generator: gradient accumulation steps
	GPU           string   `yaml:"gpu"`             // generator: a100 | h100
	Efficiency    float64  `yaml:"efficiency"`      // generator: fraction of peak FLOPs achieved
	GPUs          int      `yaml:"gpus"`            // world size; 0 = the file's all_gpus if it fits, else one GPU per host
	GPUsPerServer int      `yaml:"gpus_per_server"` // GPUs joined by NVLink in one server; each GPU has its own NIC (host)
	NVLink        Rate     `yaml:"nvlink"`          // per-GPU intra-server rate
	Iterations    int      `yaml:"iterations"`      // training passes, back to back
	SendLatency   Duration `yaml:"send_latency"`    // fixed delay before every send (SimAI AS_SEND_LAT)
	CommScale     float64  `yaml:"comm_scale"`      // multiplies every collective size (SimAI comm_scale)
	// OverlapGradReduce (generator) reduces each line's gradients in its own
	// DP reduce-scatter, issued as that line's backward ends (Megatron's
	// --overlap-grad-reduce buckets), instead of one reduce-scatter at the end.
	OverlapGradReduce bool `yaml:"overlap_grad_reduce"`
	// Layers (generator) overrides the model's transformer layers; 0 = the
	// model's own. Fewer layers make a quick, smaller iteration.
	Layers int `yaml:"layers"`
	// SendLatencyTable uses SimAI 1.7's per-protocol, NVLink-or-network
	// send latency instead of send_latency.
	SendLatencyTable bool   `yaml:"send_latency_table"`
	Protocol         string `yaml:"protocol"` // the table's NCCL protocol: ll | ll128 | simple
	// ForceChannels gives every group this many rings; 0 = SimAI's rule,
	// one ring per rank the group has on a server.
	ForceChannels int `yaml:"force_channels"`
	// OverlapDPCollectives starts every DP (weight-gradient) collective at
	// once; false = SimAI's one collective per rank and dimension.
	OverlapDPCollectives bool `yaml:"overlap_dp_collectives"`
}

// Collectives are the collective-model fields that training workloads and
// micro-benchmarks share (workloads/simai RunConfig), for validation and
// for building the run.
type Collectives struct {
	SendLatencyTable     bool
	Protocol             string
	ForceChannels        int
	OverlapDPCollectives bool
}

func (p *SimAIParams) CollectiveModel() Collectives {
	return Collectives{p.SendLatencyTable, p.Protocol, p.ForceChannels, p.OverlapDPCollectives}
}

func (p *CollectiveParams) CollectiveModel() Collectives {
	return Collectives{p.SendLatencyTable, p.Protocol, p.ForceChannels, false}
}

// CollectiveParams are a collective micro-benchmark over the workload's
// hosts: one collective of Bytes, Iterations times back to back.
type CollectiveParams struct {
	Op          string   `yaml:"op"`    // allreduce | reducescatter | allgather | alltoall
	Bytes       Size     `yaml:"bytes"` // the collective's buffer size
	Iterations  int      `yaml:"iterations"`
	SendLatency Duration `yaml:"send_latency"`
	// SendLatencyTable, Protocol and ForceChannels: as in SimAIParams.
	SendLatencyTable bool   `yaml:"send_latency_table"`
	Protocol         string `yaml:"protocol"`
	ForceChannels    int    `yaml:"force_channels"`
}

// RandomReceiver as IncastParams.Receiver draws each event's receiver.
const RandomReceiver = -1

// Trace metrics.
const (
	MetricQueueDepth  = "queue_depth"
	MetricPauseTime   = "pause_time"
	MetricUtilisation = "utilisation"
	MetricQPRate      = "qp_rate"
)

var traceMetrics = []string{MetricQueueDepth, MetricPauseTime, MetricUtilisation, MetricQPRate}

// Trace configures the periodic sampler.
type Trace struct {
	Interval Duration `yaml:"interval"`
	Metrics  []string `yaml:"metrics"`
}

// Default returns the scenario in which every field has its default; its
// Name is empty. The defaults are DESIGN.md's default scenario.
func Default() *Scenario {
	s := &Scenario{
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
			WRRWeights:      [8]int{1, 1, 1, 1, 1, 1, 1, 1},
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
	s.NIC.Params = mustPlugin(schedulers, s.NIC.Scheduler).Params(s.Topology.HostLink.R())
	s.CC.Params = mustPlugin(algorithms, s.CC.Algorithm).Params(s.Topology.HostLink.R())
	return s
}

func defaultWorkload() Workload {
	return Workload{Kind: Cloud, Distribution: "websearch", Load: 0.5, Hosts: AllHosts}
}

func defaultIncast() *IncastParams {
	return &IncastParams{Senders: 60, FlowSize: Size(500 * engine.KB), LoadFraction: 0.02, Receiver: RandomReceiver}
}

func defaultFlowlist() *FlowlistParams { return &FlowlistParams{} }

func defaultSimAI() *SimAIParams {
	return &SimAIParams{Model: "gpt3-13b", TP: 8, EP: 1, GA: 1, GPU: "a100", Efficiency: 0.5, GPUsPerServer: 8,
		NVLink: Rate(2400 * engine.Gbps), Iterations: 1, SendLatency: Duration(6 * engine.Microsecond),
		CommScale: 1, Protocol: "simple"}
}

func defaultCollective() *CollectiveParams {
	return &CollectiveParams{Op: "allreduce", Bytes: Size(16 * engine.MiB), Iterations: 1,
		SendLatency: Duration(6 * engine.Microsecond), Protocol: "simple"}
}

func defaultStorage() *StorageParams {
	return &StorageParams{Servers: AllHosts, FanOut: 4, ResponseDistribution: "alistorage", RequestLoad: 0.3}
}

// setDefaults implementations let the decoder default a list element or
// a sub-map that appears in the input.
func (w *Workload) setDefaults()         { *w = defaultWorkload() }
func (p *IncastParams) setDefaults()     { *p = *defaultIncast() }
func (p *FlowlistParams) setDefaults()   { *p = *defaultFlowlist() }
func (p *StorageParams) setDefaults()    { *p = *defaultStorage() }
func (p *SimAIParams) setDefaults()      { *p = *defaultSimAI() }
func (p *CollectiveParams) setDefaults() { *p = *defaultCollective() }

// normalise gives the workload's kind its sub-struct, with defaults if the
// input had none. A sub-struct of another kind stays, for Validate to
// report.
func (w *Workload) normalise() {
	if w.Kind == Incast && w.Incast == nil {
		w.Incast = defaultIncast()
	}
	if w.Kind == Flowlist && w.Flowlist == nil {
		w.Flowlist = defaultFlowlist()
	}
	if w.Kind == Storage && w.Storage == nil {
		w.Storage = defaultStorage()
	}
	if w.Kind == SimAI && w.SimAI == nil {
		w.SimAI = defaultSimAI()
	}
	if w.Kind == Collective && w.Collective == nil {
		w.Collective = defaultCollective()
	}
}
