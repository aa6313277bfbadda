package scenario

import (
	"math"
	"slices"
	"strings"

	"github.com/dcsim/dcsim/engine"
)

// WorkloadKind is the schema of one kind of traffic that workload.kind
// (or an element of extra_workloads) may name: its name, doc line,
// parameters with their defaults and validation, and how run.parquet
// names it. Its constructor is the composition root's (wiring's
// WorkloadKind, in Impl). The built-in kinds' schemas are the *Kind
// values below; a kind of its own package carries its schema in its
// wiring table line.
//
// A kind's knobs live in a sub-map named after it (workload.incast:
// {...}), decoded strictly into the struct Params returns, where the
// input gives it; it may appear only with that kind and prints only for
// it. The workload's own fields (distribution, load, hosts) are checked
// for every kind.
type WorkloadKind struct {
	// Name is what workload.kind says, and the key of the sub-map.
	Name string
	// Doc is one line for listings.
	Doc string
	// Params returns a new pointer to the kind's parameter struct, filled
	// with its defaults; nil means the kind has no sub-map (cloud, whose
	// fields are the workload's own). Its fields read and print as the
	// scenario's (Size, Duration, HostSet...).
	Params func() any
	// Validate checks a workload of this kind once its own fields have
	// passed; w.Params is the kind's parameter struct (when Params is not
	// nil). nil checks nothing.
	Validate func(w *Workload, at WorkloadCheck) *FieldError
	// Training says that the kind's messages are the steps of a training
	// run, which ends when its work is done, not at duration: the
	// achieved load of its start window says nothing.
	Training bool
	// Label names the workload in run.parquet's workload column and the
	// terminal summary; nil is the kind's name.
	Label func(w *Workload) string
	// ReportsLoad says that workload.load is this kind's load: run.parquet
	// records it for a main workload of this kind (null for the others).
	ReportsLoad bool
	// Impl is the composition root's own descriptor of the kind (its
	// constructor); scenario never looks into it.
	Impl any
}

// WorkloadCheck is what a kind's Validate knows of where the workload is.
type WorkloadCheck struct {
	// Prefix is the workload's dotted path with a trailing dot
	// ("workload.", "extra_workloads[0].").
	Prefix string
	// Hosts are the resolved workload.hosts, N the topology's hosts; when
	// Known is false (a topology file) neither is known.
	Hosts []int
	N     int
	Known bool
	// Catalog is the scenario's catalog (its distributions and models).
	Catalog *Catalog
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
	HotSpot    = "hotspot"
)

// The built-in kinds' schemas, in listing order; the composition root
// lists each with its constructor.
var (
	CloudKind = WorkloadKind{Name: Cloud, Doc: "Poisson flows between uniformly drawn hosts, sizes from distribution, at load",
		Validate: func(w *Workload, at WorkloadCheck) *FieldError {
			if at.Known && len(at.Hosts) < 2 {
				return fieldErr(at.Prefix+"hosts", "a cloud workload needs at least 2 hosts, got %d", len(at.Hosts))
			}
			return nil
		},
		Label:       func(w *Workload) string { return "cloud:" + w.Distribution },
		ReportsLoad: true}
	IncastKind = WorkloadKind{Name: Incast, Doc: "incast events: senders drawn from hosts each send flow_size to one receiver",
		Params:   func() any { return defaultIncast() },
		Validate: validateParams[*IncastParams]}
	FlowlistKind = WorkloadKind{Name: Flowlist, Doc: "the flows of a CSV file (src,dst,size_bytes,start_ns)",
		Params: func() any { return defaultFlowlist() },
		Validate: func(w *Workload, at WorkloadCheck) *FieldError {
			if strings.TrimSpace(w.Params.(*FlowlistParams).File) == "" {
				return fieldErr(at.Prefix+"flowlist.file", "required when %skind is flowlist", at.Prefix)
			}
			return nil
		}}
	StorageKind = WorkloadKind{Name: Storage, Doc: "storage fan-out: each client request makes fan_out servers answer",
		Params:   func() any { return defaultStorage() },
		Validate: validateParams[*StorageParams]}
	SimAIKind = WorkloadKind{Name: SimAI, Doc: "a SimAI/AICB training workload (a file, or generated from a model)",
		Params: func() any { return defaultSimAI() },
		Validate: func(w *Workload, at WorkloadCheck) *FieldError {
			return w.Params.(*SimAIParams).validate(at.Prefix+"simai.", at.Catalog.SimAIModels)
		},
		Training: true,
		Label: func(w *Workload) string {
			if p := w.Params.(*SimAIParams); p.File != "" {
				return "simai:" + p.File
			}
			return "simai:" + w.Params.(*SimAIParams).Model
		}}
	CollectiveKind = WorkloadKind{Name: Collective, Doc: "a collective micro-benchmark over the workload's hosts",
		Params: func() any { return defaultCollective() },
		Validate: func(w *Workload, at WorkloadCheck) *FieldError {
			return w.Params.(*CollectiveParams).validate(at.Prefix + "collective.")
		},
		Training: true,
		Label:    func(w *Workload) string { return "collective:" + w.Params.(*CollectiveParams).Op }}
	HotSpotKind = WorkloadKind{Name: HotSpot, Doc: "hot spots: a fraction of hosts, split over trees destinations, offer line rate from start",
		Params:   func() any { return defaultHotSpot() },
		Validate: validateParams[*HotSpotParams]}
	HaloKind = WorkloadKind{Name: Halo, Doc: "one-sided ring-buffer halo exchange on a 3-D grid of ranks (READ head, WRITE, FETCH_ADD tail per batch)",
		Params:   func() any { return defaultHalo() },
		Validate: validateParams[*HaloParams]}
	MPITraceKind = WorkloadKind{Name: MPITrace, Doc: "reconstructed MPI traces (ptrans: HPCC matrix transpose; inception-v3: data-parallel allreduce) as dependent messages",
		Params:   func() any { return defaultMPITrace() },
		Validate: validateParams[*MPITraceParams]}
)

// selfChecking parameters check themselves against the workload's place.
type selfChecking interface {
	validate(WorkloadCheck) *FieldError
}

// validateParams is the Validate of a kind whose parameters check
// themselves against the workload's place (at).
func validateParams[P selfChecking](w *Workload, at WorkloadCheck) *FieldError {
	return w.Params.(P).validate(at)
}

// workloadKindNames are the kinds' names, in listing order.
func (c *Catalog) workloadKindNames() []string {
	names := make([]string, len(c.Workloads))
	for i, k := range c.Workloads {
		names[i] = k.Name
	}
	return names
}

// Training reports whether w's kind is a training kind.
func (c *Catalog) Training(w *Workload) bool {
	k, ok := c.WorkloadKind(w.Kind)
	return ok && k.Training
}

// Label names w for run.parquet and the terminal summary.
func (c *Catalog) Label(w *Workload) string {
	if k, ok := c.WorkloadKind(w.Kind); ok && k.Label != nil {
		wp := *w
		wp.Params = c.params(w)
		return k.Label(&wp)
	}
	return w.Kind
}

// ConfiguredLoad is workload.load for run.parquet, or nil for the kinds
// that do not read it (all but cloud: incast and storage have their own
// load fields, training and flow lists none).
func (c *Catalog) ConfiguredLoad(w *Workload) *float64 {
	if k, ok := c.WorkloadKind(w.Kind); !ok || !k.ReportsLoad {
		return nil
	}
	l := w.Load
	return &l
}

// workloadSub is a kind's sub-map as the decoder found it.
type workloadSub struct {
	kind   string
	params any
}

// workloadSubNames are the sub-map keys a workload may hold, in listing order.
func (c *Catalog) workloadSubNames() []string {
	var names []string
	for _, k := range c.Workloads {
		if k.Params != nil {
			names = append(names, k.Name)
		}
	}
	return names
}

// normaliseWorkloads gives each workload's kind its parameter struct: the
// decoded sub-map, or the defaults if the input had none. It returns the
// kinds of the sub-maps given for another kind, by workload, for Validate
// to report.
func (d *decoder) normaliseWorkloads(s *Scenario) map[*Workload][]string {
	misplaced := map[*Workload][]string{}
	norm := func(w *Workload) {
		for _, sub := range d.workloadSubs[w] {
			if sub.kind == w.Kind {
				w.Params = sub.params
			} else {
				misplaced[w] = append(misplaced[w], sub.kind)
			}
		}
		if k, ok := d.cat.WorkloadKind(w.Kind); ok && k.Params != nil && w.Params == nil {
			w.Params = k.Params()
		}
	}
	norm(&s.Workload)
	for i := range s.ExtraWorkloads {
		norm(&s.ExtraWorkloads[i])
	}
	return misplaced
}

// params is w.Params, or the kind's defaults when a Scenario built in Go
// left it nil.
func (c *Catalog) params(w *Workload) any {
	if w.Params != nil {
		return w.Params
	}
	if k, ok := c.WorkloadKind(w.Kind); ok && k.Params != nil {
		return k.Params()
	}
	return nil
}

// WithParams is w with Params set: the kind's defaults when w.Params is
// nil (a Scenario built in Go), for a kind's constructor.
func (c *Catalog) WithParams(w *Workload) *Workload {
	wp := *w
	wp.Params = c.params(w)
	return &wp
}

func (w *Workload) validate(c *Catalog, prefix string, n int, known bool, misplaced []string) *FieldError {
	p := prefix + "."
	if fe := oneOf(p+"kind", "workload kind", w.Kind, c.workloadKindNames()); fe != nil {
		return fe
	}
	for _, name := range c.workloadSubNames() {
		if slices.Contains(misplaced, name) {
			return fieldErr(p+name, "only allowed when %skind is %s (it is %s)", p, name, w.Kind)
		}
	}
	if fe := firstErr(distribution(p+"distribution", w.Distribution, c.distributionNames()), fraction(p+"load", w.Load)); fe != nil {
		return fe
	}
	hosts, fe := hostList(p+"hosts", w.Hosts, n, known)
	if fe != nil {
		return fe
	}
	k, _ := c.WorkloadKind(w.Kind)
	if k.Validate == nil {
		return nil
	}
	return k.Validate(c.WithParams(w), WorkloadCheck{Prefix: p, Hosts: hosts, N: n, Known: known, Catalog: c})
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

// SimAIParams are the fields of a training workload (docs/model.md §7.4-7.6):
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

func (c *SimAIParams) validate(p string, models []string) *FieldError {
	if strings.TrimSpace(c.File) == "" {
		if fe := firstErr(
			oneOf(p+"model", "model", c.Model, models),
			oneOf(p+"gpu", "gpu", c.GPU, []string{"a100", "h100"}),
			between(p+"tp", c.TP, 1, maxHosts),
			between(p+"dp", c.DP, 0, maxHosts),
			between(p+"ep", c.EP, 1, maxHosts),
			between(p+"ga", c.GA, 1, 1<<16),
			between(p+"layers", c.Layers, 0, 1<<12),
		); fe != nil {
			return fe
		}
		if !(c.Efficiency > 0 && c.Efficiency <= 1) {
			return fieldErr(p+"efficiency", "%v is not in (0, 1]", c.Efficiency)
		}
	}
	if fe := firstErr(
		between(p+"gpus", c.GPUs, 0, maxHosts),
		between(p+"gpus_per_server", c.GPUsPerServer, 1, 1024),
		positiveRate(p+"nvlink", c.NVLink),
		between(p+"iterations", c.Iterations, 1, 1<<20),
		nonNegativeTime(p+"send_latency", c.SendLatency, false),
		validateCollectives(p, c.CollectiveModel()),
	); fe != nil {
		return fe
	}
	if !(c.CommScale > 0) || math.IsInf(c.CommScale, 0) {
		return fieldErr(p+"comm_scale", "must be positive and finite, got %v", c.CommScale)
	}
	return nil
}

func validateCollectives(p string, c Collectives) *FieldError {
	return firstErr(
		oneOf(p+"protocol", "protocol", c.Protocol, []string{"ll", "ll128", "simple"}),
		between(p+"force_channels", c.ForceChannels, 0, 1024),
	)
}

func (c *CollectiveParams) validate(p string) *FieldError {
	if fe := firstErr(
		oneOf(p+"op", "collective", c.Op, []string{"allreduce", "reducescatter", "allgather", "alltoall"}),
		between(p+"iterations", c.Iterations, 1, 1<<20),
		nonNegativeTime(p+"send_latency", c.SendLatency, false),
		validateCollectives(p, c.CollectiveModel()),
	); fe != nil {
		return fe
	}
	if c.Bytes < 1 {
		return fieldErr(p+"bytes", "must be at least 1B, got %d", int64(c.Bytes))
	}
	return nil
}

func (c *IncastParams) validate(at WorkloadCheck) *FieldError {
	p, hosts, n, known := at.Prefix+"incast.", at.Hosts, at.N, at.Known
	if fe := firstErr(
		between(p+"senders", c.Senders, 1, maxHosts),
		nonNegativeTime(p+"period", c.Period, false),
	); fe != nil {
		return fe
	}
	if c.FlowSize < 1 {
		return fieldErr(p+"flow_size", "must be at least 1B, got %d", int64(c.FlowSize))
	}
	if c.Period == 0 {
		if fe := fraction(p+"load_fraction", c.LoadFraction); fe != nil {
			return fe
		}
	}
	if c.Receiver < RandomReceiver {
		return fieldErr(p+"receiver", "must be a host index or -1 (random), got %d", c.Receiver)
	}
	if !known {
		return nil
	}
	if c.Receiver >= n {
		return fieldErr(p+"receiver", "host %d does not exist (the topology has %d hosts)", c.Receiver, n)
	}
	avail := len(hosts)
	if c.Receiver == RandomReceiver || slices.Contains(hosts, c.Receiver) {
		avail--
	}
	if c.Senders > avail {
		return fieldErr(p+"senders", "%d senders but only %d hosts besides the receiver", c.Senders, avail)
	}
	return nil
}

func (c *StorageParams) validate(at WorkloadCheck) *FieldError {
	p, clients, n, known := at.Prefix+"storage.", at.Hosts, at.N, at.Known
	servers, fe := hostList(p+"servers", c.Servers, n, known)
	if fe != nil {
		return fe
	}
	if fe := firstErr(
		between(p+"fan_out", c.FanOut, 1, maxHosts),
		nonNegativeSize(p+"response_size", c.ResponseSize),
		nonNegativeTime(p+"mean_interval", c.MeanInterval, false),
	); fe != nil {
		return fe
	}
	if c.ResponseSize == 0 {
		if fe := distribution(p+"response_distribution", c.ResponseDistribution, at.Catalog.distributionNames()); fe != nil {
			return fe
		}
	}
	if c.MeanInterval == 0 {
		if fe := fraction(p+"request_load", c.RequestLoad); fe != nil {
			return fe
		}
	}
	if !known {
		return nil
	}
	// A client never asks itself, so a client that is also a server has
	// one server fewer to choose from.
	isServer := make([]bool, n)
	for _, sv := range servers {
		isServer[sv] = true
	}
	avail := len(servers)
	for _, cl := range clients {
		if isServer[cl] {
			avail--
			break
		}
	}
	if c.FanOut > avail {
		return fieldErr(p+"fan_out", "%d exceeds the %d servers available to a client", c.FanOut, avail)
	}
	return nil
}
