package wiring

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/workloads/cloud"
	"github.com/dcsim/dcsim/workloads/halo"
	"github.com/dcsim/dcsim/workloads/mpitrace"
	"github.com/dcsim/dcsim/workloads/simai"
)

// Workload is a built workload of any kind: a flow generator's
// (FlowWorkload), a training run's, or a closed loop that posts work as
// earlier work completes (HaloLoop, MPITraceLoop).
type Workload interface {
	// Start begins its traffic on the built simulation, before the run.
	Start(s *Sim) error
	// Done reports whether all its work is done (a flow generator: it has
	// posted its last flow).
	Done() bool
	// Check reports a broken invariant, and once Done, whether the work
	// adds up.
	Check() error
	// Counters adds its counters to run.parquet's map.
	Counters(into map[string]int64)
}

// WorkloadKind is one kind of workload: its schema (scenario's, with the
// name, parameters and validation) and its constructor. A new kind is its
// package (parameters, validation, generator) and one line in
// workloadKinds; TestTestOnlyWorkloadRuns adds a kind that exists only in
// the test.
type WorkloadKind struct {
	scenario.WorkloadKind
	// New builds a workload of this kind on the built network (w.Params
	// is the kind's parameter struct); an error names the field relative
	// to the workload ("incast.flow_size").
	New func(w *scenario.Workload, env WorkloadEnv) (Workload, error)
}

// workloadKinds are the workload kinds, in listing order.
var workloadKinds = []WorkloadKind{
	{scenario.CloudKind, flows(newCloud)},
	{scenario.IncastKind, flows(newIncast)},
	{scenario.FlowlistKind, flows(newFlowlist)},
	{scenario.StorageKind, flows(newStorage)},
	{scenario.SimAIKind, trains(newSimAI)},
	{scenario.CollectiveKind, trains(newCollective)},
	{scenario.HotSpotKind, flows(newHotSpot)},
	{scenario.HaloKind, newHalo},
	{scenario.MPITraceKind, newMPITrace},
}

// FlowWorkload is a workload whose traffic is a flow generator's: each
// flow is posted at its start time.
type FlowWorkload struct {
	Gen cloud.Generator
	d   *driver
}

// Start implements Workload.
func (f *FlowWorkload) Start(s *Sim) error {
	f.d = s.addGenerator(f.Gen)
	return nil
}

// Done implements Workload.
func (f *FlowWorkload) Done() bool { return f.d == nil || f.d.done }

// Check implements Workload.
func (*FlowWorkload) Check() error { return nil }

// Counters implements Workload: a generator has none of its own.
func (*FlowWorkload) Counters(map[string]int64) {}

func (*FlowWorkload) startRound() int { return roundFlows }

// flows is the constructor of a kind whose workload is a flow generator.
func flows(gen func(*scenario.Workload, WorkloadEnv) (cloud.Generator, error)) func(*scenario.Workload, WorkloadEnv) (Workload, error) {
	return func(w *scenario.Workload, env WorkloadEnv) (Workload, error) {
		g, err := gen(w, env)
		if err != nil {
			return nil, err
		}
		return &FlowWorkload{Gen: g}, nil
	}
}

// trainWorkload is a training run (a SimAI workload or a collective
// micro-benchmark) driven by its trainer.
type trainWorkload struct{ tr *trainer }

// Start implements Workload: the trainer's first actions, with the
// cluster's sent callback and the NIC concurrency tracker that training
// runs use.
func (t *trainWorkload) Start(s *Sim) error {
	if s.nic == nil {
		s.Cluster.OnSent = s.sent
		s.nic = newNICTracker()
		if s.World != nil {
			// Each host's record is its unit's: made here, so that no
			// thread adds to the map while others read it.
			for h := range s.Net.HostPorts {
				s.nic.host(h)
			}
			s.trainBar = newTrainBarrier(s)
			s.World.SetBarrier(s.trainBar)
		}
	}
	t.tr.sim = s
	s.trains = append(s.trains, t.tr)
	t.tr.apply(t.tr.run.Start(0))
	return nil
}

// Done implements Workload.
func (t *trainWorkload) Done() bool { return t.tr.run.Finished() }

// Check implements Workload.
func (*trainWorkload) Check() error { return nil }

// Counters implements Workload: the NIC concurrency counters are the
// run's (Result), not one training's.
func (*trainWorkload) Counters(map[string]int64) {}

func (*trainWorkload) startRound() int { return roundTraining }

// trains is the constructor of a training kind.
func trains(build func(*scenario.Workload, WorkloadEnv) (*training, error)) func(*scenario.Workload, WorkloadEnv) (Workload, error) {
	return func(w *scenario.Workload, env WorkloadEnv) (Workload, error) {
		t, err := build(w, env)
		if err != nil {
			return nil, err
		}
		tr, err := newTrainer(t)
		if err != nil {
			return nil, err
		}
		return &trainWorkload{tr: tr}, nil
	}
}

// Workloads start in rounds: flow generators, then training runs, then
// the rest (closed loops and any kind that does not say), each round in
// workload order. Same-time events fire in the order they were scheduled,
// so this order is part of every run's result; it is the order dcsim has
// always started them in.
const (
	roundFlows = iota
	roundTraining
	roundOther
)

// startRound is w's round.
func startRound(w Workload) int {
	if r, ok := w.(interface{ startRound() int }); ok {
		return r.startRound()
	}
	return roundOther
}

// WorkloadEnv is what a kind's constructor gets from the built network.
type WorkloadEnv struct {
	Scenario *scenario.Scenario
	// Hosts is the number of hosts of the built topology.
	Hosts int
	// MaxMessage is the largest message the model can represent on this
	// network (CheckSize).
	MaxMessage int64
	// Rand is the workload's own random stream.
	Rand *rand.Rand
}

// HostIDs resolves w.Hosts against the built topology.
func (e WorkloadEnv) HostIDs(w *scenario.Workload) ([]int, error) {
	ids, err := w.Hosts.Resolve(e.Hosts)
	if err != nil {
		return nil, fmt.Errorf("hosts: %v", err)
	}
	return ids, nil
}

// sizedHosts are w's hosts (HostIDs), once its flows' size, in field,
// has passed CheckSize.
func (e WorkloadEnv) sizedHosts(w *scenario.Workload, field string, size int64) ([]int, error) {
	ids, err := e.HostIDs(w)
	if err == nil {
		err = e.CheckSize(field, size)
	}
	return ids, err
}

// CheckSize rejects a message size above MaxMessage.
func (e WorkloadEnv) CheckSize(field string, size int64) error {
	if size <= e.MaxMessage {
		return nil
	}
	return fmt.Errorf("%s: a %d B message is more than the model can represent on this network (at most %d B: its transfer on the slowest link must take under 2^61 ps)", field, size, e.MaxMessage)
}

// training is a built training workload: the SimAI workload and the
// executor's configuration, for the trainer.
type training struct {
	Workload *simai.Workload
	Config   simai.RunConfig
	// Op and Bytes are a collective micro-benchmark's, for bus bandwidth.
	Op    string
	Bytes int64
	// NICPerGPU: every GPU has its own NIC (host = rank).
	NICPerGPU bool
}

func newCloud(w *scenario.Workload, env WorkloadEnv) (cloud.Generator, error) {
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

func newIncast(w *scenario.Workload, env WorkloadEnv) (cloud.Generator, error) {
	p := w.Params.(*scenario.IncastParams)
	hostIDs, err := env.sizedHosts(w, "incast.flow_size", int64(p.FlowSize))
	if err != nil {
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
func newFlowlist(w *scenario.Workload, env WorkloadEnv) (cloud.Generator, error) {
	if _, err := env.HostIDs(w); err != nil {
		return nil, err
	}
	file := w.Params.(*scenario.FlowlistParams).File
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

func newStorage(w *scenario.Workload, env WorkloadEnv) (cloud.Generator, error) {
	p := w.Params.(*scenario.StorageParams)
	hostIDs, err := env.sizedHosts(w, "storage.response_size", int64(p.ResponseSize))
	if err != nil {
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
func loadSimAI(p *scenario.SimAIParams, gpus int) (*simai.Workload, error) {
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
func applyCollectives(c scenario.Collectives, cfg *simai.RunConfig) {
	cfg.SendLatencyTable = c.SendLatencyTable
	cfg.Protocol, _ = simai.ParseProtocol(c.Protocol)
	cfg.Channels = c.ForceChannels
	cfg.OverlapDP = c.OverlapDPCollectives
}

func newSimAI(w *scenario.Workload, env WorkloadEnv) (*training, error) {
	p, hosts := w.Params.(*scenario.SimAIParams), env.Hosts
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
	return &training{Workload: wl, Config: cfg, NICPerGPU: true}, nil
}

func newCollective(w *scenario.Workload, env WorkloadEnv) (*training, error) {
	p, hosts := w.Params.(*scenario.CollectiveParams), env.Hosts
	cfg := simai.DefaultRunConfig()
	cfg.GPUs = hosts
	cfg.Iterations = p.Iterations
	cfg.SendLatency = engine.Time(p.SendLatency)
	applyCollectives(p.CollectiveModel(), &cfg)
	wl, err := simai.Microbench(p.Op, int64(p.Bytes), hosts)
	if err != nil {
		return nil, fmt.Errorf("collective: %v", err)
	}
	return &training{Workload: wl, Config: cfg, Op: p.Op, Bytes: int64(p.Bytes)}, nil
}

func newHotSpot(w *scenario.Workload, env WorkloadEnv) (cloud.Generator, error) {
	p := w.Params.(*scenario.HotSpotParams)
	hostIDs, err := env.sizedHosts(w, "hotspot.flow_size", int64(p.FlowSize))
	if err != nil {
		return nil, err
	}
	s := env.Scenario
	start, stop := engine.Time(p.Start), engine.Time(s.Duration)
	if p.Stop > 0 {
		stop = min(stop, engine.Time(p.Stop))
	}
	return cloud.NewHotSpots(cloud.HotSpotConfig{Hosts: hostIDs, Fraction: p.Fraction, Trees: p.Trees,
		FlowSize: int64(p.FlowSize), HostRate: engine.Rate(s.Topology.HostLink), Start: start, Stop: max(stop, start),
		Name: "hotspot"}, env.Rand)
}

// ClosedLoop is a workload that posts its own work requests as earlier
// ones complete (halo, mpitrace): its executor X is made from Config on
// the cluster when it starts, and is the zero X until then.
type ClosedLoop[C any, X interface {
	Start()
	Check() error
}] struct {
	Config C
	Exec   X
	// name prefixes its errors; make builds the executor, done says
	// whether its work is done, count adds its counters.
	name    string
	make    func(*rnic.Cluster, C) (X, error)
	done    func(X) bool
	count   func(X, map[string]int64)
	started bool
}

// Start implements Workload.
func (l *ClosedLoop[C, X]) Start(s *Sim) error {
	x, err := l.make(s.Cluster, l.Config)
	if err != nil {
		return fmt.Errorf("%s: %v", l.name, err)
	}
	l.Exec, l.started = x, true
	x.Start()
	return nil
}

// Done implements Workload.
func (l *ClosedLoop[C, X]) Done() bool { return !l.started || l.done(l.Exec) }

// Check implements Workload.
func (l *ClosedLoop[C, X]) Check() error {
	if !l.started {
		return nil
	}
	return l.Exec.Check()
}

// Counters implements Workload.
func (l *ClosedLoop[C, X]) Counters(into map[string]int64) {
	if l.started {
		l.count(l.Exec, into)
	}
}

// HaloLoop is a built halo workload; MPITraceLoop a built mpitrace one.
type (
	HaloLoop     = ClosedLoop[halo.Config, *halo.Exchange]
	MPITraceLoop = ClosedLoop[mpitrace.Config, *mpitrace.Exec]
)

// newHaloExchange makes the exchange; a batch's WRITEs and FETCH_ADD must
// share a QP.
func newHaloExchange(c *rnic.Cluster, cfg halo.Config) (*halo.Exchange, error) {
	if c.Cfg.Mapping.PerFlow || c.Cfg.Mapping.Pool != 1 {
		return nil, fmt.Errorf("needs one QP per host pair (nic.qp_mapping: per-pair), so that a batch's WRITEs and FETCH_ADD share a QP")
	}
	return halo.New(c, cfg)
}

// haloCounters are halo.batches, halo.violations, halo.stale_particles,
// halo.particles_sent, halo.particles_received, halo.reads, halo.writes,
// halo.atomics, halo.sends and their sum halo.ops (operations per
// particle = ops / particles_sent).
func haloCounters(x *halo.Exchange, into map[string]int64) {
	k := x.Counters
	for name, v := range map[string]int64{"batches": k.Batches, "violations": k.Violations, "stale_particles": k.Stale,
		"particles_sent": k.Sent, "particles_received": k.Received, "reads": k.Reads, "writes": k.Writes,
		"atomics": k.Atomics, "sends": k.Sends, "ops": k.Ops()} {
		into["halo."+name] = v
	}
}

func newHalo(w *scenario.Workload, env WorkloadEnv) (Workload, error) {
	hostIDs, err := env.HostIDs(w)
	if err != nil {
		return nil, err
	}
	p := w.Params.(*scenario.HaloParams)
	g := halo.Grid{X: p.X, Y: p.Y, Z: p.Z, Periodic: p.Periodic}
	if g.Ranks() > len(hostIDs) {
		return nil, fmt.Errorf("halo.x: a %dx%dx%d grid needs %d hosts, workload.hosts has %d", p.X, p.Y, p.Z, g.Ranks(), len(hostIDs))
	}
	return &HaloLoop{name: "halo", make: newHaloExchange, done: (*halo.Exchange).Done, count: haloCounters, Config: halo.Config{Grid: g, Hosts: hostIDs[:g.Ranks()], ParticleBytes: int64(p.ParticleBytes),
		RingCapacity: p.RingCapacity, Batch: p.Batch, Particles: p.Particles, Start: engine.Time(p.Start),
		PollInterval: engine.Time(p.PollInterval), TwoSided: p.TwoSided,
		Memory: halo.Memory{DMADelay: engine.Time(p.DMADelay), Relaxed: p.RelaxedOrdering, RelaxedMax: engine.Time(p.RelaxedMax)},
		Rand:   env.Rand}}, nil
}

// MPITraceProgram builds the app's program.
func MPITraceProgram(p *scenario.MPITraceParams) (*mpitrace.Program, error) {
	if p.App == scenario.AppInception {
		return mpitrace.Inception(mpitrace.InceptionConfig{Ranks: p.Ranks, Params: p.Params, Bucket: int64(p.Bucket),
			StepTime: engine.Time(p.StepTime), ForwardFraction: p.ForwardFraction, Iterations: p.Iterations})
	}
	return mpitrace.PTRANS(mpitrace.PTRANSConfig{P: p.P, Q: p.Q, N: p.N, NB: p.NB, Iterations: p.Iterations,
		Compute: mpitrace.UpdateTime(p.P, p.Q, p.N, p.NB, p.MemoryRate.R())})
}

// mpitraceCounters are mpitrace.exec_ns (from start to the last rank's
// end, -1 if the run ended first), mpitrace.messages, mpitrace.bytes
// (posted) and mpitrace.done (messages completed).
func mpitraceCounters(x *mpitrace.Exec, into map[string]int64) {
	exec := int64(-1)
	if t := x.ExecTime(); t >= 0 {
		exec = t.Nanoseconds()
	}
	into["mpitrace.exec_ns"] = exec
	into["mpitrace.messages"] = x.Messages
	into["mpitrace.bytes"] = x.Bytes
	into["mpitrace.done"] = x.Done
}

func newMPITrace(w *scenario.Workload, env WorkloadEnv) (Workload, error) {
	hostIDs, err := env.HostIDs(w)
	if err != nil {
		return nil, err
	}
	p := w.Params.(*scenario.MPITraceParams)
	prog, err := MPITraceProgram(p)
	if err != nil {
		return nil, fmt.Errorf("mpitrace: %v", err)
	}
	if prog.Ranks() > len(hostIDs) {
		return nil, fmt.Errorf("mpitrace.app: %s needs %d ranks, workload.hosts has %d hosts", p.App, prog.Ranks(), len(hostIDs))
	}
	for _, ph := range prog.Phases {
		for _, s := range ph {
			for _, m := range s.Sends {
				if err := env.CheckSize("mpitrace", m.Bytes); err != nil {
					return nil, err
				}
			}
		}
	}
	return &MPITraceLoop{name: "mpitrace", make: mpitrace.New, done: (*mpitrace.Exec).Finished, count: mpitraceCounters, Config: mpitrace.Config{Program: prog, Hosts: hostIDs[:prog.Ranks()], Start: engine.Time(p.Start)}}, nil
}
