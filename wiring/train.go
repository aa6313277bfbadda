package wiring

import (
	"fmt"
	"strings"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/workloads/simai"
)

// trainer executes a SimAI workload (or a collective micro-benchmark) on
// the simulated network: the simai.Run decides what to send and when,
// every network transfer is an rnic message, and the message's completion
// drives the next step.
type trainer struct {
	sim *Sim
	run *simai.Run
	op  string // collective micro-benchmark: its op, for bus bandwidth
	// ranks is the world size; bytes the micro-benchmark's buffer size.
	ranks int
	bytes int64
	// nicPerGPU: every GPU has its own NIC (host = rank); the executor's
	// "hosts" are servers, whose GPUs talk over NVLink.
	nicPerGPU bool
}

// trainPost and trainWake are the events of one pending action.
type trainPost struct {
	tr *trainer
	t  simai.Transfer
}

type trainSent struct {
	tr *trainer
	id int
}

type trainWake struct {
	tr    *trainer
	token int
}

// transferRef is the message's User: which trainer and transfer it is.
type transferRef struct {
	tr *trainer
	id int
}

func (p *trainPost) Fire(now engine.Time, _ uint8) { p.tr.post(now, p.t) }
func (e *trainSent) Fire(now engine.Time, _ uint8) { e.tr.apply(e.tr.run.Sent(now, e.id)) }
func (w *trainWake) Fire(now engine.Time, _ uint8) { w.tr.apply(w.tr.run.Wake(now, w.token)) }

// newTrainer makes t's trainer; it runs on the Sim its workload is
// started on.
func newTrainer(t *training) (*trainer, error) {
	tr := &trainer{op: t.Op, bytes: t.Bytes, nicPerGPU: t.NICPerGPU, ranks: t.Config.GPUs}
	var err error
	if tr.run, err = simai.NewRun(t.Workload, t.Config); err != nil {
		return nil, err
	}
	return tr, nil
}

// apply turns the executor's actions into events. The slice is reused by
// the executor's next call, so it is consumed here at once.
func (tr *trainer) apply(actions []simai.Action) {
	if b := tr.sim.trainBar; b != nil {
		b.apply(tr, actions)
		return
	}
	eng := tr.sim.Engine
	for _, a := range actions {
		switch a.Kind {
		case simai.Post:
			if a.At <= eng.Now() {
				tr.post(eng.Now(), a.Transfer)
			} else {
				eng.At(a.At, &trainPost{tr, a.Transfer}, 0)
			}
		case simai.Wake:
			eng.At(max(a.At, eng.Now()), &trainWake{tr, a.Token}, 0)
		}
	}
}

func (tr *trainer) post(now engine.Time, t simai.Transfer) {
	src, dst, network := tr.endpoints(t)
	if !network {
		tr.apply(tr.run.Done(now, t.ID))
		return
	}
	tr.sim.post(tr.message(t, src, dst))
}

// endpoints are the hosts whose NICs transfer t goes between, and whether
// it crosses the network (it has bytes and two hosts; if not it is done
// at its post time).
func (tr *trainer) endpoints(t simai.Transfer) (src, dst int, network bool) {
	src, dst = t.Src, t.Dst
	if tr.nicPerGPU {
		src, dst = t.SrcGPU, t.DstGPU // each GPU sends through its own NIC
	}
	return src, dst, t.Bytes > 0 && src != dst
}

// message makes transfer t's message from src to dst (endpoints) and
// keeps it for its row.
func (tr *trainer) message(t simai.Transfer, src, dst int) *rnic.Message {
	s := tr.sim
	m := s.Cluster.NewMessage(src, dst, t.Bytes)
	m.Generator, m.Tag, m.User = "simai", t.Tag, transferRef{tr, t.ID}
	s.Messages = append(s.Messages, m)
	return m
}

// complete is the cluster's completion callback: training transfers drive
// their executor; other messages need nothing.
func (s *Sim) complete(m *rnic.Message) {
	if s.nic != nil {
		s.nic.finished(m)
	}
	if ref, ok := m.User.(transferRef); ok {
		if b := s.trainBar; b != nil { // the sender's unit: the barrier calls Done
			b.note(s.Net.HostUnit(m.Src), trainCall{at: m.Finished, kind: callDone, tr: ref.tr, id: ref.id})
			return
		}
		ref.tr.apply(ref.tr.run.Done(m.Finished, ref.id))
	}
}

// sent is the cluster's last-byte-serialised callback: a training
// transfer releases its sender's side when its serialisation ends.
func (s *Sim) sent(m *rnic.Message, at engine.Time) {
	if ref, ok := m.User.(transferRef); ok {
		if b := s.trainBar; b != nil { // the sender's unit: the barrier calls Sent
			b.note(s.Net.HostUnit(m.Src), trainCall{at: at, kind: callSent, tr: ref.tr, id: ref.id})
			return
		}
		s.Engine.At(at, &trainSent{ref.tr, ref.id}, 0)
	}
}

// iterationRecords and collectiveRecords convert the executors' statistics.
func (s *Sim) trainingRecords(runID string) ([]analysis.IterationRecord, []analysis.CollectiveRecord) {
	var its []analysis.IterationRecord
	var cs []analysis.CollectiveRecord
	for _, tr := range s.trains {
		for _, it := range tr.run.Iterations() {
			its = append(its, analysis.IterationRecord{RunID: runID, Iteration: int64(it.Iteration),
				StartNs: it.Start.Nanoseconds(), EndNs: it.End.Nanoseconds(), DurationNs: it.Duration.Nanoseconds(),
				ComputeNs: it.Compute.Nanoseconds(), ExposedCommNs: it.ExposedComm.Nanoseconds()})
		}
		for _, c := range tr.run.Collectives() {
			cs = append(cs, analysis.CollectiveRecord{RunID: runID, Iteration: int64(c.Iteration), Name: c.Name,
				Op: c.Op.String(), Group: c.Group, Bytes: c.Bytes, StartNs: c.Start.Nanoseconds(), EndNs: c.End.Nanoseconds()})
		}
	}
	return its, cs
}

// TrainingProgress is how far the training workloads are: iterations
// finished of those asked for, and collectives finished. It is zero for a
// run without training.
type TrainingProgress struct {
	Iterations, IterationsDone, CollectivesDone int
}

func (s *Sim) trainingProgress() TrainingProgress {
	var p TrainingProgress
	for _, tr := range s.trains {
		p.Iterations += tr.run.Config().Iterations
		p.IterationsDone += len(tr.run.Iterations())
		p.CollectivesDone += len(tr.run.Collectives())
	}
	return p
}

// Training reports whether the scenario runs a training workload.
func (s *Sim) Training() bool { return len(s.trains) > 0 }

// trainingSummary is one line per training workload for the terminal.
func (s *Sim) trainingSummary() string {
	var b strings.Builder
	for _, tr := range s.trains {
		its := tr.run.Iterations()
		if len(its) == 0 {
			fmt.Fprintf(&b, "training: no iteration finished\n")
			continue
		}
		var sum engine.Time
		for _, it := range its {
			sum += it.Duration
		}
		mean := sum / engine.Time(len(its))
		ms := func(t engine.Time) float64 { return t.Seconds() * 1e3 }
		noun := "iterations"
		if len(its) == 1 {
			noun = "iteration"
		}
		fmt.Fprintf(&b, "training: %d %s, mean iteration time %.3f ms (compute %.3f ms, exposed communication %.3f ms)",
			len(its), noun, ms(mean), ms(its[0].Compute), ms(mean-its[0].Compute))
		c := s.nic.result(s.Engine.Now())
		fmt.Fprintf(&b, "; per NIC at most %d flows and %d QPs at once, %.2f flows and %.2f QPs on average while busy",
			c.MaxFlows, c.MaxQPs, c.MeanFlows, c.MeanQPs)
		if tr.op != "" {
			op, _ := simai.ParseOp(tr.op)
			fmt.Fprintf(&b, "; %s of %s over %d hosts: bus bandwidth %.1f Gbps",
				tr.op, analysis.HumanSize(tr.bytes), tr.ranks, simai.BusBandwidth(op, tr.bytes, tr.ranks, mean))
		}
		b.WriteString("\n")
	}
	return b.String()
}
