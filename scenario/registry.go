package scenario

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/cc/dcqcn"
	"github.com/dcsim/dcsim/cc/dctcp"
	"github.com/dcsim/dcsim/cc/hpcc"
	"github.com/dcsim/dcsim/cc/timely"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/sched/storm"
)

// Plugin is one implementation a scenario can select by name: an RNIC
// scheduler (nic.scheduler) or a congestion-control algorithm
// (cc.algorithm). Its knobs live in a sub-map under its own name
// (nic.storm: {...}, cc.dcqcn: {...}), decoded strictly into the struct
// that Params returns.
type Plugin struct {
	// Name is what nic.scheduler or cc.algorithm says, and the key of the
	// sub-map; lower case, words joined by '-'.
	Name string
	// Doc is one line for listings.
	Doc string
	// Params returns a new pointer to the plugin's parameter struct, filled
	// with its defaults for a NIC of rate lineRate (REFERENCE.md scales
	// several defaults with the rate). Exported fields carry snake_case
	// yaml tags. engine.Time and engine.Rate fields read and print with
	// units like Duration and Rate; other fields as plain YAML values (so a
	// byte count is an int64 written as a number). A parameter struct
	// cannot use this package's types: plugins sit below scenario.
	Params func(lineRate engine.Rate) any
	// Validate checks decoded params (the pointer Params returned); nil
	// checks nothing. A *FieldError's Path is relative to the sub-map
	// ("slots_backlog"), so the error lands on that field's line.
	Validate func(params any) error
	// ECN, for a congestion-control algorithm, is the switch marking its
	// reference runs use (REFERENCE.md 3.4), given at ECN.BaseRate: it
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

// schedulers are the RNIC schedulers, in listing order. Adding one is one
// line here.
var schedulers = []Plugin{
	{Name: "fair", Doc: "packet-level round robin over QPs, all data in one class (reference model)", Params: noParams},
	{Name: "fair-message", Doc: "round robin over QPs, serving a whole message before moving on", Params: noParams},
	{Name: "srpt", Doc: "NIC SRPT: least remaining bytes first, classes by remaining size (thresholds [] = equal split of the workload's CDF)",
		Params: func(engine.Rate) any { p := baselines.DefaultSRPTParams(); p.Thresholds = nil; return &p },
		Validate: func(params any) error {
			p := *params.(*baselines.SRPTParams)
			if len(p.Thresholds) == 0 {
				p.Thresholds = baselines.DefaultSRPTParams().Thresholds
			}
			return fieldError(p.Validate())
		}},
	{Name: "pias", Doc: "PIAS: MLFQ by bytes sent (thresholds [] = the PIAS table for the workload, else its equal split into 4)",
		Params: func(engine.Rate) any { p := baselines.DefaultPIASParams(); p.Thresholds = nil; return &p },
		Validate: func(params any) error {
			p := *params.(*baselines.PIASParams)
			if len(p.Thresholds) == 0 {
				p.Thresholds = baselines.DefaultPIASParams().Thresholds
			}
			return fieldError(p.Validate())
		}},
	stormPlugin(storm.Full, "STORM: backlog-then-size urgency, three wire priorities, first-BDP rule, receiver grants"),
	stormPlugin(storm.SenderOnly, "STORM sender-only: dynamic priorities and the first-BDP rule, no grants (ConnectX-6 testbed)"),
	stormPlugin(storm.Software, "STORM software-only: class chosen by host software at post time, round robin in class, no grants"),
}

// stormPlugin registers one STORM variant with its own defaults.
func stormPlugin(v storm.Variant, doc string) Plugin {
	return Plugin{Name: string(v), Doc: doc,
		Params:   func(engine.Rate) any { p := storm.DefaultParamsFor(v); return &p },
		Validate: func(params any) error { return fieldError(params.(*storm.Params).Validate()) }}
}

// fieldError turns a plugin's *cc.ParamError into a FieldError on its key.
func fieldError(err error) error {
	var pe *cc.ParamError
	if errors.As(err, &pe) {
		return &FieldError{Path: pe.Field, Msg: pe.Msg}
	}
	return err
}

// algorithms are the congestion-control algorithms, in listing order.
// Adding one is one line here.
var algorithms = []Plugin{
	{Name: "none", Doc: "no congestion control: every QP sends at line rate", Params: noParams},
	reactsToECN(ccPlugin("dcqcn", "DCQCN, Mellanox variant (reference CC mode 1): ECN/CNP-driven rate control", dcqcn.DefaultParams)),
	ccPlugin("hpcc", "HPCC (reference CC mode 3): INT-driven window and rate", hpcc.DefaultParams),
	ccPlugin("timely", "TIMELY as in the reference model (CC mode 7): RTT-gradient rate control", timely.DefaultParams),
	withECN(reactsToECN(ccPlugin("dctcp", "rate-based hardware DCTCP (reference CC mode 8): ECN-fraction rate control; switch ECN defaults K = 300KB at 100G, pmax 1",
		dctcp.DefaultParams)), ECN{BaseRate: Rate(100 * engine.Gbps), KMin: Size(300 * engine.KB), KMax: Size(300 * engine.KB), PMax: 1}),
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

// ccPlugin registers an algorithm whose Params type P has DefaultParams
// and a Validate method returning *cc.ParamError.
func ccPlugin[P validator](name, doc string, defaults func(engine.Rate) P) Plugin {
	return Plugin{Name: name, Doc: doc,
		Params:   func(r engine.Rate) any { p := defaults(r); return &p },
		Validate: func(params any) error { return fieldError((*params.(*P)).Validate()) },
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
