package scenario

import (
	"errors"
	"fmt"
	"github.com/dcsim/dcsim/workloads/cloud"
	"reflect"
	"strings"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/cc/dcqcn"
	"github.com/dcsim/dcsim/cc/dctcp"
	"github.com/dcsim/dcsim/cc/hpcc"
	"github.com/dcsim/dcsim/cc/none"
	"github.com/dcsim/dcsim/cc/timely"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/sched/storm"
)

// Plugin is one implementation a scenario can select by name: an RNIC
// scheduler (nic.scheduler) or a congestion-control algorithm
// (cc.algorithm). Its knobs live in a sub-map under its own name
// (nic.storm: {...}, cc.dcqcn: {...}), decoded strictly into the struct
// that Params returns. An entry carries everything the scenario needs of
// the implementation: its name, doc line, parameters with their defaults,
// their validation, its constructor and its run.parquet counters; adding
// an implementation is one entry in this file plus its own package
// (TestTestOnlySchedulerRuns registers one and runs it end to end).
type Plugin struct {
	// Name is what nic.scheduler or cc.algorithm says, and the key of the
	// sub-map; lower case, words joined by '-'.
	Name string
	// Doc is one line for listings.
	Doc string
	// Params returns a new pointer to the plugin's parameter struct, filled
	// with its defaults for a NIC of rate lineRate (docs/model.md §5 scales
	// several defaults with the rate). Exported fields carry snake_case yaml
	// tags. engine.Time and engine.Rate fields read and print with
	// units like Duration and Rate; other fields as plain YAML values (so a
	// byte count is an int64 written as a number). A parameter struct
	// cannot use this package's types: plugins sit below scenario.
	Params func(lineRate engine.Rate) any
	// Validate checks decoded params (the pointer Params returned); nil
	// checks nothing. A *FieldError's Path is relative to the sub-map
	// ("slots_backlog"), so the error lands on that field's line.
	Validate func(params any) error

	// NewScheduler, for a scheduler, builds every host's scheduler from
	// the decoded params of a validated scenario; bdp is the topology's
	// maxBdp at the scenario's MTU. An error names the field.
	NewScheduler func(s *Scenario, params any, bdp int64) (func(h *rnic.Host) rnic.Scheduler, error)
	// Counters, for a scheduler, sums its component counters over the
	// hosts for run.parquet's counters map; nil has none. Every registered
	// scheduler's counters are reported, whichever one runs, so that the
	// counters map has the same keys in every run.
	Counters func(hosts []*rnic.Host) map[string]int64

	// Spec, for a congestion-control algorithm, is the cc.Spec of the
	// decoded params.
	Spec func(params any) cc.Spec
	// ECN, for a congestion-control algorithm, is the switch marking its
	// reference runs use (docs/model.md §3.4), given at ECN.BaseRate: it
	// replaces the switch.ecn defaults for each of kmin, kmax and pmax the
	// scenario does not give. nil keeps the switch defaults.
	ECN *ECN
	// ReactsToECN, for a congestion-control algorithm, says that it acts
	// on ECN marks (DCQCN's CNPs, DCTCP's ECE). Without it receivers send
	// no congestion notification (rnic.CNPNone): switches still mark, but
	// a run reports no CNPs that nothing uses.
	ReactsToECN bool
}

// NoParams is the parameter struct of a plugin without knobs; it prints
// as "{}".
type NoParams struct{}

func noParams(engine.Rate) any { return &NoParams{} }

// schedulers are the RNIC schedulers, in listing order.
var schedulers = []Plugin{
	{Name: "fair", Doc: "packet-level round robin over QPs, all data in one class (reference model)", Params: noParams,
		NewScheduler: func(s *Scenario, _ any, _ int64) (func(*rnic.Host) rnic.Scheduler, error) {
			class := uint8(s.NIC.DataClass)
			// Under compat: hpcc-ns3 wiring runs ns-3's own round robin
			// (baselines.NS3Fair) with ns-3's transmit loop instead.
			return func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(class) }, nil
		}},
	{Name: "fair-message", Doc: "round robin over QPs, serving a whole message before moving on", Params: noParams,
		NewScheduler: func(s *Scenario, _ any, _ int64) (func(*rnic.Host) rnic.Scheduler, error) {
			class := uint8(s.NIC.DataClass)
			return func(*rnic.Host) rnic.Scheduler { return baselines.NewFairMessage(class) }, nil
		}},
	sizePlugin("srpt", "NIC SRPT: least remaining bytes first, classes by remaining size (thresholds [] = equal split of the workload's CDF)",
		baselines.DefaultSRPTParams, func(p *baselines.SRPTParams) *[]int64 { return &p.Thresholds },
		sizeSplit{levels: fabric.NumClasses - 1}, baselines.NewSRPT),
	sizePlugin("pias", "PIAS: MLFQ by bytes sent (thresholds [] = the PIAS table for the workload, else its equal split into 4)",
		baselines.DefaultPIASParams, func(p *baselines.PIASParams) *[]int64 { return &p.Thresholds },
		sizeSplit{levels: 4, table: "pias"}, baselines.NewPIAS),
	stormPlugin(storm.Full, "STORM: backlog-then-size urgency, three wire priorities, first-BDP rule, receiver grants"),
	stormPlugin(storm.SenderOnly, "STORM sender-only: dynamic priorities and the first-BDP rule, no grants (ConnectX-6 testbed)"),
	stormPlugin(storm.Software, "STORM software-only: class chosen by host software at post time, round robin in class, no grants"),
}

// stormPlugin registers one STORM variant with its own defaults.
func stormPlugin(v storm.Variant, doc string) Plugin {
	return Plugin{Name: string(v), Doc: doc,
		Params:   func(engine.Rate) any { p := storm.DefaultParamsFor(v); return &p },
		Validate: func(params any) error { return fieldError(params.(*storm.Params).Validate()) },
		NewScheduler: func(_ *Scenario, params any, bdp int64) (func(*rnic.Host) rnic.Scheduler, error) {
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

// sizePlugin registers a size-aware scheduler (SRPT, PIAS) whose params P
// hold size thresholds. An empty list means "from the workload": it is
// validated as the package defaults (the workload is not known to the
// plugin's own check) and built as the workload's split. This rule is
// written here once for both.
func sizePlugin[P validator](name, doc string, defaults func() P, thresholds func(*P) *[]int64, split sizeSplit,
	build func(P) func(*rnic.Host) rnic.Scheduler) Plugin {
	return Plugin{Name: name, Doc: doc,
		Params: func(engine.Rate) any { p := defaults(); *thresholds(&p) = nil; return &p },
		Validate: func(params any) error {
			p := *params.(*P)
			if t := thresholds(&p); len(*t) == 0 {
				*t = *thresholds(ptr(defaults()))
			}
			return fieldError(p.Validate())
		},
		NewScheduler: func(s *Scenario, params any, _ int64) (func(*rnic.Host) rnic.Scheduler, error) {
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
		return &FieldError{Path: pe.Field, Msg: pe.Msg}
	}
	return err
}

// algorithms are the congestion-control algorithms, in listing order.
var algorithms = []Plugin{
	{Name: "none", Doc: "no congestion control: every QP sends at line rate", Params: noParams,
		Spec: func(any) cc.Spec { return none.Spec(none.Params{}) }},
	reactsToECN(ccPlugin("dcqcn", "DCQCN, Mellanox variant (reference CC mode 1): ECN/CNP-driven rate control", dcqcn.DefaultParams, dcqcn.Spec)),
	ccPlugin("hpcc", "HPCC (reference CC mode 3): INT-driven window and rate", hpcc.DefaultParams, hpcc.Spec),
	ccPlugin("timely", "TIMELY as in the reference model (CC mode 7): RTT-gradient rate control", timely.DefaultParams, timely.Spec),
	withECN(reactsToECN(ccPlugin("dctcp", "rate-based hardware DCTCP (reference CC mode 8): ECN-fraction rate control; switch ECN defaults K = 300KB at 100G, pmax 1",
		dctcp.DefaultParams, dctcp.Spec)), ECN{BaseRate: Rate(100 * engine.Gbps), KMin: Size(300 * engine.KB), KMax: Size(300 * engine.KB), PMax: 1}),
}

func reactsToECN(p Plugin) Plugin {
	p.ReactsToECN = true
	return p
}

func withECN(p Plugin, e ECN) Plugin {
	p.ECN = &e
	return p
}

// applyECNDefaults gives the switch the active CC algorithm's ECN
// thresholds (scaled to switch.ecn.base_rate) for each of kmin, kmax and
// pmax that set does not name: a DCTCP run marks at K = 300KB per 100
// Gbps unless the scenario says otherwise. set reports whether the
// scenario (file, base or --set) gives a field by its dotted path.
func applyECNDefaults(s *Scenario, set func(path string) bool) {
	alg, ok := LookupAlgorithm(s.CC.Algorithm)
	if !ok || alg.ECN == nil || s.Switch.ECN.BaseRate <= 0 {
		return // an unknown algorithm or a bad rate is Validate's to report
	}
	e, p := &s.Switch.ECN, alg.ECN
	base, from := engine.Rate(e.BaseRate), engine.Rate(p.BaseRate)
	if !set("switch.ecn.kmin") {
		e.KMin = Size(scaleBytes(int64(p.KMin), base, from))
	}
	if !set("switch.ecn.kmax") {
		e.KMax = Size(scaleBytes(int64(p.KMax), base, from))
	}
	if !set("switch.ecn.pmax") {
		e.PMax = p.PMax
	}
}

// validator is a CC algorithm's Params: its Validate returns a
// *cc.ParamError naming the field.
type validator interface{ Validate() error }

// ccPlugin registers an algorithm whose Params type P has DefaultParams,
// a Validate method returning *cc.ParamError, and a Spec.
func ccPlugin[P validator](name, doc string, defaults func(engine.Rate) P, spec func(P) cc.Spec) Plugin {
	return Plugin{Name: name, Doc: doc,
		Params:   func(r engine.Rate) any { p := defaults(r); return &p },
		Validate: func(params any) error { return fieldError((*params.(*P)).Validate()) },
		Spec:     func(params any) cc.Spec { return spec(*params.(*P)) },
	}
}

// Schedulers lists the RNIC schedulers nic.scheduler may name.
func Schedulers() []Plugin { return append([]Plugin(nil), schedulers...) }

// Algorithms lists the congestion-control algorithms cc.algorithm may name.
func Algorithms() []Plugin { return append([]Plugin(nil), algorithms...) }

// LookupScheduler returns the scheduler called name.
func LookupScheduler(name string) (Plugin, bool) { return lookup(schedulers, name) }

// LookupAlgorithm returns the congestion-control algorithm called name.
func LookupAlgorithm(name string) (Plugin, bool) { return lookup(algorithms, name) }

func lookup(table []Plugin, name string) (Plugin, bool) {
	for _, p := range table {
		if p.Name == name {
			return p, true
		}
	}
	return Plugin{}, false
}

func mustPlugin(table []Plugin, name string) Plugin {
	p, ok := lookup(table, name)
	if !ok {
		panic(fmt.Sprintf("scenario: default plugin %q is not registered", name))
	}
	return p
}

func pluginNames(table []Plugin) string {
	names := make([]string, len(table))
	for i, p := range table {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// SetScheduler selects the RNIC scheduler called name, with its default
// parameters for the scenario's host link rate.
func (s *Scenario) SetScheduler(name string) error {
	p, ok := LookupScheduler(name)
	if !ok {
		return fmt.Errorf("nic.scheduler: unknown scheduler %q (valid: %s)", name, pluginNames(schedulers))
	}
	s.NIC.Scheduler, s.NIC.Params = name, p.Params(s.Topology.HostLink.R())
	return nil
}

// SetAlgorithm selects the congestion-control algorithm called name, with
// its default parameters for the scenario's host link rate.
func (s *Scenario) SetAlgorithm(name string) error {
	p, ok := LookupAlgorithm(name)
	if !ok {
		return fmt.Errorf("cc.algorithm: unknown algorithm %q (valid: %s)", name, pluginNames(algorithms))
	}
	s.CC.Algorithm, s.CC.Params = name, p.Params(s.Topology.HostLink.R())
	return nil
}

// Router is one routing function of the fabric: how a switch picks among
// equal-cost next hops. The scenario has no field that names one (adding
// such a field would change every run's scenario hash); the compat profile
// selects it, and a new router is one entry here plus its fabric code.
type Router struct {
	Name string
	Doc  string
	// Compat is the profile that selects this router.
	Compat string
	// New builds the router for a topology; eng gives named random streams.
	New func(eng *engine.Sim, topo *fabric.Topology) fabric.Router
}

// routers are the fabric's routers, one per compat profile.
var routers = []Router{
	{Name: "ecmp", Doc: "per-flow ECMP by a salted hash of the flow's five-tuple", Compat: CompatNone,
		New: func(eng *engine.Sim, _ *fabric.Topology) fabric.Router {
			return fabric.ECMP{Salt: eng.Rand("ecmp").Uint32()}
		}},
	{Name: "ns3-ecmp", Doc: "the reference model's ECMP hash over its node ids (compat: hpcc-ns3)", Compat: CompatHPCCNS3,
		New: func(_ *engine.Sim, topo *fabric.Topology) fabric.Router { return fabric.NewNS3ECMP(topo) }},
}

// adaptiveRouter is switch.routing's kind adaptive (fabric.Adaptive). It
// draws its tie-breaking salt from the "ecmp" stream, as ECMP does.
var adaptiveRouter = Router{Name: RoutingAdaptive, Doc: "per-flowlet adaptive routing by local egress occupancy",
	New: func(eng *engine.Sim, _ *fabric.Topology) fabric.Router {
		return &fabric.Adaptive{Salt: eng.Rand("ecmp").Uint32()}
	}}

// sprayRouter is switch.routing's kind spray (fabric.Spray), drawing
// every packet's next hop from the "spray" stream.
var sprayRouter = Router{Name: RoutingSpray, Doc: "per-packet spraying over the equal-cost next hops",
	New: func(eng *engine.Sim, _ *fabric.Topology) fabric.Router {
		return fabric.Spray{Rand: eng.Rand("spray").Uint32}
	}}

// RouterFor is the router of the scenario: switch.routing's when it names
// one, otherwise the compat profile's. Wiring sets the adaptive router's
// knobs from switch.routing.
func RouterFor(s *Scenario) Router {
	if r := s.Switch.Routing; r != nil && r.Kind == RoutingAdaptive {
		return adaptiveRouter
	}
	if r := s.Switch.Routing; r != nil && r.Kind == RoutingSpray {
		return sprayRouter
	}
	for _, r := range routers {
		if r.Compat == s.Compat {
			return r
		}
	}
	panic(fmt.Sprintf("scenario: compat %q has no router", s.Compat))
}

// SchedulerCounters are every registered scheduler's counters over hosts,
// each implementation's once.
func SchedulerCounters(hosts []*rnic.Host, into map[string]int64) {
	seen := map[uintptr]bool{}
	for _, p := range schedulers {
		if p.Counters == nil {
			continue
		}
		if id := reflect.ValueOf(p.Counters).Pointer(); !seen[id] {
			seen[id] = true
			for k, v := range p.Counters(hosts) {
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
func workloadSplit(s *Scenario, levels int, table string, fallback []int64) ([]int64, error) {
	w := &s.Workload
	if w.Kind != Cloud {
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

// MustScheduler is the registered scheduler called name, which a
// validated scenario names; anything else is a bug and panics.
func MustScheduler(name string) Plugin { return mustPlugin(schedulers, name) }

// MustAlgorithm is the registered congestion-control algorithm called
// name, which a validated scenario names; anything else panics.
func MustAlgorithm(name string) Plugin { return mustPlugin(algorithms, name) }

// AddScheduler registers p after the built-in schedulers, for a program
// or a test that brings its own (TestTestOnlySchedulerRuns in package
// wiring); remove takes it out again. A name already registered is a bug
// and panics. It is not safe to call while scenarios are parsed or built.
func AddScheduler(p Plugin) (remove func()) {
	if _, ok := lookup(schedulers, p.Name); ok {
		panic(fmt.Sprintf("scenario: scheduler %q is already registered", p.Name))
	}
	old := schedulers
	schedulers = append(append([]Plugin(nil), schedulers...), p)
	return func() { schedulers = old }
}
