// Package scenario defines dcsim's scenario format: a YAML file (or a
// built-in) that fixes everything one simulation depends on, so that the
// same scenario and seed give the same flows, byte for byte.
//
// # Reading, checking, printing
//
//	cat := wiring.Catalog()   // the plugins this program links in
//	s, err := cat.Load("default", []string{"workload.load=0.8"})
//	s, err := cat.Parse("my.yaml", data, sets)
//	err = s.Validate()   // Parse already did; for scenarios changed in Go
//	yaml := s.YAML()     // every field spelled out; Parse(yaml) == s
//	dir := s.Hash()      // 16 hex digits of SHA-256(YAML()), for sweeps
//
// # The schema alone
//
// The package is the schema and nothing else: it imports engine (for
// units) and internal/textline, no simulation package (internal/lint's
// TestScenarioIsSchema), so a tool that only reads, checks and writes
// scenarios can import it. What it needs to know of the plugins a
// program links in comes in a Catalog (catalog.go): the schedulers,
// congestion-control algorithms, routers and workload kinds a scenario
// may name, each with its name, doc line, parameter struct with defaults
// and its check, and the few figures of the simulator that validation
// bounds against (the built-in distributions and SimAI models, fabric's
// memory costs). The composition root, package wiring, makes it
// (wiring.Catalog) from its plugin tables, where each entry also holds
// the constructor and counters (Impl, opaque here).
//
// The catalog is handed over explicitly, not registered by init side
// effects: Catalog.Parse, Load and Default take it as their receiver and
// keep it in the Scenario they return, so Validate, YAML and Hash use the
// catalog the scenario was read with, and a test with a plugin of its own
// makes a catalog with one entry more instead of changing a global table.
// Explicit parameters through Validate and YAML as well were the
// alternative; keeping the catalog in the Scenario leaves every caller of
// those unchanged, and a Scenario is only ever made by a catalog. A
// Scenario made without one (a Go literal) fails Validate with an error,
// not a panic. wiring.Catalog returns the same value on every call, so
// scenarios parsed apart compare equal.
//
// Every field has a default that applies when the field is absent (or
// null); an explicit 0 or false is honoured. Unknown fields are errors.
// Errors are one line, "FILE:LINE: field.path: reason", e.g.
//
//	scenario.yaml:12: workload.load: 1.4 is not in (0, 1)
//
// with "<builtin NAME>" as the file of a built-in scenario and
// "--set a.b=value" in place of FILE:LINE when an override supplied the
// bad value. A field left at its default has no line, so its error points
// at its nearest ancestor that the input does contain.
//
// # Overrides
//
// A --set argument "a.b.c=value" replaces (or adds) one field in the YAML
// tree before decoding, so its value reads exactly as in a file:
// "nic.scheduler=storm", "switch.ecn.kmin=100KB",
// "switch.wrr_weights=[1,2,4,8,1,1,1,1]". A list element is
// "extra_workloads[0].load=0.02"; the index one past the end appends a new
// element, so "extra_workloads[0].kind=incast" adds an incast to a
// scenario that had none. A value is YAML: quote it ("name='on'") to keep
// it a string.
//
// # Units
//
// Durations need a unit: ps, ns, us, ms or s ("10ms", "1.5us"; a bare 0
// is allowed; "never" is no limit where a field allows it). Rates are SI
// bits per second: bps, Kbps, Mbps, Gbps, Tbps ("100Gbps"; "Mb/s" and
// "G" are accepted). Sizes are bytes with an optional unit, KB = 1000 B,
// MB = 10^6 B, KiB = 1024 B, MiB = 2^20 B ("32MiB", "400KB", "4096").
// Sizes print in the largest unit that is exact, so 4096 prints as 4KiB.
//
// Every value must fit the model's integer arithmetic: a finite duration
// is at most engine.MaxSpan (2^61 ps, 26.7 days), so that the clock plus
// two spans stays below int64; a size at most MaxBytes (1 PiB); a message
// (a CDF's largest size, an incast flow, a storage response, a flow-list
// row) at most what the slowest link carries in MaxSpan; and a switch
// buffer at least its ports' PFC headroom and reserve plus one packet per
// port (one packet per port when lossy). Build checks the last two.
// Go code sees Duration, Rate and Size, convertible to engine.Time,
// engine.Rate and int64 bytes.
//
// # Fields
//
// docs/scenarios.md is the same reference as tables, one row per field
// with its type, default, allowed values and meaning, every plug-in's
// parameters included; TestFieldReference fails when a printed field has
// no row there, a row no field, or a default or type differs.
//
// Top level:
//
//	name          string   default: the file's base name without extension; one safe
//	                       directory name (letters, digits, spaces, ._+-=@,; not
//	                       starting with . or -; see CheckName)
//	seed          uint64   1. Every random stream derives from it.
//	compat        none | hpcc-ns3; none. hpcc-ns3 reproduces the HPCC ns-3
//	                       model's own choices where dcsim's defaults differ
//	                       (see "Reference compatibility" below); for
//	                       comparing with published numbers only.
//	duration      duration 10ms. Workloads start flows in [0, duration).
//	drain_limit   duration 100ms. After duration the run continues until
//	                       every flow finishes or drain_limit more has
//	                       passed ("never": no limit).
//	measure.warmup duration 0s. Summaries cover flows that start in
//	                       [warmup, duration); must be below duration.
//
// topology: the network. Hosts are numbered from 0 in topology order.
//
//	kind            spine-leaf | star | dumbbell | fat-tree | file; spine-leaf
//	leaves          8      spine-leaf: leaf switches
//	hosts_per_leaf  16     spine-leaf: hosts under each leaf
//	spines          4      spine-leaf: spines; one fabric_link from every
//	                       leaf to every spine
//	hosts           16     star: hosts on the one switch (at least 2)
//	hosts_per_side  8      dumbbell: hosts on each of the two switches
//	k               4      fat-tree: switch radix, even; k^3/4 hosts
//	                       (docs/model.md §2.2)
//	file            ""     file: a reference-model topology.txt
//	                       (docs/model.md §2.3), read when the run is built
//	host_link       100Gbps host to switch links
//	fabric_link     400Gbps switch to switch links (spine-leaf, fat-tree)
//	bottleneck_link 100Gbps dumbbell: the link between the two switches
//	link_delay      1us    propagation delay of every link
//
// Every count is checked whatever the kind (at least 1; hosts at least 2;
// at most 2^20 hosts in all), so that changing the kind never exposes a
// bad value. A file topology sets its own rates and delays per link.
// A topology must also be buildable: no switch with more than 65,535
// ports, and at most MaxBuildBytes (8 GiB) of network state by the
// catalog's Costs (fabric.EstimateFootprint: ports, route tables, hosts). Spine-leaf and
// fat-tree route by up/down tables that grow with the ports, so every
// fat-tree topology.k allows fits (k = 160, 1,024,000 hosts, about 7.5
// GiB); a spine-leaf of 1024 leaves of 1000 hosts with 4096 spines needs
// 11.5 GiB and is rejected with that figure. A file topology, routed by
// shortest-path tables of up to S^2 entries, is checked when it is read.
//
// switch: every switch (docs/model.md §3).
//
//	buffer            32MiB  shared buffer per switch
//	pfc               true   lossless PFC per priority; false is lossy
//	                         (tail drop)
//	pfc_pause_expiry  false  false: a class stays paused until RESUME (the
//	                         reference model); true: a PAUSE expires after
//	                         pfc_pause_time (802.1Qbb quanta)
//	pfc_pause_time    5us    pause length carried by PAUSE frames
//	pfc_reserve       4KiB   guaranteed bytes per ingress (port, class)
//	pfc_resume_offset 3KiB   RESUME hysteresis below the PFC threshold
//	pfc_headroom      auto   PFC headroom per ingress port: sized (2 x
//	                         rate x link delay + 3 maximum frames + the
//	                         43 B PAUSE + rate x pfc_response_time, so
//	                         that a lossless fabric never drops; fabric
//	                         Config.SizedHeadroom), reference (rate x
//	                         delay x 3, docs/model.md §3.3, whatever the
//	                         MTU) or auto: the larger of the two
//	                         (the reference's where it suffices, so
//	                         thresholds match it at MTU 1000; sized
//	                         where it would drop, e.g. MTU 9000),
//	                         reference under compat: hpcc-ns3
//	pfc_response_time 0s     sized headroom: the upstream's reaction time
//	                         beyond finishing its frame (dcsim's NICs and
//	                         switches react at once)
//	discipline        rr     egress service of classes 1-7: rr (round robin,
//	                         one packet per visit; the reference), strict
//	                         (lower class first) or wrr; class 0 is always
//	                         served first
//	wrr_weights       [1,1,1,1,1,1,1,1] packets per visit of classes 0-7
//	                         under wrr; each at least 1
//	lossy_queue_limit 0B     with pfc false: tail-drop limit per egress
//	                         queue; 0 means only the shared buffer limits
//	ecn.enabled       true   RED marking at dequeue (docs/model.md §3.4)
//	ecn.base_rate     100Gbps the port rate kmin and kmax are given for;
//	                         a port of rate R uses kmin*R/base_rate and
//	                         kmax*R/base_rate (ECN.Thresholds)
//	ecn.kmin          400KB  no marking at or below
//	ecn.kmax          1600KB always marking above; kmin <= kmax
//	ecn.pmax          0.2    marking probability just below kmax, in [0, 1]
//	int               auto   INT stamping: auto (on when the CC algorithm
//	                         asks for INT), on, off
//
// The ECN defaults follow cc.algorithm (docs/model.md §3.4): with dctcp, each
// of kmin, kmax and pmax that the scenario does not give is 300KB, 300KB
// and 1 (K = 300KB per 100 Gbps, scaled to base_rate); the other
// algorithms keep 400KB, 1600KB and 0.2. A field given in the file, its
// base or a --set is kept as given. The scenario.yaml a run writes holds
// the resolved values.
//
// A lossless run that drops with headroom full, with no ACK sent into a
// paused class to explain it, prints a warning (also under --quiet) and
// counts the drops in run.parquet's counters as headroom_drops; drops
// behind such ACKs count as pause_ignored_drops (fabric doc.go).
//
// nic: every host RNIC and its RoCEv2 transport (docs/model.md §4, §6).
//
//	mtu               1000   payload bytes per full data packet (1-9216);
//	                         headers come on top
//	qp_mapping        per-flow per-flow (a QP per message), per-pair (one
//	                         QP per ordered host pair) or pool:K (K QPs per
//	                         pair, K >= 1); messages on a QP go FIFO
//	data_class        3      priority class of data packets (1-7)
//	ack_class         auto   auto (the reference): ACK/NACK travel in the
//	                         class of the data they acknowledge, and the
//	                         CC's ack_high_prio (ACK_HIGH_PRIO; DCQCN and
//	                         TIMELY: true) only lets the NIC send them
//	                         while that class is paused; data: the same,
//	                         but the NIC always holds them during a pause
//	                         of their class (ACK_HIGH_PRIO 0 whatever the
//	                         CC); control: class 0 end to end, never
//	                         paused nor admitted at switches (a dcsim
//	                         extension, and what auto meant before #14)
//	ack_interval      1      data packets per ACK (coalescing); 1 ACKs
//	                         every packet
//	nack_interval     500us  minimum gap between NACKs for the same gap
//	rto               5ms    retransmission timeout (go-back-N from the
//	                         last ACK); 0 or "never" disables it, as in
//	                         the reference model
//	cnp               ack_flag ack_flag: congestion is echoed as a flag on
//	                         the ACK (reference); packet: separate CNPs in
//	                         class 0
//	cnp_interval      50us   cnp packet: at most one CNP per QP per interval
//	realistic_headers false  true: 62 B of RoCEv2 headers (+16 B RETH on a
//	                         WRITE's first packet) and 20 B of preamble and
//	                         gap per frame instead of the reference 48 B
//	receiver          inorder inorder: go-back-N, the responder accepts
//	                         only the next packet (reference); selective:
//	                         IRN-style selective repeat (out-of-order data
//	                         kept, NACKs name the missing point and the
//	                         range that arrived, only lost ranges resent),
//	                         so packets of one QP may take different
//	                         paths; an ATOMIC out of order is resent.
//	                         ooo-eager, ooo-ordered: selective repeat that
//	                         keeps an out-of-order ATOMIC and executes it
//	                         on arrival, or once every lower PSN arrived
//	                         (docs/model.md §9.3). The default prints nothing
//	sack              absent reorder-tolerant loss detection for a selective
//	                         receiver: {dup_threshold: 3, reorder_window:
//	                         0s} (nic.sack={} for the defaults). An
//	                         out-of-order packet draws a SACK (an ACK with
//	                         its range), not a NACK, and the requester
//	                         resends a hole only once dup_threshold packets
//	                         beyond it are SACKed (RFC 6675) and, with a
//	                         reorder_window > 0, the lowest hole has been
//	                         open that long (RFC 8985's idea), or at the
//	                         timeout. Absent: IRN, a NACK per out-of-order
//	                         packet, resent on it; prints nothing
//	fence             none   implicit: an ATOMIC waits until the WRITEs
//	                         before it on its QP are acknowledged (about
//	                         one RTT); the default prints nothing
//	scheduler         fair   the RNIC scheduler; see Schedulers
//	<scheduler>       {}     that scheduler's parameters, e.g. nic.storm:
//	                         {slots_backlog: 1}; printed fully defaulted
//
// cc: congestion control (docs/model.md §5).
//
//	algorithm   dcqcn  see Algorithms (none sends at line rate); the
//	                   built-ins and a hand-written file share this default
//	<algorithm> {}     that algorithm's parameters, e.g. cc.dcqcn: {...}
//
// Receivers send congestion notifications (nic.cnp) only for an algorithm
// that reacts to ECN (Plugin.ReactsToECN: dcqcn, dctcp). With none, hpcc
// or timely the switches still mark, but no CNP is sent or counted.
//
// A parameter sub-map is decoded into the struct the plugin's Params
// returns, with that plugin's defaults for topology.host_link, and an
// unknown key in it is an error. A sub-map for a registered plugin other
// than the selected one is checked the same way and then dropped, so a
// sweep may carry nic.storm.* while it sweeps nic.scheduler; YAML prints
// only the selected plugin's.
//
// workload: the traffic; extra_workloads: a list of more generators of the
// same shape running alongside it (e.g. an incast over a cloud
// background), each element defaulted like workload.
//
//	kind          cloud  cloud | incast | flowlist | storage | simai |
//	                     collective | hotspot | halo | mpitrace
//	distribution  websearch  flow sizes: a built-in CDF (websearch, fbhdp,
//	                     alistorage, googlerpc, webserver, homa_w1...; see
//	                     workloads/cloud) or a CDF file path (a value with
//	                     '/' or '.')
//	load          0.5    offered load per host / host_link, in (0, 1)
//	hosts         all    the hosts taking part: "all" or a list of indices
//	                     and ranges, "0-15,32,40-47"
//
// A cloud workload: every host in hosts is a Poisson source at load,
// sending to a uniformly drawn other host, sizes from distribution
// (docs/model.md §7.3); it needs at least 2 hosts. The other kinds read a
// sub-map named after the kind, which may appear only with that kind and
// is printed only for it:
//
//	incast.senders        60     senders per event, drawn from hosts
//	                             without the receiver
//	incast.flow_size      500KB  bytes each sender sends per event
//	incast.load_fraction  0.02   Poisson events whose bytes are this
//	                             fraction of the hosts' aggregate capacity
//	                             (the HPCC paper's "2% of load"); in (0, 1);
//	                             ignored when period > 0
//	incast.period         0s     > 0: one event at 0, period, 2*period, ...
//	incast.receiver       -1     the receiving host; -1 draws one per event
//	flowlist.file         ""     required: CSV src,dst,size_bytes,start_ns;
//	                             read once at build for its errors; a file
//	                             sorted by start_ns is then posted from a
//	                             cursor as the run goes (memory flat in
//	                             its length), another is read whole
//	storage.servers       all    hosts that answer requests; clients are
//	                             the workload's hosts
//	storage.fan_out       4      servers per request; each sends a response
//	                             to the client at the request time
//	storage.response_size 0B     > 0: every response has this size
//	storage.response_distribution alistorage  response sizes when
//	                             response_size is 0
//	storage.request_load  0.3    responses per client / host_link, in (0, 1);
//	                             ignored when mean_interval > 0
//	storage.mean_interval 0s     > 0: mean time between a client's requests
//
// The training kinds, simai (a SimAI/AICB workload file, or a model that
// is generated) and collective (one collective over all hosts), run as
// workloads/simai documents, with its semantics and defaults; dcsim show
// gpt3-13b and dcsim show allreduce-128 print every field. In brief:
//
//	simai.file            ""       an AICB workload file (a path, or the
//	                               name of a shipped one); "" generates
//	                               the workload from model
//	simai.model           gpt3-13b gpt3-13b | gpt3-175b | llama-7b | llama-65b | ...
//	simai.tp, dp, ep, ga           parallelism of a generated workload
//	simai.gpus_per_server 8        GPUs sharing a server's NVLink; every GPU
//	                               has its own NIC, a host of the fabric
//	simai.nvlink          2400Gbps the link between GPUs of one server
//	simai.iterations      1        training iterations run back to back
//	simai.comm_scale      1        scales every collective's bytes
//	collective.op         allreduce allreduce | reducescatter | allgather | alltoall
//	collective.bytes               bytes of the collective
//
// A training run finishes when its iterations do, within drain_limit: a
// run whose drain_limit ends before the first iteration is done writes an
// empty iterations.parquet and says so.
//
// Three more kinds read their own sub-map, documented where they are
// built; dcsim show default --set workload.kind=KIND prints its defaults
// (halo needs nic.qp_mapping=per-pair too; dcsim show halo):
//
//	hotspot.*   fraction of the hosts, split over trees destinations, offer
//	            line rate of flow_size flows from start to stop (0s: the
//	            duration); scenario/hotspot.go, workloads/cloud (HotSpots)
//	halo.*      one-sided ring-buffer halo exchange on an x*y*z grid of
//	            ranks; workloads/halo
//	mpitrace.*  reconstructed MPI traces (app ptrans or inception-v3) as
//	            dependent messages; workloads/mpitrace
//
// Only cloud reads the distribution and load fields, but they are checked
// for every kind. run.parquet records load for a cloud main workload and
// null otherwise, and the terminal summary names a load only then.
//
// trace: the periodic sampler behind samples.parquet.
//
//	interval  0s   sampling period; 0 turns sampling off
//	metrics   [queue_depth, pause_time, utilisation, qp_rate]  what to sample;
//	               efficiency (off unless listed) adds delivered / injected
//	               payload over the host links, split by hot-spot destination
//
// An interval whose samples over duration alone would pass 10^9 rows
// (ports x port metrics, plus at least one QP a host for qp_rate and 5
// rows for efficiency, per sample) is rejected, and so is one at which the
// sampler would fire more than 10^8 times in duration + drain_limit (each
// firing visits every port and QP, busy or not). With Options.Dir (dcsim run and sweep set it) the samples
// stream into samples.parquet in batches of 16,384 rows while the run goes
// on, and the parquet writer writes a row group every 2^20 rows, so memory
// does not grow with them; without it they are returned in
// Result.Samples.
//
// # Reference compatibility
//
// compat: hpcc-ns3 makes a run take the HPCC ns-3 model's own choices
// where dcsim's defaults differ, so that it can be compared with numbers
// published from that model (testdata/ns3ref holds one such run and
// replay-dcqcn.yaml / replay-hpcc.yaml replay it). It changes only
// behaviours that have no field of their own; parameters (rto: 0s for the
// reference's missing timeout, the topology, the CC's values) are the
// scenario's. Each behaviour is one the ns-3 code has (the packages' docs
// cite file and function):
//
//   - ECMP: the reference's hash inputs and seed (fabric.NS3ECMP: 11.0.x.1
//     addresses from node ids, the switch's node id as seed, no salt) and
//     source ports from 10000 per (src, dst) pair (rnic Compat.PairPorts).
//     The default hashes host indices with a salt from the seed, so seeds
//     explore path assignments, and numbers ports per source host.
//   - Whole-ns time: serialization at every port and the NICs' pacing gaps
//     are truncated to whole ns as ns-3's Seconds(double) truncates them
//     (fabric.Config.WholeNs, rnic Compat.WholeNsPacing). Default: exact ps.
//   - Pacing on a rate change: only HPCC moves the pending pacing time
//     (rnic Compat.RepaceOnChangeRate).
//   - The NIC's transmit loop and round robin: ns-3's wake-up rule and its
//     QP-list scan with the index shift after finished QPs are dropped
//     (rnic Compat.NS3Egress, sched/baselines NS3Fair); with scheduler fair
//     only, the one ns-3 has.
//   - Event order: each packet's delivery is scheduled when it is sent
//     (fabric.Config.NS3EventOrder), and a flow's QP opens two same-time
//     events after its start, after the events already due then, as
//     third.cc's application start does.
//   - INT: byte and queue fields in ns-3's units (fabric.Config.INTBytesUnit).
//   - PFC headroom: switch.pfc_headroom auto means the reference's rate x
//     delay x 3 (third.cc ConfigHdrm), not dcsim's sized headroom.
//
// With compat: none (the default) none of this runs, and results are
// unchanged.
//
// # Built-ins
//
// Builtins lists the scenarios Load knows by name, each with a line of
// documentation (`dcsim scenarios` prints them): "default" is the default
// scenario of docs/design.md "Command line" (128-host 100G spine-leaf,
// WebSearch at 50%, fair sharing, DCQCN, 10ms of arrivals); the others
// are the HPCC and STORM experiments, storage fan-out, GPT-3/LLaMA
// training iterations, a 128-host all-reduce and a 15:1 incast on a
// 16-host star.
//
// # Plug-ins
//
// Schedulers and congestion-control algorithms are selected by name from
// the catalog's Schedulers and Algorithms. Each entry is a Plugin: a
// name, a line of documentation, a function that returns its parameter
// struct filled with defaults for a line rate, an optional check, and for
// an algorithm the switch ECN marking its reference runs use. Its
// constructor and counters are wiring's (plugins.go). Adding an
// implementation is its own package plus one line in wiring's table;
// TestTestOnlySchedulerRuns and TestTestOnlyAlgorithmRuns (package wiring)
// add one that exists only in the test and run it end to end. The
// routers are the catalog's Routers (RouterKind: name, doc, whether it
// reorders a QP's packets and whether it diverts them from the flow
// hash), named by switch.routing.kind: ecmp, adaptive (per flowlet,
// flowlet_gap default 5 us, flowlet_slots default 4096) and spray. Without
// switch.routing the switches hash flows by ECMP, with the reference
// model's hash under compat: hpcc-ns3; nothing prints and every scenario
// keeps the hash it had before the field existed.
// switch.isolation (congestion detection, ARNs, the AFC; package
// fabric/isolation), switch.queueing (the DBBM, vFtree and Flow2SL
// class maps) and switch.credit (credit-based links instead of PFC,
// {bytes: 64KB} per class and switch input; fabric/credit.go) are absent
// the same way unless given.
//
// Knobs that cost without bound or act on nothing are rejected, naming the
// field and the bound:
//
//   - switch.routing.flowlet_slots and switch.isolation.flow_slots are
//     powers of two up to 2^20 (16 and 24 B a slot, on every switch), and
//     the switches' tables count towards the 8 GiB footprint above
//     ("switch tables"; a file topology's once it is read).
//   - switch.routing.flowlet_gap, with a go-back-N (not selective)
//     receiver, is 0 (rejected) or at least one nic.mtu payload's
//     serialisation at topology.host_link (80 ns at 1000 B and 100 Gbps):
//     a shorter gap reorders a QP's packets as per-packet routing does
//     (a file topology, whose rates are known once read, is not checked).
//   - switch.routing.flowlet_gap and flowlet_slots given a value other than
//     their defaults under kind ecmp or spray, which have no flowlets, are
//     errors (their defaults pass: a printed scenario spells them out);
//     switch.isolation.afi: true needs kind adaptive or spray, since AFI
//     adapts the packets adaptive routing diverts.
//   - switch.isolation.arn_entry_lifetime, with arn on, is at least
//     2 x (2 x topology.link_delay + 2 x a 64 B ARN frame at
//     topology.host_link) (4.02 us on the default spine-leaf, 420 ns on
//     arn-afi): roots refresh every lifetime/2, and faster refreshes only
//     add frames (1 ps looped at one instant).
//
// Workload kinds are the catalog's Workloads: each WorkloadKind carries
// its name, doc line, a parameter struct with its defaults (the
// workload.<kind> sub-map; none for cloud), its check, whether it is a
// training run and its run.parquet label. The built-in kinds' schemas are
// the *Kind values of workloads.go (their parameter types are this
// package's); wiring's workloadKinds pairs each with its constructor,
// which returns one wiring.Workload (Start, Done, Check, Counters)
// whatever the kind. Workload.Params holds the kind's parameter struct;
// the decoder keeps a sub-map given for another kind until Validate
// reports it, with the same messages as when the sub-maps were fields. A
// kind of its own package (parameters, check, generator) is that package
// plus one line in wiring's table; TestTestOnlyWorkloadRuns (package
// wiring) adds a kind that exists only in the test and runs it end to
// end.
//
// # Paths to files
//
// topology.file, workload.flowlist.file and CDF paths are used as written:
// relative paths are relative to the working directory of the run, not to
// the scenario file, so that the printed scenario means the same file
// wherever it is copied. Validate reads no files; they are read, and
// their errors reported, when the simulation is built.
package scenario
