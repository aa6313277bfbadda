// Package wiring is the composition root: it holds the plugin tables,
// turns a validated scenario into a simulation, runs it and writes its
// outputs. It sits between package scenario (the schema alone: fields,
// defaults, validation, printing; no simulation package) and the
// simulation packages (engine, fabric, rnic, cc, sched, workloads), so
// that scenario describes a run and wiring builds one; it is the only
// package that imports the plugins (internal/lint TestPluginImports).
//
//	s, err := wiring.Catalog().Load("default", []string{"workload.load=0.8"})
//	sim, err := wiring.Build(s)         // topology, fabric, NICs, generators
//	res := sim.Run(wiring.Options{})    // arrivals until duration, then the drain
//	err = res.WriteDir("out/my-run")    // flows, run, iterations, collectives, samples parquet
//
// # The parallel engine
//
// BuildWith(s, BuildOptions{Threads: n}) builds on an engine.World
// (docs/parallel.md): the fabric's units (fabric.Units at
// BuildOptions.Units: a pod with its hosts by default, a switch with its
// hosts at fabric.GrainSwitch) plus one unit of
// flow generators, which makes each flow one lookahead before its start
// and sends it to its source's unit (driver), so that flow ids and
// starts are the sequential engine's. The flow recorder, the counters and
// the sampler read the simulation between World.Runs, when no thread
// runs; the run loop ends a Run at every sample time. Every file is the
// same for every n; training executors run at every window's barrier
// (train_world.go). ParallelRefusal and addWorkloads refuse what cannot
// run there yet (the ns-3 profile, congestion isolation, closed loops,
// whose completions post at once on other hosts, and a training send
// latency below the lookahead).
//
// # Plugin tables
//
// Each scheduler, congestion-control algorithm, router and workload kind
// is one line in a table here (plugins.go: schedulers, algorithms,
// routers; workloads.go: workloadKinds) that holds its schema (a
// scenario.Plugin, RouterKind or WorkloadKind: name, doc line, params
// with defaults and check) and its constructor: New for a scheduler,
// router or workload kind, Spec and ReactsToECN for an algorithm, and a
// scheduler's run.parquet counters. Catalog() is the schema of the
// built-in tables, which every command parses scenarios with; each entry
// points back to its line (Impl), so Build takes the implementation from
// the catalog the scenario was read with. A test or a program with a
// plugin of its own extends Builtin() and makes its catalog with
// Tables.Catalog (TestTestOnlySchedulerRuns, TestTestOnlyAlgorithmRuns,
// TestTestOnlyRouterRuns, TestTestOnlyWorkloadRuns). A new plugin is its
// package plus one table line; a workload kind whose parameter struct
// lives in its own package too.
//
// Every workload kind's constructor returns a Workload (Start, Done,
// Check, Counters): a FlowWorkload around a flow generator, a training
// run, or a ClosedLoop (HaloLoop, MPITraceLoop) whose executor is made on
// the cluster when it starts. They start in rounds, flow generators, then
// training runs, then the rest, each in workload order: same-time events
// fire in the order they were scheduled, and that is the order of earlier
// versions. Every scheduler's counters are reported, whichever runs, so
// run.parquet's counters map has the same keys in every run.
//
// # The data path
//
// One message of a flow goes, in simulated time:
//
//	workload generator (cloud.Generator, simai trainer)
//	  -> driver.Fire: Cluster.NewMessage, Cluster.Post      (wiring)
//	  -> Host.post: the QP of the message, Scheduler.Posted   (rnic)
//	  -> Port.Kick -> Host.Next: control FIFO first, then
//	     Scheduler.Pick -> sendData: Stamper.Stamp, pacing by the
//	     QP's cc.Algorithm rate, Scheduler.Sent             (rnic, sched, cc)
//	  -> fabric: links, switches, shared buffer, PFC, ECN, INT
//	  -> Host.Receive at the responder: rocev2.Receiver (in order,
//	     go-back-N), Scheduler.Received, ACK/NACK/CNP into the control FIFO
//	  -> fabric back to the requester
//	  -> Host.receiveAck: rocev2.Sender, cc.Algorithm.OnAck,
//	     Scheduler.Acked; the ACK of the last byte completes the message
//	  -> Cluster.OnComplete (wiring: training, NIC concurrency) and one
//	     flows.parquet row per message, in posting order: streamed into
//	     Options.Dir once it and every message before it have finished,
//	     the rows behind a running message waiting in memory and then in
//	     spill runs (flowRecorder, spill.go), or at the end of the run
//	     (Result.Flows, without a directory)
//
// # Files
//
// build.go is Build and the driver that posts a generator's flows; simulate.go the run loop,
// the run record and WriteDir; flows.go the flow records, streamed or
// kept; train.go the training and collective
// workloads (workloads/simai); sampler.go trace.* sampling into
// samples.parquet; nicload.go the NIC concurrency counters of training
// runs, counted as the run goes (nicTracker); spill.go the spill runs of
// the flow recorder; limits.go the checks that need the built network (buffer against
// headroom, the largest message the clock can time).
//
// # Stopping
//
// A run stops early, at the end of the chunk of simulated time under way
// (100 us), on the first error writing Options.Dir (a full disk, a file
// size limit) or once Options.Context is done (dcsim's Ctrl-C). The files
// it was streaming are then removed, spill files included, and
// WriteDir returns that error, naming the file, or context.Cause: a
// failed or stopped run leaves no file of its own behind.
//
// # Determinism
//
// A run draws every random number from named engine streams
// ("ecmp", "workload", "extra_workloads[0]", ...), iterates no map into
// events, and reads files (topology, flow lists, CDFs, SimAI workloads)
// only in Build, so the same scenario and seed give byte-identical
// flows.parquet, iterations.parquet and samples.parquet, streamed or not
// (analysis.Stream writes the bytes that writing every row at once does).
package wiring
