package scenario

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/workloads/cloud"
	"github.com/dcsim/dcsim/workloads/simai"
)

// WorkloadKind is one kind of traffic that workload.kind (or an element
// of extra_workloads) may name. Like a Plugin it carries everything the
// scenario needs of the kind: its name, doc line, parameters with their
// defaults, validation, constructor and run.parquet counters. Adding a
// kind is one entry in workloadKinds (this file) plus its own package;
// TestTestOnlyWorkloadRuns (package wiring) registers a kind that exists
// only in the test and runs it end to end.
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
	// NewFlows, for a kind that posts flows, builds its generator; an
	// error names the field relative to the workload ("incast.flow_size").
	NewFlows func(w *Workload, env WorkloadEnv) (cloud.Generator, error)
	// NewTraining, for a kind whose messages are the steps of a training
	// run (they end when the work is done, not at duration), builds it.
	NewTraining func(w *Workload, env WorkloadEnv) (*Training, error)
	// NewClosedLoop, for a kind that posts work requests as earlier ones
	// complete (halo), builds it. Exactly one of NewFlows, NewTraining and
	// NewClosedLoop is set.
	NewClosedLoop func(w *Workload, env WorkloadEnv) (ClosedLoop, error)
	// Label names the workload in run.parquet's workload column and the
	// terminal summary; nil is the kind's name.
	Label func(w *Workload) string
	// ReportsLoad says that workload.load is this kind's load: run.parquet
	// records it for a main workload of this kind (null for the others).
	ReportsLoad bool
	// Counters sums the kind's counters over the generators NewFlows built
	// in the run (none when the run has no workload of this kind), for
	// run.parquet's counters map; nil has none. Every registered kind's
	// counters are reported, so the map has the same keys in every run.
	Counters func(gens []cloud.Generator) map[string]int64
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
}

// WorkloadEnv is what a kind's constructor gets from the built network.
type WorkloadEnv struct {
	Scenario *Scenario
	// Hosts is the number of hosts of the built topology.
	Hosts int
	// MaxMessage is the largest message the model can represent on this
	// network (CheckSize).
	MaxMessage int64
	// Rand is the workload's own random stream.
	Rand *rand.Rand
}

// HostIDs resolves w.Hosts against the built topology.
func (e WorkloadEnv) HostIDs(w *Workload) ([]int, error) {
	ids, err := w.Hosts.Resolve(e.Hosts)
	if err != nil {
		return nil, fmt.Errorf("hosts: %v", err)
	}
	return ids, nil
}

// CheckSize rejects a message size above MaxMessage.
func (e WorkloadEnv) CheckSize(field string, size int64) error {
	if size <= e.MaxMessage {
		return nil
	}
	return fmt.Errorf("%s: a %d B message is more than the model can represent on this network (at most %d B: its transfer on the slowest link must take under 2^61 ps)", field, size, e.MaxMessage)
}

// Training is a built training workload: the SimAI workload and the
// executor's configuration, for wiring's trainer.
type Training struct {
	Workload *simai.Workload
	Config   simai.RunConfig
	// Op and Bytes are a collective micro-benchmark's, for bus bandwidth.
	Op    string
	Bytes int64
	// NICPerGPU: every GPU has its own NIC (host = rank).
	NICPerGPU bool
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

// workloadKinds are the workload kinds, in listing order.
var workloadKinds = []WorkloadKind{
	{Name: Cloud, Doc: "Poisson flows between uniformly drawn hosts, sizes from distribution, at load",
		Validate: func(w *Workload, at WorkloadCheck) *FieldError {
			if at.Known && len(at.Hosts) < 2 {
				return fieldErr(at.Prefix+"hosts", "a cloud workload needs at least 2 hosts, got %d", len(at.Hosts))
			}
			return nil
		},
		NewFlows:    newCloud,
		Label:       func(w *Workload) string { return "cloud:" + w.Distribution },
		ReportsLoad: true},
	{Name: Incast, Doc: "incast events: senders drawn from hosts each send flow_size to one receiver",
		Params:   func() any { return defaultIncast() },
		Validate: func(w *Workload, at WorkloadCheck) *FieldError { return w.Params.(*IncastParams).validate(at) },
		NewFlows: newIncast},
	{Name: Flowlist, Doc: "the flows of a CSV file (src,dst,size_bytes,start_ns)",
		Params: func() any { return defaultFlowlist() },
		Validate: func(w *Workload, at WorkloadCheck) *FieldError {
			if strings.TrimSpace(w.Params.(*FlowlistParams).File) == "" {
				return fieldErr(at.Prefix+"flowlist.file", "required when %skind is flowlist", at.Prefix)
			}
			return nil
		},
		NewFlows: newFlowlist},
	{Name: Storage, Doc: "storage fan-out: each client request makes fan_out servers answer",
		Params:   func() any { return defaultStorage() },
		Validate: func(w *Workload, at WorkloadCheck) *FieldError { return w.Params.(*StorageParams).validate(at) },
		NewFlows: newStorage},
	{Name: SimAI, Doc: "a SimAI/AICB training workload (a file, or generated from a model)",
		Params: func() any { return defaultSimAI() },
		Validate: func(w *Workload, at WorkloadCheck) *FieldError {
			return w.Params.(*SimAIParams).validate(at.Prefix + "simai.")
		},
		NewTraining: newSimAI,
		Label: func(w *Workload) string {
			if p := w.Params.(*SimAIParams); p.File != "" {
				return "simai:" + p.File
			}
			return "simai:" + w.Params.(*SimAIParams).Model
		}},
	{Name: Collective, Doc: "a collective micro-benchmark over the workload's hosts",
		Params: func() any { return defaultCollective() },
		Validate: func(w *Workload, at WorkloadCheck) *FieldError {
			return w.Params.(*CollectiveParams).validate(at.Prefix + "collective.")
		},
		NewTraining: newCollective,
		Label:       func(w *Workload) string { return "collective:" + w.Params.(*CollectiveParams).Op }},
	{Name: HotSpot, Doc: "hot spots: a fraction of hosts, split over trees destinations, offer line rate from start",
		Params:   func() any { return defaultHotSpot() },
		Validate: func(w *Workload, at WorkloadCheck) *FieldError { return w.Params.(*HotSpotParams).validate(at) },
		NewFlows: newHotSpot},
	{Name: Halo, Doc: "one-sided ring-buffer halo exchange on a 3-D grid of ranks (READ head, WRITE, FETCH_ADD tail per batch)",
		Params:        func() any { return defaultHalo() },
		Validate:      func(w *Workload, at WorkloadCheck) *FieldError { return w.Params.(*HaloParams).validate(at) },
		NewClosedLoop: newHalo},
	{Name: MPITrace, Doc: "reconstructed MPI traces (ptrans: HPCC matrix transpose; inception-v3: data-parallel allreduce) as dependent messages",
		Params:        func() any { return defaultMPITrace() },
		Validate:      func(w *Workload, at WorkloadCheck) *FieldError { return w.Params.(*MPITraceParams).validate(at) },
		NewClosedLoop: newMPITrace},
}

// WorkloadKinds lists the kinds workload.kind may name.
func WorkloadKinds() []WorkloadKind { return append([]WorkloadKind(nil), workloadKinds...) }

// LookupWorkloadKind returns the workload kind called name.
func LookupWorkloadKind(name string) (WorkloadKind, bool) {
	for _, k := range workloadKinds {
		if k.Name == name {
			return k, true
		}
	}
	return WorkloadKind{}, false
}

// MustWorkloadKind is the registered kind called name, which a validated
// scenario names; anything else is a bug and panics.
func MustWorkloadKind(name string) WorkloadKind {
	k, ok := LookupWorkloadKind(name)
	if !ok {
		panic(fmt.Sprintf("scenario: workload kind %q is not registered", name))
	}
	return k
}

// AddWorkloadKind registers k after the built-in kinds, for a program or
// a test that brings its own (TestTestOnlyWorkloadRuns in package
// wiring); remove takes it out again. A name already registered, or a
// kind without exactly one constructor, is a bug and panics. It is not
// safe to call while scenarios are parsed or built.
func AddWorkloadKind(k WorkloadKind) (remove func()) {
	if _, ok := LookupWorkloadKind(k.Name); ok {
		panic(fmt.Sprintf("scenario: workload kind %q is already registered", k.Name))
	}
	if (k.NewFlows == nil) == (k.NewTraining == nil) {
		panic(fmt.Sprintf("scenario: workload kind %q needs exactly one of NewFlows and NewTraining", k.Name))
	}
	old := workloadKinds
	workloadKinds = append(append([]WorkloadKind(nil), workloadKinds...), k)
	return func() { workloadKinds = old }
}

func workloadKindNames() []string {
	names := make([]string, len(workloadKinds))
	for i, k := range workloadKinds {
		names[i] = k.Name
	}
	return names
}

// Training reports whether w's kind is a training kind.
func (w *Workload) Training() bool {
	k, ok := LookupWorkloadKind(w.Kind)
	return ok && k.NewTraining != nil
}

// Label names w for run.parquet and the terminal summary.
func (w *Workload) Label() string {
	if k, ok := LookupWorkloadKind(w.Kind); ok && k.Label != nil {
		return k.Label(w)
	}
	return w.Kind
}

// ConfiguredLoad is workload.load for run.parquet, or nil for the kinds
// that do not read it (all but cloud: incast and storage have their own
// load fields, training and flow lists none).
func (w *Workload) ConfiguredLoad() *float64 {
	if k, ok := LookupWorkloadKind(w.Kind); !ok || !k.ReportsLoad {
		return nil
	}
	l := w.Load
	return &l
}

// WorkloadCounters are every registered kind's counters over the
// generators gens[kind] that the run built, each kind's once.
func WorkloadCounters(gens map[string][]cloud.Generator, into map[string]int64) {
	for _, k := range workloadKinds {
		if k.Counters == nil {
			continue
		}
		for name, v := range k.Counters(gens[k.Name]) {
			into[name] = v
		}
	}
}

// workloadSub is a kind's sub-map as the decoder found it.
type workloadSub struct {
	kind   string
	params any
}

// workloadSubNames are the sub-map keys a workload may hold, in listing order.
func workloadSubNames() []string {
	var names []string
	for _, k := range workloadKinds {
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
		if k, ok := LookupWorkloadKind(w.Kind); ok && k.Params != nil && w.Params == nil {
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
func (w *Workload) params() any {
	if w.Params != nil {
		return w.Params
	}
	if k, ok := LookupWorkloadKind(w.Kind); ok && k.Params != nil {
		return k.Params()
	}
	return nil
}

// Traffic is what a built workload is: a flow generator, or a training
// run (exactly one is set).
type Traffic struct {
	Flows      cloud.Generator
	Training   *Training
	ClosedLoop ClosedLoop
}

// Build builds w with its kind's constructor (the kind's defaults when
// w.Params is nil).
func (w *Workload) Build(env WorkloadEnv) (Traffic, error) {
	k := MustWorkloadKind(w.Kind)
	wp := *w
	wp.Params = w.params()
	if k.NewTraining != nil {
		tr, err := k.NewTraining(&wp, env)
		return Traffic{Training: tr}, err
	}
	if k.NewClosedLoop != nil {
		l, err := k.NewClosedLoop(&wp, env)
		return Traffic{ClosedLoop: l}, err
	}
	gen, err := k.NewFlows(&wp, env)
	return Traffic{Flows: gen}, err
}

func (w *Workload) validate(prefix string, n int, known bool, misplaced []string) *FieldError {
	p := prefix + "."
	if fe := oneOf(p+"kind", "workload kind", w.Kind, workloadKindNames()); fe != nil {
		return fe
	}
	for _, name := range workloadSubNames() {
		if slices.Contains(misplaced, name) {
			return fieldErr(p+name, "only allowed when %skind is %s (it is %s)", p, name, w.Kind)
		}
	}
	if fe := firstErr(distribution(p+"distribution", w.Distribution), fraction(p+"load", w.Load)); fe != nil {
		return fe
	}
	hosts, fe := hostList(p+"hosts", w.Hosts, n, known)
	if fe != nil {
		return fe
	}
	k := MustWorkloadKind(w.Kind)
	if k.Validate == nil {
		return nil
	}
	wp := *w
	wp.Params = w.params()
	return k.Validate(&wp, WorkloadCheck{Prefix: p, Hosts: hosts, N: n, Known: known})
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

func (c *SimAIParams) validate(p string) *FieldError {
	if strings.TrimSpace(c.File) == "" {
		if fe := firstErr(
			oneOf(p+"model", "model", c.Model, simaiModels()),
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
		if fe := distribution(p+"response_distribution", c.ResponseDistribution); fe != nil {
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

func simaiModels() []string {
	var out []string
	for _, m := range simai.Models() {
		out = append(out, m.Name)
	}
	return out
}

func newCloud(w *Workload, env WorkloadEnv) (cloud.Generator, error) {
	hostIDs, err := env.HostIDs(w)
	if err != nil {
		return nil, err
	}
	cdf, err := cloud.Load(w.Distribution)
	if err != nil {
		return nil, fmt.Errorf("distribution: %v", err)
	}
	if err := env.CheckSize("distribution", cdf.Max()); err != nil {
		return nil, err
	}
	s := env.Scenario
	return cloud.NewPoisson(cloud.PoissonConfig{Hosts: hostIDs, HostRate: engine.Rate(s.Topology.HostLink), Load: w.Load, CDF: cdf,
		Stop: engine.Time(s.Duration), Name: "cloud"}, env.Rand)
}

func newIncast(w *Workload, env WorkloadEnv) (cloud.Generator, error) {
	hostIDs, err := env.HostIDs(w)
	if err != nil {
		return nil, err
	}
	p := w.Params.(*IncastParams)
	if err := env.CheckSize("incast.flow_size", int64(p.FlowSize)); err != nil {
		return nil, err
	}
	load := p.LoadFraction
	if p.Period > 0 {
		load = 0 // a period makes the events periodic; load_fraction is then unused
	}
	s := env.Scenario
	return cloud.NewIncast(cloud.IncastConfig{Hosts: hostIDs, Senders: p.Senders, Receiver: p.Receiver,
		FlowSize: int64(p.FlowSize), Load: load, HostRate: engine.Rate(s.Topology.HostLink), Period: engine.Time(p.Period),
		Stop: engine.Time(s.Duration), Name: "incast"}, env.Rand)
}

// newFlowlist reads the flow list once at build, holding one record, to
// report any bad record or flow (file:line, a host the topology lacks, a
// size too large) before the run starts, as when the list was read whole.
// A list sorted by start_ns, the usual case, is then posted from a cursor
// over the file during the run: the flows are read as they are posted, so
// memory does not grow with the list. A list not sorted by start_ns is
// read whole and stably sorted here (about 0.1 KB per flow until the run
// ends), as every flow list was before: such files stay valid rather than
// becoming an error, and a sort that needs the whole list in memory is
// what an unsorted list costs (workloads/cloud doc.go).
func newFlowlist(w *Workload, env WorkloadEnv) (cloud.Generator, error) {
	if _, err := env.HostIDs(w); err != nil {
		return nil, err
	}
	file := w.Params.(*FlowlistParams).File
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("flowlist.file: %v", err)
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
		}
	}()
	scan, err := cloud.ScanFlowList(file, f, func(fl cloud.Flow) error {
		if fl.Src >= env.Hosts || fl.Dst >= env.Hosts {
			return fmt.Errorf("flowlist.file: flow %d->%d: the topology has %d hosts", fl.Src, fl.Dst, env.Hosts)
		}
		return env.CheckSize(fmt.Sprintf("flowlist.file: flow %d->%d", fl.Src, fl.Dst), fl.Size)
	})
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("flowlist.file: %v", err)
	}
	if !scan.Sorted {
		flows, err := cloud.ReadFlowList(file, f)
		if err != nil {
			return nil, err
		}
		return cloud.NewFlowList(flows), nil
	}
	cur, err := cloud.NewFlowListCursor(file, f)
	if err != nil {
		return nil, err
	}
	keep = true
	cur.OnEnd = func() { f.Close() }
	return cur, nil
}

func newStorage(w *Workload, env WorkloadEnv) (cloud.Generator, error) {
	hostIDs, err := env.HostIDs(w)
	if err != nil {
		return nil, err
	}
	p := w.Params.(*StorageParams)
	if err := env.CheckSize("storage.response_size", int64(p.ResponseSize)); err != nil {
		return nil, err
	}
	servers, err := p.Servers.Resolve(env.Hosts)
	if err != nil {
		return nil, fmt.Errorf("storage.servers: %v", err)
	}
	s := env.Scenario
	cfg := cloud.StorageConfig{Clients: hostIDs, Servers: servers, FanOut: p.FanOut,
		ResponseSize: int64(p.ResponseSize), Load: p.RequestLoad, HostRate: engine.Rate(s.Topology.HostLink),
		MeanInterval: engine.Time(p.MeanInterval), Stop: engine.Time(s.Duration), Name: "storage"}
	if p.MeanInterval > 0 {
		cfg.Load = 0 // a mean interval sets the request rate; request_load is then unused
	}
	if p.ResponseDistribution != "" && p.ResponseSize == 0 {
		cdf, err := cloud.Load(p.ResponseDistribution)
		if err != nil {
			return nil, fmt.Errorf("storage.response_distribution: %v", err)
		}
		cfg.ResponseCDF = cdf
	}
	return cloud.NewStorage(cfg, env.Rand)
}

// loadSimAI reads a workload file (or a shipped one by name), or generates
// one from the model.
func loadSimAI(p *SimAIParams, gpus int) (*simai.Workload, error) {
	if f := strings.TrimSpace(p.File); f != "" {
		if w, err := simai.Shipped(f); err == nil {
			return w, nil
		}
		fh, err := os.Open(f)
		if err != nil {
			return nil, fmt.Errorf("simai.file: %q is neither a shipped workload (%s) nor a readable file: %v",
				f, strings.Join(simai.ShippedNames(), ", "), err)
		}
		defer fh.Close()
		return simai.Parse(f, fh)
	}
	m, err := simai.ModelByName(p.Model)
	if err != nil {
		return nil, fmt.Errorf("simai.model: %v", err)
	}
	gpu, err := simai.GPUByName(p.GPU)
	if err != nil {
		return nil, fmt.Errorf("simai.gpu: %v", err)
	}
	gpu.Efficiency = p.Efficiency
	if p.Layers > 0 {
		m.Layers = p.Layers
	}
	dp := p.DP
	if dp == 0 {
		dp = gpus / p.TP
	}
	if dp < 1 || p.TP*dp > gpus {
		return nil, fmt.Errorf("simai.tp: tp %d x dp %d does not fit %d GPUs", p.TP, dp, gpus)
	}
	return simai.Generate(m, simai.Parallelism{TP: p.TP, DP: dp, EP: p.EP, GA: p.GA, OverlapGradReduce: p.OverlapGradReduce}, gpu)
}

// applyCollectives sets the collective model of cfg (validated: the protocol parses).
func applyCollectives(c Collectives, cfg *simai.RunConfig) {
	cfg.SendLatencyTable = c.SendLatencyTable
	cfg.Protocol, _ = simai.ParseProtocol(c.Protocol)
	cfg.Channels = c.ForceChannels
	cfg.OverlapDP = c.OverlapDPCollectives
}

func newSimAI(w *Workload, env WorkloadEnv) (*Training, error) {
	p, hosts := w.Params.(*SimAIParams), env.Hosts
	cfg := simai.DefaultRunConfig()
	cfg.GPUsPerHost = p.GPUsPerServer
	cfg.NVLinkRate = engine.Rate(p.NVLink)
	cfg.Iterations = p.Iterations
	cfg.SendLatency = engine.Time(p.SendLatency)
	applyCollectives(p.CollectiveModel(), &cfg)
	cfg.CommScale = p.CommScale
	cfg.GPUs = p.GPUs
	if cfg.GPUs == 0 {
		cfg.GPUs = hosts
	}
	wl, err := loadSimAI(p, cfg.GPUs)
	if err != nil {
		return nil, err
	}
	if p.GPUs == 0 && wl.AllGPUs > 0 && wl.AllGPUs <= hosts {
		cfg.GPUs = wl.AllGPUs
	}
	if cfg.GPUs > hosts {
		return nil, fmt.Errorf("simai.gpus: %d GPUs, one NIC each, but the topology has %d hosts", cfg.GPUs, hosts)
	}
	if cfg.GPUs%p.GPUsPerServer != 0 {
		return nil, fmt.Errorf("simai.gpus_per_server: %d GPUs do not fill servers of %d", cfg.GPUs, p.GPUsPerServer)
	}
	return &Training{Workload: wl, Config: cfg, NICPerGPU: true}, nil
}

func newCollective(w *Workload, env WorkloadEnv) (*Training, error) {
	p, hosts := w.Params.(*CollectiveParams), env.Hosts
	cfg := simai.DefaultRunConfig()
	cfg.GPUs = hosts
	cfg.Iterations = p.Iterations
	cfg.SendLatency = engine.Time(p.SendLatency)
	applyCollectives(p.CollectiveModel(), &cfg)
	wl, err := simai.Microbench(p.Op, int64(p.Bytes), hosts)
	if err != nil {
		return nil, fmt.Errorf("collective: %v", err)
	}
	return &Training{Workload: wl, Config: cfg, Op: p.Op, Bytes: int64(p.Bytes)}, nil
}
