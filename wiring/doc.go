// Package wiring turns a validated scenario into a simulation, runs it and
// writes its outputs: it sits between package scenario (the schema, its
// defaults, its validation and the plugin tables) and the simulation
// packages (engine, fabric, rnic, cc, sched, workloads), so that scenario
// describes a run and wiring builds one.
//
//	s, err := wiring.Catalog().Load("default", []string{"workload.load=0.8"})
//	sim, err := wiring.Build(s)         // topology, fabric, NICs, generators
//	res := sim.Run(wiring.Options{})    // arrivals until duration, then the drain
//	err = res.WriteDir("out/my-run")    // flows, run, iterations, collectives, samples parquet
//
// Build takes every implementation from its scenario plugin entry: the
// scheduler's NewScheduler, the algorithm's Spec, the router of the compat
// profile (scenario.RouterFor), each workload's generator or training run
// from its kind's constructor (Workload.Build), and reads each scheduler's
// and workload kind's counters through scenario.SchedulerCounters and
// scenario.WorkloadCounters; it holds no table of its own, so adding a
// scheduler, an algorithm or a workload kind never touches this package.
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
