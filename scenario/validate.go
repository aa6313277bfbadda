package scenario

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/dcsim/dcsim/engine"
)

// Limits that keep a scenario buildable; each is far beyond what a
// packet-level run can simulate.
const (
	maxMTU      = 9216 // bytes of payload per packet: jumbo frames (RoCE itself stops at 4096)
	maxFatTreeK = 160  // k^3/4 = 1,024,000 hosts
)

// Validate checks every field and returns the first problem, in schema
// order, as a *FieldError naming the field. It reads no files: a topology,
// flow list or CDF file is read, and checked, when the simulation is built.
// The checks of fields that have no effect in the scenario (a flowlet
// knob under ECMP) need to know which fields the input gave, and only
// Parse knows: Validate skips them.
func (s *Scenario) Validate() error { return s.validate(nil, nil) }

// validate is Validate given the sub-maps of other kinds that Parse found
// in each workload (misplaced), which a Scenario has no field for, and
// given, which reports whether the input (file or --set) gave a field by
// its dotted path; nil when not known.
func (s *Scenario) validate(misplaced map[*Workload][]string, given func(path string) bool) error {
	if s.cat == nil {
		return errNoCatalog
	}
	for _, check := range []func() *FieldError{
		s.validateTop,
		func() *FieldError { return s.Topology.validate(&s.cat.Costs) },
		s.Switch.validate,
		func() *FieldError { return s.validateRouting(given) },
		s.validateNIC,
		func() *FieldError { return s.Switch.Isolation.validate(s.NIC.DataClass) },
		func() *FieldError { return s.Switch.Isolation.validateARNKnobs(given) },
		s.validateIsolationCost,
		s.validateTables,
		func() *FieldError { return s.Switch.Queueing.validate(s.NIC.DataClass, s.Switch.Isolation) },
		func() *FieldError { return s.Switch.Credit.validate(s.Switch.PFC) },
		s.validateCC,
		func() *FieldError { return s.validateWorkloads(misplaced) },
		s.Trace.validate,
		s.validateTraceRows,
		s.Parallel.validate,
	} {
		if fe := check(); fe != nil {
			return fe
		}
	}
	return nil
}

// errNoCatalog is Validate's error for a Scenario made without a
// Catalog (a literal in Go): it cannot know the plugins' names.
var errNoCatalog = errors.New("scenario: made without a catalog: make scenarios with a Catalog's Parse, Load or Default")

// maxNameLen bounds a name, which becomes a directory name.
const maxNameLen = 128

// CheckName reports whether name can be a directory name under --out:
// dcsim run writes to out/NAME-HASH and dcsim sweep to out/NAME. It must
// be one path component that stays where it is put: not empty, "." or
// "..", no leading dot or dash, at most 128 bytes, and only letters,
// digits, spaces inside and "._+-=@,".
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("must not be empty: it names the output directory")
	case len(name) > maxNameLen:
		return fmt.Errorf("%d bytes long, above the limit of %d: it names the output directory", len(name), maxNameLen)
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" ._+-=@,", r) {
			return fmt.Errorf("%q has %q: a name is one directory name of letters, digits, spaces and ._+-=@, (no path separators)", name, r)
		}
	}
	switch {
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "-"):
		return fmt.Errorf("%q starts with %q: it names the output directory, which would be hidden or read as a flag", name, name[:1])
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("%q starts or ends with a space", name)
	}
	return nil
}

func oneOf(path, what, v string, valid []string) *FieldError {
	if slices.Contains(valid, v) {
		return nil
	}
	return fieldErr(path, "unknown %s %q (valid: %s)", what, v, strings.Join(valid, ", "))
}

// optionalOneOf is oneOf where the empty string (the default) is valid too.
func optionalOneOf(path, what, v string, valid []string) *FieldError {
	if v == "" {
		return nil
	}
	return oneOf(path, what, v, valid)
}

func positiveRate(path string, r Rate) *FieldError {
	if r <= 0 {
		return fieldErr(path, "must be a positive rate, got %v", r)
	}
	return nil
}

// nonNegativeTime rejects negative and, unless never is allowed, infinite
// times.
func nonNegativeTime(path string, d Duration, never bool) *FieldError {
	switch {
	case d < 0:
		return fieldErr(path, "must not be negative, got %v", d)
	case !never && d.T() == engine.Never:
		return fieldErr(path, "must be finite")
	}
	return nil
}

func nonNegativeSize(path string, sz Size) *FieldError {
	if sz < 0 {
		return fieldErr(path, "must not be negative, got %d", int64(sz))
	}
	return nil
}

func atLeast(path string, v, min int) *FieldError {
	if v < min {
		return fieldErr(path, "must be at least %d, got %d", min, v)
	}
	return nil
}

func between(path string, v, min, max int) *FieldError {
	if v < min || v > max {
		return fieldErr(path, "must be in [%d, %d], got %d", min, max, v)
	}
	return nil
}

// fraction checks 0 < v < 1; NaN fails too.
func fraction(path string, v float64) *FieldError {
	if !(v > 0 && v < 1) {
		return fieldErr(path, "%v is not in (0, 1)", v)
	}
	return nil
}

func firstErr(errs ...*FieldError) *FieldError {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (s *Scenario) validateTop() *FieldError {
	if s.Name != "" { // unnamed is allowed: dcsim run then writes to out/run-HASH
		if err := CheckName(s.Name); err != nil {
			return fieldErr("name", "%v", err)
		}
	}
	if fe := oneOf("compat", "compat profile", s.Compat, compatProfiles); fe != nil {
		return fe
	}
	if s.Duration <= 0 || s.Duration.T() == engine.Never {
		return fieldErr("duration", "must be positive and finite, got %v", s.Duration)
	}
	if fe := firstErr(
		nonNegativeTime("drain_limit", s.DrainLimit, true),
		nonNegativeTime("measure.warmup", s.Measure.Warmup, false),
	); fe != nil {
		return fe
	}
	if s.Measure.Warmup >= s.Duration {
		return fieldErr("measure.warmup", "%v is not before duration (%v)", s.Measure.Warmup, s.Duration)
	}
	return nil
}

func (t *Topology) validate(c *Costs) *FieldError {
	const p = "topology."
	if fe := oneOf(p+"kind", "topology kind", t.Kind, topologyKinds); fe != nil {
		return fe
	}
	// Counts are checked whatever the kind, so that no field holds a value
	// that would be wrong if the kind changed.
	if fe := firstErr(
		between(p+"leaves", t.Leaves, 1, maxHosts),
		between(p+"hosts_per_leaf", t.HostsPerLeaf, 1, maxHosts),
		between(p+"spines", t.Spines, 1, maxHosts),
		between(p+"hosts", t.Hosts, 2, maxHosts),
		between(p+"hosts_per_side", t.HostsPerSide, 1, maxHosts),
		between(p+"k", t.K, 2, maxFatTreeK),
	); fe != nil {
		return fe
	}
	if t.K%2 != 0 {
		return fieldErr(p+"k", "must be even, got %d", t.K)
	}
	if n, ok := t.HostCount(); ok && n > maxHosts {
		field := map[string]string{SpineLeaf: "hosts_per_leaf", Dumbbell: "hosts_per_side", FatTree: "k"}[t.Kind]
		return fieldErr(p+field, "%d hosts is more than the limit of %d", n, maxHosts)
	}
	if t.Kind == TopoFile && strings.TrimSpace(t.File) == "" {
		return fieldErr(p+"file", "required when topology.kind is file")
	}
	if fe := t.validateFootprint(c); fe != nil {
		return fe
	}
	return firstErr(
		positiveRate(p+"host_link", t.HostLink),
		positiveRate(p+"fabric_link", t.FabricLink),
		positiveRate(p+"bottleneck_link", t.BottleneckLink),
		nonNegativeTime(p+"link_delay", t.LinkDelay, false),
	)
}

// MaxBuildBytes bounds the memory a topology may need to be built:
// bigger ones are rejected at validation, with the estimate, instead of
// failing (or exhausting the machine) inside the builder.
const MaxBuildBytes = 8 << 30

// validateFootprint rejects a topology the builder cannot build within
// MaxBuildBytes or at all (a switch with more ports than a port index
// holds). A file topology is checked when it is read (Build).
func (t *Topology) validateFootprint(c *Costs) *FieldError {
	hosts, switches, links, routes, widest, field := t.shape(c)
	if field == "" {
		return nil
	}
	if widest > c.MaxSwitchPorts {
		return fieldErr("topology."+field, "a switch would have %d ports, more than the %d the builder can index", widest, c.MaxSwitchPorts)
	}
	return CheckFootprint("topology."+field, c.Footprint(hosts, switches, links, routes))
}

// shape counts what the builder makes of a generated topology: hosts,
// switches, links, the bytes of its route tables, the most ports of one
// switch, and the field that sizes it; field is "" for a file topology,
// known only once read.
func (t *Topology) shape(c *Costs) (hosts, switches, links, routes, widest int64, field string) {
	switch t.Kind {
	case SpineLeaf:
		l, sp, h := int64(t.Leaves), int64(t.Spines), int64(t.HostsPerLeaf)
		hosts, switches, links = l*h, l+sp, l*h+l*sp
		// up/down: every spine has every leaf below it
		routes = c.UpDownRouteBytes(links, sp*l)
		widest, field = max(h+sp, l), "hosts_per_leaf"
	case Star:
		hosts, switches, links, widest, field = int64(t.Hosts), 1, int64(t.Hosts), int64(t.Hosts), "hosts"
		routes = c.UpDownRouteBytes(links, 0)
	case Dumbbell:
		hosts, switches, links = 2*int64(t.HostsPerSide), 2, 2*int64(t.HostsPerSide)+1
		routes, widest, field = c.ShortestPathRouteBytes(2, 2), int64(t.HostsPerSide)+1, "hosts_per_side"
	case FatTree:
		k := int64(t.K)
		hosts, switches, links = k*k*k/4, 5*k*k/4, 3*k*k*k/4
		// up/down: an aggregation switch has its pod's k/2 leaves below
		// it, a core all k^2/2
		routes = c.UpDownRouteBytes(links, k*k/2*k/2+k*k/4*k*k/2)
		widest, field = k, "k"
	}
	return
}

// MaxSampleRows bounds the samples a traced run may write: about 10 GB of
// parquet, and far more rows than a notebook can load. Validate checks
// the rows of duration; the drain's are counted as the run writes them,
// and the run stops at the bound (wiring's sampler).
const MaxSampleRows = 1_000_000_000

// maxSampleInstants bounds the sampler's firings in the longest run the
// scenario allows (duration + drain_limit): each is an event that visits
// every port and QP, whether or not anything moved (trace.interval 1ps
// with duration 1us drained for up to 100 ms, 10^11 firings, ran for
// over 10 minutes).
const maxSampleInstants = 100_000_000

// validateTraceRows rejects a trace with drain_limit never, whose samples
// have no bound, and a trace.interval so short that the samples of the
// arrival period alone (duration / interval samples of each port's
// metrics, at least one QP a host for qp_rate, 5 rows for efficiency; the
// drain adds more) pass MaxSampleRows, or that the sampler fires more than
// maxSampleInstants times in duration + drain_limit. The rows are counted
// over duration only: a training run's drain_limit (10 s by default) is a
// bound on its work, not its length.
func (s *Scenario) validateTraceRows() *FieldError {
	iv := s.Trace.Interval.T()
	if iv <= 0 {
		return nil
	}
	if s.DrainLimit.T() == engine.Never { // the drain is unbounded, and so are its samples
		return fieldErr("trace.interval", "%v with drain_limit: never would sample for as long as the drain lasts, without bound: give drain_limit a duration", s.Trace.Interval)
	}
	if hosts, _, links, _, _, field := s.Topology.shape(&s.cat.Costs); field != "" {
		var perSample int64
		for _, m := range s.Trace.Metrics {
			switch m {
			case MetricQPRate:
				perSample += hosts
			case MetricEfficiency:
				perSample += 5 // efficiency, and injected and delivered Gbps of hot spots and others
			default:
				perSample += 2 * links
			}
		}
		if rows := float64(s.Duration.T()/iv) * float64(perSample); rows > MaxSampleRows {
			return fieldErr("trace.interval", "%v would write at least %.3g sample rows (%d a sample: ports x metrics, a QP a host for qp_rate; x %d samples in duration %v), above the limit of %.0e: use a longer interval",
				s.Trace.Interval, rows, perSample, s.Duration.T()/iv, s.Duration, float64(MaxSampleRows))
		}
	}
	horizon := s.Duration.T() + s.DrainLimit.T()
	if n := horizon / iv; n > maxSampleInstants {
		return fieldErr("trace.interval", "%v would sample %d times in duration + drain_limit (%v), above the limit of %.0e: use a longer interval",
			s.Trace.Interval, n, Duration(horizon), float64(maxSampleInstants))
	}
	return nil
}

// CheckFootprint rejects an estimate above MaxBuildBytes, naming the field
// that sized it.
func CheckFootprint(field string, f Footprint) *FieldError {
	if f.Total() <= MaxBuildBytes {
		return nil
	}
	gib := func(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
	tables := ""
	if f.Tables > 0 {
		tables = ", switch tables " + gib(f.Tables)
	}
	return fieldErr(field, "the network would need about %s to build (ports %s, route tables %s, hosts %s%s), above the builder's bound of %s",
		gib(f.Total()), gib(f.Ports), gib(f.Routes), gib(f.Hosts), tables, gib(MaxBuildBytes))
}

func (sw *Switch) validate() *FieldError {
	const p = "switch."
	if sw.Buffer <= 0 {
		return fieldErr(p+"buffer", "must be positive, got %d", int64(sw.Buffer))
	}
	if sw.PFCPauseTime <= 0 || sw.PFCPauseTime.T() == engine.Never {
		return fieldErr(p+"pfc_pause_time", "must be positive and finite, got %v", sw.PFCPauseTime)
	}
	if fe := firstErr(
		nonNegativeSize(p+"pfc_reserve", sw.PFCReserve),
		nonNegativeSize(p+"pfc_resume_offset", sw.PFCResumeOffset),
		oneOf(p+"pfc_headroom", "headroom rule", sw.PFCHeadroom, headroomRules),
		nonNegativeTime(p+"pfc_response_time", sw.PFCResponseTime, false),
		oneOf(p+"discipline", "discipline", sw.Discipline, disciplines),
	); fe != nil {
		return fe
	}
	for i, w := range sw.WRRWeights {
		if fe := atLeast(fmt.Sprintf("%swrr_weights[%d]", p, i), w, 1); fe != nil {
			return fe
		}
	}
	e := &sw.ECN
	if fe := firstErr(
		nonNegativeSize(p+"lossy_queue_limit", sw.LossyQueueLimit),
		positiveRate(p+"ecn.base_rate", e.BaseRate),
		nonNegativeSize(p+"ecn.kmin", e.KMin),
		nonNegativeSize(p+"ecn.kmax", e.KMax),
	); fe != nil {
		return fe
	}
	if e.KMin > e.KMax {
		return fieldErr(p+"ecn.kmin", "%v is above kmax (%v)", e.KMin, e.KMax)
	}
	if !(e.PMax >= 0 && e.PMax <= 1) {
		return fieldErr(p+"ecn.pmax", "%v is not in [0, 1]", e.PMax)
	}
	if fe := oneOf(p+"int", "int mode", sw.INT, intModes); fe != nil {
		return fe
	}
	return nil
}

// validateRouting checks switch.routing, which may route per packet only
// when the NIC's receiver is selective, and rejects a flowlet knob given a
// value other than its default where there are no flowlets (kind ecmp or
// spray): a sweep over it would give identical points. The default value
// is accepted even when given, since a printed scenario spells every
// default out and must read back.
func (s *Scenario) validateRouting(given func(string) bool) *FieldError {
	r := s.Switch.Routing
	if fe := r.validate(s.cat, s.NIC.SelectiveReceiver()); fe != nil || r == nil {
		return fe
	}
	const p = "switch.routing."
	if r.Kind != RoutingAdaptive {
		d := defaultRouting()
		if k := changedKnob(p, given, knob{"flowlet_gap", r.FlowletGap == d.FlowletGap}, knob{"flowlet_slots", r.FlowletSlots == d.FlowletSlots}); k != "" {
			return fieldErr(p+k, "has no effect under kind: %s (flowlets are adaptive routing's): remove it or set switch.routing.kind: adaptive", r.Kind)
		}
	}
	// A flowlet gap shorter than one packet's serialisation moves a flow
	// between packets, as a gap of 0 does: its packets overtake each other
	// and a go-back-N receiver NACKs them (flowlet_gap 1ps: 118,632 NACKs
	// and 6,432 of 20,661 flows unfinished). The host link is the rate a
	// QP's packets leave at; a file topology's rates are known only once
	// read, so it is not checked.
	if r.Kind == RoutingAdaptive && r.FlowletGap > 0 && !s.NIC.SelectiveReceiver() && s.Topology.Kind != TopoFile && s.Topology.HostLink > 0 {
		if min := s.Topology.HostLink.R().TxTime(int64(s.NIC.MTU)); r.FlowletGap.T() < min {
			return fieldErr(p+"flowlet_gap", "%v is shorter than one packet's serialisation (nic.mtu %d B at topology.host_link %v: %v), so it reorders a QP's packets as a gap of 0 does; it needs nic.receiver: selective, or a gap of at least %v",
				r.FlowletGap, s.NIC.MTU, s.Topology.HostLink, Duration(min), Duration(min))
		}
	}
	return nil
}

// validateARNKnobs rejects, as validateRouting does for flowlets, an ARN
// knob given a value other than its default under arn: false, where no
// ARN entry exists (fabric/isolation: a detector only counts): a sweep
// over it would give identical points.
func (c *Isolation) validateARNKnobs(given func(string) bool) *FieldError {
	if c == nil || c.ARN {
		return nil
	}
	const p = "switch.isolation."
	d := defaultIsolation()
	if k := changedKnob(p, given, knob{"arn_entry_lifetime", c.ARNEntryLifetime == d.ARNEntryLifetime}, knob{"arn_clear_on_normal", c.ARNClearOnNormal == d.ARNClearOnNormal}); k != "" {
		return fieldErr(p+k, "has no effect under arn: false (no ARN entries exist): remove it or set switch.isolation.arn: true")
	}
	return nil
}

// knob is a field, by its name under a prefix, and whether it holds its
// default.
type knob struct {
	name  string
	isDef bool
}

// changedKnob is the first of knobs (fields under prefix p) that the input
// gave a value other than its default, or "". The default is accepted
// even when given, since a printed scenario spells every default out and
// must read back; given is nil when not known (Validate), and then no
// knob is reported.
func changedKnob(p string, given func(string) bool, knobs ...knob) string {
	for _, k := range knobs {
		if given != nil && given(p+k.name) && !k.isDef {
			return k.name
		}
	}
	return ""
}

// validateIsolationCost bounds what switch.isolation costs to simulate: a
// root port refreshes its ARN every arn_entry_lifetime/2, and each refresh
// floods 64-byte frames upstream; a refresh more often than an ARN can
// cross a link and back renews entries before the last renewal can have
// acted, and only adds frames (1ps: a refresh every 0 ps, a loop that
// never advances time; 1ns: 2 GB of queued frames in 30 s). So
// arn_entry_lifetime/2 must be at least two link delays plus two ARN
// frames at the host link rate, which also keeps a root's ARN frames to a
// fraction of its links. AFI, for its part, acts only where adaptive
// routing diverts packets.
func (s *Scenario) validateIsolationCost() *FieldError {
	c := s.Switch.Isolation
	if c == nil {
		return nil
	}
	const p = "switch.isolation."
	if c.AFI && !s.routesAdaptively() {
		return fieldErr(p+"afi", "true has no effect without adaptive routing (AFI adapts the packets adaptive routing diverts; the switches route by ECMP here): set switch.routing.kind: adaptive (or spray), or remove afi")
	}
	if !c.ARN || s.Topology.HostLink <= 0 {
		return nil
	}
	frame := s.Topology.HostLink.R().TxTime(s.cat.Costs.ARNBytes)
	if min := 2 * (2*s.Topology.LinkDelay.T() + 2*frame); c.ARNEntryLifetime.T() < min {
		return fieldErr(p+"arn_entry_lifetime", "%v is below the minimum of %v: roots refresh their ARNs every arn_entry_lifetime/2, which must be at least two topology.link_delay (%v) and two 64 B ARN frames at topology.host_link (%v), the time an ARN takes to act",
			c.ARNEntryLifetime, Duration(min), s.Topology.LinkDelay, Duration(frame))
	}
	return nil
}

// routesAdaptively reports whether the switches choose among next hops by
// something other than the flow hash: adaptive routing or spraying.
func (s *Scenario) routesAdaptively() bool {
	if r := s.Switch.Routing; r != nil {
		k, _ := s.cat.Router(r.Kind)
		return k.Diverts
	}
	return false
}

// SwitchTables is the memory of the tables each switch keeps for the
// scenario's routing and isolation, in bytes, and the field that sizes
// the largest: switch.routing.flowlet_slots (adaptive routing per
// flowlet) and switch.isolation.flow_slots (adapt_gap > 0).
func (s *Scenario) SwitchTables() (perSwitch int64, field string) {
	var most int64
	if r := s.Switch.Routing; r != nil && r.Kind == RoutingAdaptive && r.FlowletGap > 0 {
		perSwitch = int64(r.FlowletSlots) * s.cat.Costs.FlowletSlotBytes
		most, field = perSwitch, "switch.routing.flowlet_slots"
	}
	if c := s.Switch.Isolation; c != nil && c.AdaptGap > 0 {
		b := int64(c.FlowSlots) * s.cat.Costs.FlowSlotBytes
		perSwitch += b
		if b > most {
			field = "switch.isolation.flow_slots"
		}
	}
	return perSwitch, field
}

// validateTables adds the switches' tables to the topology's footprint
// and checks the total against MaxBuildBytes (a file topology is checked
// when it is read, in wiring).
func (s *Scenario) validateTables() *FieldError {
	perSwitch, field := s.SwitchTables()
	hosts, switches, links, routes, _, topoField := s.Topology.shape(&s.cat.Costs)
	if perSwitch == 0 || topoField == "" {
		return nil
	}
	f := s.cat.Costs.Footprint(hosts, switches, links, routes)
	f.Tables = switches * perSwitch
	return CheckFootprint(field, f)
}

func (s *Scenario) validateNIC() *FieldError {
	const p = "nic."
	n := &s.NIC
	if fe := firstErr(
		between(p+"mtu", n.MTU, 1, maxMTU),
		atLeast(p+"qp_mapping", n.QPMapping.Pool, 0),
		between(p+"data_class", n.DataClass, 1, Classes-1),
		oneOf(p+"ack_class", "ack class", n.ACKClass, ackClasses),
		atLeast(p+"ack_interval", n.ACKInterval, 1),
		nonNegativeTime(p+"nack_interval", n.NACKInterval, false),
		nonNegativeTime(p+"rto", n.RTO, true),
		oneOf(p+"cnp", "cnp mode", n.CNP, cnpModes),
		nonNegativeTime(p+"cnp_interval", n.CNPInterval, false),
		optionalOneOf(p+"receiver", "receiver", n.Receiver, receivers),
		optionalOneOf(p+"fence", "fence", n.Fence, fences),
	); fe != nil {
		return fe
	}
	if n.Sack != nil {
		if !n.SelectiveReceiver() {
			return fieldErr(p+"sack", "needs a selective nic.receiver (selective, ooo-eager or ooo-ordered)")
		}
		if fe := firstErr(atLeast(p+"sack.dup_threshold", n.Sack.DupThreshold, 1),
			nonNegativeTime(p+"sack.reorder_window", n.Sack.ReorderWindow, false)); fe != nil {
			return fe
		}
	}
	return s.validatePlugin("nic", "scheduler", s.cat.Schedulers, n.Scheduler, n.Params)
}

func (s *Scenario) validateCC() *FieldError {
	c := &s.CC
	return s.validatePlugin("cc", "algorithm", s.cat.Algorithms, c.Algorithm, c.Params)
}

// validatePlugin checks that name is registered and params is its
// parameter struct, then runs the plugin's own checks.
func (s *Scenario) validatePlugin(section, what string, table []Plugin, name string, params any) *FieldError {
	p, ok := lookup(table, name)
	if !ok {
		return fieldErr(section+"."+what, "unknown %s %q (valid: %s)", what, name, pluginNames(table))
	}
	path := section + "." + name
	want := reflect.TypeOf(p.Params(s.Topology.HostLink.R()))
	if params == nil {
		return fieldErr(path, "parameters not set (want %v)", want)
	}
	if got := reflect.TypeOf(params); got != want {
		return fieldErr(path, "parameters are %v, want %v", got, want)
	}
	if p.Validate == nil {
		return nil
	}
	err := p.Validate(params)
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return fieldErr(joinPath(path, fe.Path), "%s", fe.Msg)
	}
	return fieldErr(path, "%v", err)
}

func (s *Scenario) validateWorkloads(misplaced map[*Workload][]string) *FieldError {
	n, known := s.Topology.HostCount()
	if fe := s.Workload.validate(s.cat, "workload", n, known, misplaced[&s.Workload]); fe != nil {
		return fe
	}
	for i := range s.ExtraWorkloads {
		w := &s.ExtraWorkloads[i]
		if fe := w.validate(s.cat, fmt.Sprintf("extra_workloads[%d]", i), n, known, misplaced[w]); fe != nil {
			return fe
		}
	}
	// A halo batch's READ, WRITEs and FETCH_ADD must share one QP: per-flow
	// gives each its own, and pool:K with K > 1 deals them round robin
	// over K, so either would void the ordering the workload measures.
	if m := s.NIC.QPMapping; m.Pool != 1 {
		for i, w := range append([]Workload{s.Workload}, s.ExtraWorkloads...) {
			if w.Kind == Halo {
				at := "workload"
				if i > 0 {
					at = fmt.Sprintf("extra_workloads[%d]", i-1)
				}
				return fieldErr("nic.qp_mapping", "%s, but %s is halo, which needs one QP per host pair (per-pair) so that a batch's WRITEs and FETCH_ADD share a QP", m, at)
			}
		}
	}
	return nil
}

// distribution checks a built-in CDF name or a file path. A value with no
// '/' or '.' cannot be a file name the user meant, so it must be a
// built-in.
func distribution(path, v string, builtins []string) *FieldError {
	if strings.TrimSpace(v) == "" {
		return fieldErr(path, "missing: give a built-in distribution (%s) or a CDF file path", strings.Join(builtins, ", "))
	}
	if strings.ContainsAny(v, `/\.`) {
		return nil
	}
	return oneOf(path, "distribution", v, builtins)
}

// hostList resolves a host set against n hosts, or checks only its syntax
// when n is not known (topology file); count is -1 then.
func hostList(path string, h HostSet, n int, known bool) (hosts []int, fe *FieldError) {
	if !known {
		if _, err := h.ranges(); err != nil {
			return nil, fieldErr(path, "%v", err)
		}
		return nil, nil
	}
	hosts, err := h.Resolve(n)
	if err != nil {
		return nil, fieldErr(path, "%v", err)
	}
	return hosts, nil
}

func (t *Trace) validate() *FieldError {
	if fe := nonNegativeTime("trace.interval", t.Interval, false); fe != nil {
		return fe
	}
	for i, m := range t.Metrics {
		path := fmt.Sprintf("trace.metrics[%d]", i)
		if fe := oneOf(path, "metric", m, traceMetricsAll); fe != nil {
			return fe
		}
		if slices.Contains(t.Metrics[:i], m) {
			return fieldErr(path, "%s is listed twice", m)
		}
	}
	return nil
}
