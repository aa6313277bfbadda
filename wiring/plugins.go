package wiring

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/cc/dcqcn"
	"github.com/dcsim/dcsim/cc/dctcp"
	"github.com/dcsim/dcsim/cc/hpcc"
	"github.com/dcsim/dcsim/cc/none"
	"github.com/dcsim/dcsim/cc/timely"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/fabric/isolation"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/sched/storm"
	"github.com/dcsim/dcsim/workloads/cloud"
	"github.com/dcsim/dcsim/workloads/simai"
)

// Scheduler is one RNIC scheduler: its schema (name, doc line, params
// with defaults and validation), its constructor and its counters. A new
// scheduler is its package and one line in schedulers.
type Scheduler struct {
	scenario.Plugin
	// New builds every host's scheduler from the decoded params of a
	// validated scenario; bdp is the topology's maxBdp at the scenario's
	// MTU. An error names the field.
	New func(s *scenario.Scenario, params any, bdp int64) (func(h *rnic.Host) rnic.Scheduler, error)
	// Counters sums its component counters over the hosts for
	// run.parquet's counters map; nil has none. Every listed scheduler's
	// counters are reported, whichever one runs, so that the counters map
	// has the same keys in every run.
	Counters func(hosts []*rnic.Host) map[string]int64
}

// Algorithm is one congestion-control algorithm: its schema, its
// cc.Spec and whether it reacts to ECN. A new algorithm is its package
// and one line in algorithms.
type Algorithm struct {
	scenario.Plugin
	// Spec is the cc.Spec of the decoded params.
	Spec func(params any) cc.Spec
	// ReactsToECN says that it acts on ECN marks (DCQCN's CNPs, DCTCP's
	// ECE). Without it receivers send no congestion notification
	// (rnic.CNPNone): switches still mark, but a run reports no CNPs that
	// nothing uses.
	ReactsToECN bool
}

// schedulers are the RNIC schedulers, in listing order.
var schedulers = []Scheduler{
	{Plugin: scenario.Plugin{Name: "fair", Doc: "packet-level round robin over QPs, all data in one class (reference model)", Params: scenario.NewNoParams},
		// Under compat: hpcc-ns3 Build runs ns-3's own round robin
		// (baselines.NS3Fair) with ns-3's transmit loop instead.
		New: classScheduler(baselines.NewFair)},
	{Plugin: scenario.Plugin{Name: "fair-message", Doc: "round robin over QPs, serving a whole message before moving on", Params: scenario.NewNoParams},
		New: classScheduler(baselines.NewFairMessage)},
	sizeScheduler("srpt", "NIC SRPT: least remaining bytes first, classes by remaining size (thresholds [] = equal split of the workload's CDF)",
		baselines.DefaultSRPTParams, func(p *baselines.SRPTParams) *[]int64 { return &p.Thresholds },
		sizeSplit{levels: fabric.NumClasses - 1}, baselines.NewSRPT),
	sizeScheduler("pias", "PIAS: MLFQ by bytes sent (thresholds [] = the PIAS table for the workload, else its equal split into 4)",
		baselines.DefaultPIASParams, func(p *baselines.PIASParams) *[]int64 { return &p.Thresholds },
		sizeSplit{levels: 4, table: "pias"}, baselines.NewPIAS),
	stormScheduler(storm.Full, "STORM: backlog-then-size urgency, three wire priorities, first-BDP rule, receiver grants"),
	stormScheduler(storm.SenderOnly, "STORM sender-only: dynamic priorities and the first-BDP rule, no grants (ConnectX-6 testbed)"),
	stormScheduler(storm.Software, "STORM software-only: class chosen by host software at post time, round robin in class, no grants"),
}

// classScheduler is the constructor of a scheduler without knobs that
// sends all data in nic.data_class.
func classScheduler[S rnic.Scheduler](newSched func(class uint8) S) func(*scenario.Scenario, any, int64) (func(*rnic.Host) rnic.Scheduler, error) {
	return func(s *scenario.Scenario, _ any, _ int64) (func(*rnic.Host) rnic.Scheduler, error) {
		class := uint8(s.NIC.DataClass)
		return func(*rnic.Host) rnic.Scheduler { return newSched(class) }, nil
	}
}

// stormScheduler is one STORM variant with its own defaults.
func stormScheduler(v storm.Variant, doc string) Scheduler {
	return Scheduler{Plugin: scenario.Plugin{Name: string(v), Doc: doc,
		Params:   func(engine.Rate) any { p := storm.DefaultParamsFor(v); return &p },
		Validate: func(params any) error { return fieldError(params.(*storm.Params).Validate()) }},
		New: func(_ *scenario.Scenario, params any, bdp int64) (func(*rnic.Host) rnic.Scheduler, error) {
			return storm.New(*params.(*storm.Params), storm.Env{BDP: bdp}), nil
		},
		Counters: storm.Counters}
}

// sizeSplit is how a size-aware scheduler's thresholds default when the
// scenario gives none ("thresholds: []"): from the main workload, into
// levels classes, with PIAS's published table first when table is "pias"
// (workloadSplit).
type sizeSplit struct {
	levels int
	table  string
}

// sizeScheduler is a size-aware scheduler (SRPT, PIAS) whose params P
// hold size thresholds. An empty list means "from the workload": it is
// validated as the package defaults (the workload is not known to the
// plugin's own check) and built as the workload's split. This rule is
// written here once for both.
func sizeScheduler[P validator](name, doc string, defaults func() P, thresholds func(*P) *[]int64, split sizeSplit,
	build func(P) func(*rnic.Host) rnic.Scheduler) Scheduler {
	return Scheduler{Plugin: scenario.Plugin{Name: name, Doc: doc,
		Params: func(engine.Rate) any { p := defaults(); *thresholds(&p) = nil; return &p },
		Validate: func(params any) error {
			p := *params.(*P)
			if t := thresholds(&p); len(*t) == 0 {
				*t = *thresholds(ptr(defaults()))
			}
			return fieldError(p.Validate())
		}},
		New: func(s *scenario.Scenario, params any, _ int64) (func(*rnic.Host) rnic.Scheduler, error) {
			p := *params.(*P)
			if t := thresholds(&p); len(*t) == 0 {
				split, err := workloadSplit(s, split.levels, split.table, *thresholds(ptr(defaults())))
				if err != nil {
					return nil, fmt.Errorf("nic.%s.thresholds: %v", name, err)
				}
				*t = split
			}
			return build(p), nil
		},
		Counters: baselines.Counters}
}

func ptr[T any](v T) *T { return &v }

// fieldError turns a plugin's *cc.ParamError into a FieldError on its key.
func fieldError(err error) error {
	var pe *cc.ParamError
	if errors.As(err, &pe) {
		return &scenario.FieldError{Path: pe.Field, Msg: pe.Msg}
	}
	return err
}

// algorithms are the congestion-control algorithms, in listing order.
var algorithms = []Algorithm{
	{Plugin: scenario.Plugin{Name: "none", Doc: "no congestion control: every QP sends at line rate", Params: scenario.NewNoParams},
		Spec: func(any) cc.Spec { return none.Spec(none.Params{}) }},
	reactsToECN(ccAlgorithm("dcqcn", "DCQCN, Mellanox variant (reference CC mode 1): ECN/CNP-driven rate control", dcqcn.DefaultParams, dcqcn.Spec)),
	ccAlgorithm("hpcc", "HPCC (reference CC mode 3): INT-driven window and rate", hpcc.DefaultParams, hpcc.Spec),
	ccAlgorithm("timely", "TIMELY as in the reference model (CC mode 7): RTT-gradient rate control", timely.DefaultParams, timely.Spec),
	withECN(reactsToECN(ccAlgorithm("dctcp", "rate-based hardware DCTCP (reference CC mode 8): ECN-fraction rate control; switch ECN defaults K = 300KB at 100G, pmax 1",
		dctcp.DefaultParams, dctcp.Spec)), scenario.ECN{BaseRate: scenario.Rate(100 * engine.Gbps), KMin: scenario.Size(300 * engine.KB), KMax: scenario.Size(300 * engine.KB), PMax: 1}),
}

func reactsToECN(a Algorithm) Algorithm {
	a.ReactsToECN = true
	return a
}

func withECN(a Algorithm, e scenario.ECN) Algorithm {
	a.ECN = &e
	return a
}

// validator is a plugin's Params: its Validate returns a *cc.ParamError
// naming the field.
type validator interface{ Validate() error }

// ccAlgorithm is an algorithm whose Params type P has DefaultParams, a
// Validate method returning *cc.ParamError, and a Spec.
func ccAlgorithm[P validator](name, doc string, defaults func(engine.Rate) P, spec func(P) cc.Spec) Algorithm {
	return Algorithm{Plugin: scenario.Plugin{Name: name, Doc: doc,
		Params:   func(r engine.Rate) any { p := defaults(r); return &p },
		Validate: func(params any) error { return fieldError((*params.(*P)).Validate()) }},
		Spec: func(params any) cc.Spec { return spec(*params.(*P)) },
	}
}

// Router is one routing function of the fabric: how a switch picks among
// equal-cost next hops. switch.routing.kind names one; without
// switch.routing (or with kind ecmp) the switches hash flows by ECMP,
// with the reference model's hash under the ns-3 profile's ecmp rule
// (ns3Rules.router). A new router is its fabric code and one line in
// routers.
type Router struct {
	scenario.RouterKind
	// New builds the router for a topology and the scenario's
	// switch.routing; eng gives named random streams.
	New func(eng *engine.Sim, topo *fabric.Topology, r *scenario.Routing) fabric.Router
}

// routers are the routing functions switch.routing.kind may name, in
// listing order. Adaptive routing and ECMP draw their tie-breaking salt
// from the "ecmp" stream; spraying draws every packet's next hop from the
// "spray" stream.
var routers = []Router{
	{RouterKind: scenario.RouterKind{Name: scenario.RoutingECMP, Doc: "per-flow ECMP by a salted hash of the flow's five-tuple"},
		New: func(eng *engine.Sim, _ *fabric.Topology, _ *scenario.Routing) fabric.Router {
			return fabric.ECMP{Salt: eng.Rand("ecmp").Uint32()}
		}},
	{RouterKind: scenario.RouterKind{Name: scenario.RoutingAdaptive, Doc: "per-flowlet adaptive routing by local egress occupancy", Diverts: true},
		New: func(eng *engine.Sim, _ *fabric.Topology, r *scenario.Routing) fabric.Router {
			return &fabric.Adaptive{Salt: eng.Rand("ecmp").Uint32(), FlowletGap: r.FlowletGap.T(), FlowletSlots: r.FlowletSlots}
		}},
	{RouterKind: scenario.RouterKind{Name: scenario.RoutingSpray, Doc: "per-packet spraying over the equal-cost next hops", PerPacket: true, Diverts: true},
		New: func(eng *engine.Sim, _ *fabric.Topology, _ *scenario.Routing) fabric.Router {
			return fabric.Spray{Rand: eng.Rand("spray").Uint32}
		}},
}

// ns3ECMPRouter is ECMP with the reference model's hash over its node ids
// (the ns-3 profile's ecmp rule).
var ns3ECMPRouter = Router{RouterKind: scenario.RouterKind{Name: "ns3-ecmp", Doc: "the reference model's ECMP hash over its node ids (compat: hpcc-ns3)"},
	New: func(_ *engine.Sim, topo *fabric.Topology, _ *scenario.Routing) fabric.Router {
		return fabric.NewNS3ECMP(topo)
	}}

// schedulerCounters are every scheduler's counters in s's catalog over
// hosts, each implementation's once.
func schedulerCounters(cat *scenario.Catalog, hosts []*rnic.Host, into map[string]int64) {
	seen := map[uintptr]bool{}
	for _, p := range cat.Schedulers {
		sch, ok := p.Impl.(*Scheduler)
		if !ok || sch.Counters == nil {
			continue
		}
		if id := reflect.ValueOf(sch.Counters).Pointer(); !seen[id] {
			seen[id] = true
			for k, v := range sch.Counters(hosts) {
				into[k] = v
			}
		}
	}
}

// workloadSplit derives size thresholds for a size-aware scheduler from
// the main workload: PIAS's published table for that distribution when
// table is "pias" and one exists (docs/model.md §6.4), else the equal-count
// split of its CDF into levels classes (docs/model.md §6.3, §6.4). A workload
// with no size distribution (incast, flow list, training) gets fallback.
func workloadSplit(s *scenario.Scenario, levels int, table string, fallback []int64) ([]int64, error) {
	w := &s.Workload
	if w.Kind != scenario.Cloud {
		return fallback, nil
	}
	if table == "pias" {
		if t, ok := baselines.PIASTable(w.Distribution, levels); ok {
			return t, nil
		}
	}
	cdf, err := cloud.Load(w.Distribution)
	if err != nil {
		return nil, err
	}
	return baselines.EqualSplit(cdf.Quantile, levels)
}

// Tables are the plugin tables a catalog is made of: the built-in ones
// (Builtin), or those and a test's or a program's own.
type Tables struct {
	Schedulers []Scheduler
	Algorithms []Algorithm
	Workloads  []WorkloadKind
	Routers    []Router
}

// Builtin are the built-in plugin tables, fresh copies.
func Builtin() Tables {
	return Tables{Schedulers: append([]Scheduler(nil), schedulers...), Algorithms: append([]Algorithm(nil), algorithms...),
		Workloads: append([]WorkloadKind(nil), workloadKinds...), Routers: append([]Router(nil), routers...)}
}

// Catalog is the schema of t's plugins for package scenario, each entry
// pointing back to its descriptor here (Plugin.Impl), which Build uses.
func (t Tables) Catalog() *scenario.Catalog {
	return &scenario.Catalog{Distributions: distributions(), SimAIModels: simaiModels(), Costs: costs,
		Schedulers: schemas(t.Schedulers, func(d *Scheduler) scenario.Plugin { p := d.Plugin; p.Impl = d; return p }),
		Algorithms: schemas(t.Algorithms, func(d *Algorithm) scenario.Plugin { p := d.Plugin; p.Impl = d; return p }),
		Routers:    schemas(t.Routers, func(d *Router) scenario.RouterKind { k := d.RouterKind; k.Impl = d; return k }),
		Workloads:  schemas(t.Workloads, func(d *WorkloadKind) scenario.WorkloadKind { k := d.WorkloadKind; k.Impl = d; return k }),
	}
}

// schemas are the schema entries of descriptors ds, each made by entry
// from a pointer into ds, which it keeps as the entry's Impl.
func schemas[D, E any](ds []D, entry func(*D) E) []E {
	out := make([]E, len(ds))
	for i := range ds {
		out[i] = entry(&ds[i])
	}
	return out
}

var builtinCatalog = Builtin().Catalog()

// Catalog is the catalog of the built-in plugins, the one every command
// parses scenarios with. The same value on every call, so that scenarios
// parsed apart compare equal.
func Catalog() *scenario.Catalog { return builtinCatalog }

// costs is fabric's memory model, for scenario's bounds.
var costs = scenario.Costs{
	MaxSwitchPorts: fabric.MaxSwitchPorts,
	Footprint: func(hosts, switches, links, routeBytes int64) scenario.Footprint {
		return scenario.Footprint(fabric.EstimateFootprint(hosts, switches, links, routeBytes))
	},
	UpDownRouteBytes:       fabric.UpDownRouteBytes,
	ShortestPathRouteBytes: fabric.ShortestPathRouteBytes,
	FlowletSlotBytes:       fabric.FlowletSlotBytes,
	FlowSlotBytes:          isolation.FlowSlotBytes,
	ARNBytes:               isolation.ARNBytes,
}

func distributions() []scenario.Distribution {
	var out []scenario.Distribution
	for _, d := range cloud.Describe() {
		out = append(out, scenario.Distribution{Name: d.Name, Title: d.Title, MeanLinear: d.MeanLinear, Max: d.Max})
	}
	return out
}

func simaiModels() []string {
	var out []string
	for _, m := range simai.Models() {
		out = append(out, m.Name)
	}
	return out
}

// impl is the descriptor of a catalog entry made by Tables.Catalog; any
// other entry (a catalog made by hand) is a bug and panics.
func impl[T any](what, name string, p any) *T {
	d, ok := p.(*T)
	if !ok {
		panic(fmt.Sprintf("wiring: %s %q has no wiring descriptor (make catalogs with wiring.Tables.Catalog)", what, name))
	}
	return d
}

// schedulerOf, algorithmOf and workloadKindOf are the descriptors of the
// plugins a validated scenario names.
func schedulerOf(s *scenario.Scenario) *Scheduler {
	p, _ := s.Catalog().Scheduler(s.NIC.Scheduler)
	return impl[Scheduler]("scheduler", s.NIC.Scheduler, p.Impl)
}

func algorithmOf(s *scenario.Scenario) *Algorithm {
	p, _ := s.Catalog().Algorithm(s.CC.Algorithm)
	return impl[Algorithm]("algorithm", s.CC.Algorithm, p.Impl)
}

func workloadKindOf(s *scenario.Scenario, w *scenario.Workload) *WorkloadKind {
	k, _ := s.Catalog().WorkloadKind(w.Kind)
	return impl[WorkloadKind]("workload kind", w.Kind, k.Impl)
}

// routerFor is the scenario's router: switch.routing's when it names one
// other than ECMP, else ECMP, with the reference model's hash when
// ns3Hash (the ns-3 profile's ecmp rule) and dcsim's salted one when not.
func routerFor(s *scenario.Scenario, ns3Hash bool) *Router {
	if r := s.Switch.Routing; r != nil && r.Kind != scenario.RoutingECMP {
		k, _ := s.Catalog().Router(r.Kind)
		return impl[Router]("router", r.Kind, k.Impl)
	}
	if ns3Hash {
		return &ns3ECMPRouter
	}
	return &routers[0]
}
