package wiring

import (
	"fmt"
	"github.com/dcsim/dcsim/scenario"
	"os"
	"slices"
	"strconv"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/fabric/isolation"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/transport/rocev2"
	"github.com/dcsim/dcsim/workloads/cloud"
)

// Sim is one simulation built from a scenario: the engine, the fabric, the
// NICs and the traffic generators, not yet run.
type Sim struct {
	Scenario *scenario.Scenario
	// Engine is the simulation (on the parallel engine, its first
	// thread's Sim: its clock and random streams are the run's between
	// chunks, but events of other units must not be scheduled on it).
	Engine *engine.Sim
	// World is the parallel engine the run is on (BuildOptions.Threads),
	// nil on the sequential engine.
	World    *engine.World
	Topology *fabric.Topology
	Net      *fabric.Network
	Cluster  *rnic.Cluster
	// Isolation is congestion detection and ARN+AFC (switch.isolation),
	// nil without.
	Isolation *isolation.Isolation
	// Messages are the messages posted so far and not yet recorded, in
	// posting order: every one, unless the run streams flows.parquet
	// (Options.Dir), which turns every finished one into its row at the
	// end of each chunk and keeps only the running ones (flowRecorder).
	Messages []*rnic.Message
	// BDP and BaseRTT are maxBdp and maxRtt at the scenario's MTU.
	BDP     int64
	BaseRTT engine.Time

	// ns3Start: a flow's QP opens two same-time events after its start
	// (ns3EventOrder).
	ns3Start bool
	drivers  []*driver
	trains   []*trainer
	// trainBar runs the training executors on the parallel engine
	// (train_world.go); nil on the sequential engine.
	trainBar *trainBarrier
	// grain is the parallel engine's cut into units (unused on the
	// sequential engine).
	grain fabric.Grain
	// workloads are the scenario's, in start order; loops those of them
	// that are neither flow generators nor training runs (halo, mpitrace).
	workloads []Workload
	loops     []Workload
	paths     pathCache
	// clock runs the simulation: Engine, or World.
	clock clock
	// On the parallel engine: the unit that runs the flow generators
	// (after the fabric's), and the lookahead by which they run ahead of
	// their flows (driver).
	driverUnit int32
	lead       engine.Time
	running    bool  // Run has started: drivers no longer post directly
	flowsMade  int64 // messages the drivers made (posted, or on their way)
	// nic counts the NICs' concurrent flows and QPs as the run goes, in
	// training runs (nil otherwise).
	nic *nicTracker
}

type pathInfo struct {
	baseRTT    engine.Time
	bottleneck engine.Rate
}

// buildTopology makes the scenario's graph.
func buildTopology(s *scenario.Scenario) (*fabric.Topology, error) {
	t := &s.Topology
	host, fab, delay := engine.Rate(t.HostLink), engine.Rate(t.FabricLink), engine.Time(t.LinkDelay)
	switch t.Kind {
	case scenario.SpineLeaf:
		return fabric.SpineLeaf(fabric.SpineLeafConfig{Leaves: t.Leaves, HostsPerLeaf: t.HostsPerLeaf,
			Spines: t.Spines, HostLink: host, FabricLink: fab, Delay: delay})
	case scenario.Star:
		return fabric.Star(t.Hosts, host, delay)
	case scenario.Dumbbell:
		return fabric.Dumbbell(t.HostsPerSide, host, engine.Rate(t.BottleneckLink), delay)
	case scenario.FatTree:
		return fabric.FatTree(t.K, host, fab, delay)
	case scenario.TopoFile:
		f, err := os.Open(t.File)
		if err != nil {
			return nil, fmt.Errorf("topology.file: %v", err)
		}
		defer f.Close()
		topo, err := fabric.ReadTopologyFile(t.File, f)
		if err != nil {
			return nil, err
		}
		// Shortest-path tables, at least one entry per switch pair, and the
		// switches' routing and isolation tables.
		sw := int64(topo.Switches)
		fp := fabric.EstimateFootprint(int64(topo.Hosts), sw, int64(len(topo.Links)), fabric.ShortestPathRouteBytes(sw, sw*sw))
		field := "topology.file"
		if perSwitch, tables := s.SwitchTables(); perSwitch > 0 {
			fp.Tables = sw * perSwitch
			if fp.Tables > fp.Ports+fp.Routes+fp.Hosts {
				field = tables
			}
		}
		if fe := scenario.CheckFootprint(field, scenario.Footprint(fp)); fe != nil {
			return nil, fe
		}
		return topo, nil
	}
	return nil, fmt.Errorf("topology.kind: unknown kind %q", t.Kind)
}

// clock is what runs a simulation: a plain engine.Sim or a World.
type clock interface {
	Run(until engine.Time) bool
	Now() engine.Time
	Events() uint64
	NextEventTime() engine.Time
}

// Build wires a validated scenario into a simulation ready to run. Each
// layer reads its settings from the scenario in a function of its own:
// fabricConfig for the switches and links, nicConfig for the NICs,
// addWorkloads for the traffic.
func Build(s *scenario.Scenario) (*Sim, error) { return build(s, profileRules(s), BuildOptions{}) }

// BuildOptions choose how a scenario runs without changing what it
// models.
type BuildOptions struct {
	// Threads, when positive, runs the scenario on the parallel engine
	// (engine.World, docs/parallel.md) with that many threads; its
	// results are the same for every thread count, and differ from the
	// sequential engine's (Threads 0) as another seed's do: in the order
	// of same-time events across units, per-switch random streams and
	// ids handed out per unit (docs/parallel.md). Not every scenario can
	// run there yet (ParallelRefusal).
	// A scenario with a parallel section (scenario.Parallel) runs there
	// too, with one thread when Threads is 0; its parallel.units is the
	// cut into units (by pod when the scenario has no parallel section).
	Threads int
}

// BuildWith is Build with options.
func BuildWith(s *scenario.Scenario, opt BuildOptions) (*Sim, error) {
	return build(s, profileRules(s), opt)
}

// build is Build with the ns-3 profile's rules given (ns3Rules).
func build(s *scenario.Scenario, rules ns3Rules, opt BuildOptions) (*Sim, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if opt.Threads < 0 {
		return nil, fmt.Errorf("threads: %d, want at least 1", opt.Threads)
	}
	grain := fabric.GrainPod
	if s.Parallel != nil {
		opt.Threads = max(opt.Threads, 1)
		grain, _ = fabric.ParseGrain(s.Parallel.Units) // validated
	}
	if opt.Threads > 0 {
		if why := ParallelRefusal(s); why != "" {
			return nil, fmt.Errorf("threads: %s", why)
		}
	}
	topo, err := buildTopology(s)
	if err != nil {
		return nil, err
	}
	alg := algorithmOf(s)
	spec := alg.Spec(s.CC.Params)
	if s.Switch.PFCPauseExpiry {
		return nil, fmt.Errorf("switch.pfc_pause_expiry: true is not supported yet (receivers hold a pause until RESUME, as the reference model does)")
	}

	eng := engine.NewSim(s.Seed)
	var world *engine.World
	var unitOf []int32
	var units int
	if opt.Threads > 0 {
		if world, unitOf, units, err = newWorld(s, topo, opt.Threads, grain); err != nil {
			return nil, err
		}
		eng = world.Sim(0)
	}
	headers := rocev2.ReferenceHeaders
	if s.NIC.RealisticHeaders {
		headers = rocev2.RealisticHeaders
	}
	fcfg, err := fabricConfig(s, spec, headers, eng, topo, rules)
	if err != nil {
		return nil, err
	}
	qmap, err := queueMap(s, &fcfg)
	if err != nil {
		return nil, fmt.Errorf("switch.queueing: %v", err)
	}
	isoRouter := isolationRouter(s, &fcfg)
	var net *fabric.Network
	if world != nil {
		net, err = fabric.BuildWorld(world, unitOf, topo, fcfg)
	} else {
		net, err = fabric.Build(eng, topo, fcfg)
	}
	if err != nil {
		return nil, fmt.Errorf("topology: %v", err)
	}
	if qmap != nil {
		qmap.Bind(net)
	}
	iso, err := installIsolation(s, net, isoRouter)
	if err != nil {
		return nil, fmt.Errorf("switch.isolation: %v", err)
	}
	mtu := int64(s.NIC.MTU)
	rtt, bdp := net.MaxRTTBDP(mtu)
	ncfg := nicConfig(s, alg, spec, headers, rtt, bdp, rules)
	newSched, err := schedulerOf(s).New(s, s.NIC.Params, bdp)
	if err != nil {
		return nil, err
	}
	if ncfg.Compat.NS3Egress { // ns-3's transmit loop comes with its round robin
		class := ncfg.DataClass
		newSched = func(*rnic.Host) rnic.Scheduler { return baselines.NewNS3Fair(class) }
	}
	cl, err := rnic.NewCluster(net, ncfg, newSched)
	if err != nil {
		return nil, err
	}
	if err := checkBuffer(s, net, ncfg.Headers.DataWire(mtu, spec.HeaderBytes)); err != nil {
		return nil, err
	}
	sim := &Sim{Scenario: s, Engine: eng, Topology: topo, Net: net, Cluster: cl, Isolation: iso, BDP: bdp, BaseRTT: rtt,
		ns3Start: rules.has(ns3EventOrder), clock: eng}
	if world != nil {
		sim.World, sim.clock = world, world
		sim.driverUnit, sim.lead, sim.grain = int32(units), world.Lookahead(), grain
	}
	if err := sim.addWorkloads(ncfg.Headers.DataWire(0, spec.HeaderBytes)); err != nil {
		return nil, err
	}
	return sim, nil
}

// fabricConfig is the switches' and links' configuration: buffers, PFC
// and its headroom, credits, scheduling, ECN, INT, the router, and the
// ns-3 profile's fabric rules.
func fabricConfig(s *scenario.Scenario, spec cc.Spec, headers rocev2.Headers, eng *engine.Sim, topo *fabric.Topology, rules ns3Rules) (fabric.Config, error) {
	fcfg := fabric.DefaultConfig()
	fcfg.Buffer = int64(s.Switch.Buffer)
	fcfg.PFC = s.Switch.PFC
	fcfg.Reserve = int64(s.Switch.PFCReserve)
	fcfg.ResumeOffset = int64(s.Switch.PFCResumeOffset)
	fcfg.LossyQueueLimit = int64(s.Switch.LossyQueueLimit)
	switch s.Switch.Discipline {
	case scenario.DisciplineStrict:
		fcfg.Strict = 0xff
	default:
		fcfg.Strict = 1
	}
	for c := range fcfg.Weights {
		fcfg.Weights[c] = int32(max(1, s.Switch.WRRWeights[c]))
	}
	fcfg.ECN = s.Switch.ECN.Enabled
	fcfg.ECNKmin, fcfg.ECNKmax = s.Switch.ECN.Thresholds(100 * engine.Gbps)
	fcfg.ECNPmax = s.Switch.ECN.PMax
	switch s.Switch.INT {
	case scenario.INTOn:
		fcfg.INT = true
	case scenario.INTOff:
		fcfg.INT = false
	default:
		fcfg.INT = spec.NeedsINT
	}
	if spec.NeedsINT && !fcfg.INT {
		return fcfg, fmt.Errorf("switch.int: off, but cc.algorithm %s needs INT", spec.Name)
	}
	fcfg.Router = rules.router(s).New(eng, topo, s.Switch.Routing)
	if r := s.Switch.PFCHeadroom; r == scenario.HeadroomSized || r == scenario.HeadroomAuto && !rules.has(ns3Headroom) {
		fcfg.Headroom = fabric.HeadroomSized
		if r == scenario.HeadroomAuto {
			fcfg.Headroom = fabric.HeadroomCovering
		}
		fcfg.MaxFrame = headers.DataWire(int64(s.NIC.MTU), spec.HeaderBytes)
		fcfg.PFCResponse = engine.Time(s.Switch.PFCResponseTime)
	}
	if c := s.Switch.Credit; c != nil { // credit-based links (fabric/credit.go)
		fcfg.Credits = int64(c.Bytes)
		fcfg.MaxFrame = headers.DataWire(int64(s.NIC.MTU), spec.HeaderBytes)
		if fcfg.Credits < fcfg.MaxFrame {
			return fcfg, fmt.Errorf("switch.credit.bytes: %d B is less than one frame (%d B: nic.mtu and headers)", fcfg.Credits, fcfg.MaxFrame)
		}
	}
	fcfg.WholeNs, fcfg.NS3EventOrder = rules.has(ns3WholeNs), rules.has(ns3EventOrder)
	if rules.has(ns3ECNDraws) {
		// ns-3's own ECN draws (fabric.NS3Rand): RngSeed 1, ns-3's default
		// (third.cc never sets it), and RngRun = the scenario's seed, so
		// seed 1 is the reference run. Before the first draw, third.cc's
		// set-up has taken 6 streams per node and 2 more (the stream
		// counter at Simulator::Run, measured with an instrumented build
		// on topologies of 3 to 144 nodes with error rate 0).
		fcfg.NS3Rand = fabric.NewNS3Rand(1, s.Seed)
		fcfg.NS3Rand.Skip(uint64(6*topo.Nodes() + 2))
	}
	if m := spec.INTMulti; m > 0 && rules.has(ns3INTUnits) {
		fcfg.INTBytesUnit, fcfg.INTQLenUnit = 128*m, 80*m // int-header.h IntHop
	}
	return fcfg, nil
}

// nicConfig is the NICs' configuration for a fabric of maxRtt rtt and
// maxBdp bdp: transport, ACK and CNP rules, QP mapping, receiver mode,
// congestion control, and the ns-3 profile's NIC rules.
func nicConfig(s *scenario.Scenario, alg *Algorithm, spec cc.Spec, headers rocev2.Headers, rtt engine.Time, bdp int64, rules ns3Rules) rnic.Config {
	mtu := int64(s.NIC.MTU)
	ncfg := rnic.Config{
		MTU:          mtu,
		Headers:      headers,
		DataClass:    uint8(s.NIC.DataClass),
		AckControl:   s.NIC.ACKClass == scenario.ACKClassControl,
		AckHighPrio:  s.NIC.ACKClass == scenario.ACKClassAuto && spec.AckHighPrio,
		AckInterval:  int64(s.NIC.ACKInterval) * mtu,
		NackInterval: engine.Time(s.NIC.NACKInterval),
		RTO:          s.NIC.RTOTime(),
		Mapping:      rnic.Mapping{PerFlow: s.NIC.QPMapping.PerFlow(), Pool: s.NIC.QPMapping.Pool},
		CNPInterval:  engine.Time(s.NIC.CNPInterval),
		CC:           spec,
		CCEnv: cc.Env{LineRate: engine.Rate(s.Topology.HostLink), BaseRTT: rtt, BDP: bdp,
			MTU: mtu, NS3Arith: rules.has(ns3Arith)},
		Compat: rnic.Compat{PairPorts: rules.has(ns3PairPorts), WholeNsPacing: rules.has(ns3WholeNs),
			RepaceOnChangeRate: rules.has(ns3Repace), NS3Egress: rules.has(ns3Egress) && s.NIC.Scheduler == "fair"},
	}
	if s.NIC.CNP == scenario.CNPPacket {
		ncfg.CNP = rnic.CNPPacket
	}
	ncfg.Selective = s.NIC.SelectiveReceiver()
	if s.NIC.Sack != nil {
		ncfg.DupThresh = s.NIC.Sack.DupThreshold
		ncfg.ReorderWindow = s.NIC.Sack.ReorderWindow.T()
	}
	switch s.NIC.Receiver {
	case scenario.OOOEager:
		ncfg.Atomics = rnic.AtomicEager
	case scenario.OOOOrdered:
		ncfg.Atomics = rnic.AtomicDeferred
	}
	ncfg.ImplicitFence = s.NIC.Fence == scenario.FenceImplicit
	if !alg.ReactsToECN {
		ncfg.CNP = rnic.CNPNone // marks still happen; no CNP goes to a CC that ignores it
	}
	return ncfg
}

// addWorkloads builds the scenario's workloads, whose messages carry at
// most headerWire bytes of headers per packet, each with its kind's
// constructor, and starts them (startRound).
func (sim *Sim) addWorkloads(headerWire int64) error {
	s, topo, cl := sim.Scenario, sim.Topology, sim.Cluster
	slowest := engine.Rate(s.Topology.HostLink)
	for _, l := range topo.Links {
		slowest = min(slowest, l.Rate)
	}
	maxMsg := maxMessageBytes(int64(s.NIC.MTU), headerWire, slowest)
	ws := append([]scenario.Workload{s.Workload}, s.ExtraWorkloads...)
	for i := range ws {
		path := "workload"
		if i > 0 {
			path = "extra_workloads[" + strconv.Itoa(i-1) + "]"
		}
		w := s.Catalog().WithParams(&ws[i])
		wl, err := workloadKindOf(s, w).New(w, WorkloadEnv{Scenario: s, Hosts: topo.Hosts, MaxMessage: maxMsg, Rand: sim.Engine.Rand(path)})
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		if sim.World != nil {
			switch startRound(wl) {
			case roundOther:
				return fmt.Errorf("threads: %s.kind %q posts a flow when another completes, on another host (zero lookahead); it runs on the sequential engine only (leave --threads and parallel unset)", path, w.Kind)
			case roundTraining:
				if err := checkTrainingLookahead(path, w.Kind, wl.(*trainWorkload).tr.run.Config(), sim.World.Lookahead()); err != nil {
					return err
				}
			}
		}
		sim.workloads = append(sim.workloads, wl)
	}
	slices.SortStableFunc(sim.workloads, func(a, b Workload) int { return startRound(a) - startRound(b) })
	cl.OnComplete = sim.complete
	for _, w := range sim.workloads {
		if startRound(w) == roundOther {
			sim.loops = append(sim.loops, w)
		}
		if err := w.Start(sim); err != nil {
			return err
		}
	}
	return nil
}

// AddGenerator adds a flow generator beyond the scenario's workloads
// (before Run). Library users and tests use it for traffic that no
// workload kind describes.
func (s *Sim) AddGenerator(g cloud.Generator) { s.addGenerator(g) }

func (s *Sim) addGenerator(g cloud.Generator) *driver {
	d := &driver{sim: s, gen: g}
	s.drivers = append(s.drivers, d)
	d.next()
	return d
}

// driver posts one generator's flows at their start times: only its next
// flow waits in the event queue.
type driver struct {
	sim     *Sim
	gen     cloud.Generator
	pending cloud.Flow
	done    bool
}

func (d *driver) next() {
	s := d.sim
	for {
		f, ok := d.gen.Next()
		if !ok {
			d.done = true
			return
		}
		d.pending = f
		if s.World == nil {
			s.Engine.At(max(f.Start, s.Engine.Now()), d, 0)
			return
		}
		// On the parallel engine the drivers are a unit of their own,
		// which makes each flow one lookahead before its start and sends
		// it to its source host's unit; the flows that start within the
		// first lookahead are posted before the run.
		if at := f.Start - s.lead; at >= 0 || s.running {
			ds := s.World.Sim(int(s.driverUnit)) // its own clock: another thread's runs apart
			ds.At(max(at, ds.Now()), d, 0)
			return
		}
		m := d.message(f)
		s.Net.HostSim(f.Src).At(f.Start, &postAt{s, m}, 0)
	}
}

// message makes flow f's message and keeps it for its row.
func (d *driver) message(f cloud.Flow) *rnic.Message {
	s := d.sim
	m := s.Cluster.NewMessage(f.Src, f.Dst, f.Size)
	m.Generator, m.Tag = f.Generator, f.Tag
	s.Messages = append(s.Messages, m)
	s.flowsMade++
	return m
}

// Fire implements engine.Handler.
func (d *driver) Fire(now engine.Time, _ uint8) {
	s := d.sim
	m := d.message(d.pending)
	switch {
	case s.World != nil:
		// Sent from the drivers' unit to the source's: it arrives at
		// the flow's start (at least one lookahead ahead), or a
		// lookahead from now for a flow whose start has passed.
		src := s.Net.HostUnit(m.Src)
		s.World.Sim(int(s.driverUnit)).Send(s.driverUnit, src, max(d.pending.Start, now+s.lead), &postAt{s, m}, 0)
	case s.ns3Start:
		s.Engine.At(now, &ns3Start{s: s, m: m}, 0)
	default:
		s.post(m)
	}
	d.next()
}

// postAt posts a message at its source host's unit (the parallel
// engine's drivers, driver).
type postAt struct {
	s *Sim
	m *rnic.Message
}

// Fire implements engine.Handler.
func (p *postAt) Fire(engine.Time, uint8) { p.s.post(p.m) }

// ns3Start posts a message two same-time events later, as ns-3 creates a
// flow's QP (third.cc ScheduleFlowInputs installs an application, whose
// Start and then StartApplication run as zero-delay events, the second
// calling RdmaHw::AddQueuePair): so the QP opens after the events already
// due at that ns, in the reference's order.
type ns3Start struct {
	s    *Sim
	m    *rnic.Message
	hops int
}

// Fire implements engine.Handler.
func (st *ns3Start) Fire(now engine.Time, _ uint8) {
	if st.hops++; st.hops < 2 {
		st.s.Engine.At(now, st, 0)
		return
	}
	st.s.post(st.m)
}

// post posts m at its NIC now, and counts it for the NIC concurrency.
func (s *Sim) post(m *rnic.Message) {
	s.Cluster.Post(m)
	if s.nic != nil {
		s.nic.posted(m)
	}
}

// path returns the ideal-FCT inputs of a host pair, cached.
func (s *Sim) path(src, dst int) pathInfo {
	if p, ok := s.paths.get(src, dst); ok {
		return p
	}
	p := s.Net.PathBetween(src, dst)
	pi := pathInfo{baseRTT: p.BaseRTT(int64(s.Scenario.NIC.MTU)), bottleneck: p.Bottleneck()}
	s.paths.put(src, dst, pi, len(s.Net.HostPorts))
	return pi
}

// pathCache holds the ideal-FCT inputs of the host pairs seen so far: in
// a row per source host, allocated at its first flow, on fabrics of up to
// denseHosts hosts (16 B per destination: 2 KiB per source on the
// default's 128 hosts), else in a map. Every flow's row looks its pair up
// once; the map lookup was 1.5% of a 10^6-flow run.
type pathCache struct {
	rows [][]pathInfo
	m    map[[2]int32]pathInfo
}

// denseHosts bounds the fabrics whose pairs are cached in rows (at most
// 16 MiB of rows, when every host sends).
const denseHosts = 1024

// get is the cached pair; ok is false if it is not cached.
func (c *pathCache) get(src, dst int) (p pathInfo, ok bool) {
	if src < len(c.rows) {
		if row := c.rows[src]; row != nil {
			p = row[dst]
		}
		return p, p.bottleneck != 0
	}
	p, ok = c.m[[2]int32{int32(src), int32(dst)}]
	return p, ok
}

// put caches a pair's inputs (its bottleneck is positive: a path has links).
func (c *pathCache) put(src, dst int, p pathInfo, hosts int) {
	if hosts <= denseHosts {
		if c.rows == nil {
			c.rows = make([][]pathInfo, hosts)
		}
		if c.rows[src] == nil {
			c.rows[src] = make([]pathInfo, hosts)
		}
		c.rows[src][dst] = p
		return
	}
	if c.m == nil {
		c.m = map[[2]int32]pathInfo{}
	}
	c.m[[2]int32{int32(src), int32(dst)}] = p
}
