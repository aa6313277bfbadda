package scenario

import (
	"fmt"
	"strings"

	"github.com/dcsim/dcsim/engine"
)

// Catalog is the schema's view of the plugins a program links in: every
// scheduler, congestion-control algorithm and workload kind a scenario
// may name, with what parsing, validation and printing need of each
// (name, doc line, parameters with their defaults, validation), and the
// few figures of the simulator's own model that validation checks
// against (Costs, the built-in size distributions and training models).
//
// scenario holds no catalog of its own: the composition root (package
// wiring, wiring.Catalog) makes one and hands it to Parse, Load and
// Default, which keep it in the Scenario they return, so Validate, YAML
// and Hash use the catalog the scenario was read with. A test or a
// program with a plugin of its own makes a catalog with one entry more;
// nothing is registered globally.
type Catalog struct {
	// Schedulers are the RNIC schedulers nic.scheduler may name, in
	// listing order; Algorithms the congestion-control algorithms of
	// cc.algorithm; Workloads the kinds of workload.kind.
	Schedulers []Plugin
	Algorithms []Plugin
	Workloads  []WorkloadKind
	// Routers are the routing functions switch.routing.kind may name.
	Routers []RouterKind
	// Distributions are the built-in flow-size distributions a
	// workload's distribution may name besides a CDF file, in name order.
	Distributions []Distribution
	// SimAIModels are the models simai.model may name.
	SimAIModels []string
	// Costs is the builder's memory model, for the bounds Validate puts
	// on a topology and its switch tables.
	Costs Costs
}

// Distribution is a built-in flow-size distribution, for validation and
// listings.
type Distribution struct {
	Name, Title string
	// MeanLinear is its mean under linear interpolation between points,
	// Max its largest flow, in bytes.
	MeanLinear float64
	Max        int64
}

// distributionNames are the built-in distributions' names.
func (c *Catalog) distributionNames() []string {
	names := make([]string, len(c.Distributions))
	for i, d := range c.Distributions {
		names[i] = d.Name
	}
	return names
}

// Costs is what validation needs of the network builder's memory model
// (fabric/footprint.go), so that a topology too large to build is refused
// with its field before Build allocates anything.
type Costs struct {
	// MaxSwitchPorts is the most ports a switch's port index holds.
	MaxSwitchPorts int64
	// Footprint estimates the memory of a network of hosts, switches and
	// links whose route tables take routeBytes.
	Footprint func(hosts, switches, links, routeBytes int64) Footprint
	// UpDownRouteBytes are the route tables of a tree with downEntries
	// entries below its switches; ShortestPathRouteBytes those of a
	// graph routed by shortest paths.
	UpDownRouteBytes       func(links, downEntries int64) int64
	ShortestPathRouteBytes func(switches, entries int64) int64
	// FlowletSlotBytes is a slot of adaptive routing's flowlet table,
	// FlowSlotBytes one of isolation's flow table, ARNBytes an ARN frame.
	FlowletSlotBytes, FlowSlotBytes, ARNBytes int64
}

// Footprint is an estimate of the memory a network needs, in bytes
// (fabric.Footprint).
type Footprint struct {
	Ports  int64 // the ports (two per link), their MMU accounting, the links
	Routes int64 // the route tables
	Hosts  int64 // per-host NIC state beyond its port
	Tables int64 // per-switch tables of routing and isolation
}

// Total is the sum, in bytes.
func (f Footprint) Total() int64 { return f.Ports + f.Routes + f.Hosts + f.Tables }

// Plugin is the schema of one implementation a scenario can select by
// name: an RNIC scheduler (nic.scheduler) or a congestion-control
// algorithm (cc.algorithm). Its knobs live in a sub-map under its own
// name (nic.storm: {...}, cc.dcqcn: {...}), decoded strictly into the
// struct that Params returns.
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
	// byte count is an int64 written as a number).
	Params func(lineRate engine.Rate) any
	// Validate checks decoded params (the pointer Params returned); nil
	// checks nothing. A *FieldError's Path is relative to the sub-map
	// ("slots_backlog"), so the error lands on that field's line.
	Validate func(params any) error
	// ECN, for a congestion-control algorithm, is the switch marking its
	// reference runs use (docs/model.md §3.4), given at ECN.BaseRate: it
	// replaces the switch.ecn defaults for each of kmin, kmax and pmax the
	// scenario does not give. nil keeps the switch defaults.
	ECN *ECN
	// Impl is the composition root's own descriptor of the plugin (its
	// constructor and counters); scenario never looks into it.
	Impl any
}

// NoParams is the parameter struct of a plugin without knobs; it prints
// as "{}".
type NoParams struct{}

// NewNoParams is Params for a plugin without knobs.
func NewNoParams(engine.Rate) any { return &NoParams{} }

// Scheduler returns the scheduler called name.
func (c *Catalog) Scheduler(name string) (Plugin, bool) { return lookup(c.Schedulers, name) }

// Algorithm returns the congestion-control algorithm called name.
func (c *Catalog) Algorithm(name string) (Plugin, bool) { return lookup(c.Algorithms, name) }

// WorkloadKind returns the workload kind called name.
func (c *Catalog) WorkloadKind(name string) (WorkloadKind, bool) {
	for _, k := range c.Workloads {
		if k.Name == name {
			return k, true
		}
	}
	return WorkloadKind{}, false
}

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
		panic(fmt.Sprintf("scenario: default plugin %q is not in the catalog", name))
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

// Catalog is the catalog the scenario was made with (Parse, Load, Default).
func (s *Scenario) Catalog() *Catalog { return s.cat }

// SetScheduler selects the RNIC scheduler called name, with its default
// parameters for the scenario's host link rate.
func (s *Scenario) SetScheduler(name string) error {
	return s.selectPlugin(&s.NIC, "nic.scheduler", &s.NIC.Scheduler, name)
}

// SetAlgorithm selects the congestion-control algorithm called name, with
// its default parameters for the scenario's host link rate.
func (s *Scenario) SetAlgorithm(name string) error {
	return s.selectPlugin(&s.CC, "cc.algorithm", &s.CC.Algorithm, name)
}

// selectPlugin sets h's selector field (path) to name and its parameters
// to that plugin's defaults.
func (s *Scenario) selectPlugin(h pluginHolder, path string, selector *string, name string) error {
	table, what := h.pluginTable(s.catalog())
	p, ok := lookup(table, name)
	if !ok {
		return fmt.Errorf("%s: unknown %s %q (valid: %s)", path, what, name, pluginNames(table))
	}
	*selector = name
	h.setParams(p.Params(s.Topology.HostLink.R()))
	return nil
}

// applyECNDefaults gives the switch the active CC algorithm's ECN
// thresholds (scaled to switch.ecn.base_rate) for each of kmin, kmax and
// pmax that set does not name: a DCTCP run marks at K = 300KB per 100
// Gbps unless the scenario says otherwise. set reports whether the
// scenario (file, base or --set) gives a field by its dotted path.
func applyECNDefaults(s *Scenario, set func(path string) bool) {
	alg, ok := s.cat.Algorithm(s.CC.Algorithm)
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

// catalog is s.cat, or an empty catalog for a Scenario made without one
// (which Validate refuses), so that printing it cannot panic.
func (s *Scenario) catalog() *Catalog {
	if s.cat == nil {
		return &Catalog{}
	}
	return s.cat
}
