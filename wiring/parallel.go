package wiring

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/scenario"
)

// The parallel engine (BuildOptions.Threads, docs/parallel.md): the
// fabric's units (fabric.Units: by default a pod with its hosts, a leaf
// with its hosts on two tiers, a top-tier switch alone) plus one unit of
// flow generators, run by up to Threads threads in windows of one
// lookahead, the smallest delay of a link between units.
//
// What runs there is what has no state shared across units outside the
// engine: open-loop traffic (flow generators, whose arrivals are known
// ahead, so the generators' unit makes each flow one lookahead before its
// start and sends it to its source's unit) over any fabric, congestion
// control and scheduler; and training runs, whose executor is the
// World's barrier (train_world.go), exact when the send latency is at
// least the lookahead; congestion isolation with credit_view: delayed
// (fabric/isolation, per switch; a detector sees the downstream's buffer
// one link delay late, fabric.Network.DelayIngressView, the same model on
// both engines). Closed loops (halo, mpitrace) post a flow at the
// instant another completes, on another host: zero lookahead, so they
// stay on the sequential engine, as does the ns-3 profile, whose flow-for-flow
// replays depend on ns-3's global event order (docs/parallel.md, "What
// the output contract becomes").

// ParallelRefusal says why scenario s cannot run on the parallel engine,
// or "" if it can (its workload kinds are checked when they are built).
func ParallelRefusal(s *scenario.Scenario) string {
	switch {
	case s.Compat != scenario.CompatNone:
		return fmt.Sprintf("compat: %s replays the reference's single event order; it runs on the sequential engine only (leave --threads and parallel unset)", s.Compat)
	case s.Switch.Isolation != nil && !s.Switch.Isolation.DelayedCreditView():
		return "switch.isolation.credit_view: live reads the downstream switch's buffer at the instant, which the parallel engine cannot do across its parts: set it to delayed (--set switch.isolation.credit_view=delayed, the same model on both engines), or run without --threads and a parallel section"
	}
	return ""
}

// newWorld makes the parallel engine for topology t: the fabric's units,
// then the generators' unit, split among threads by weight.
func newWorld(s *scenario.Scenario, t *fabric.Topology, threads int, grain fabric.Grain) (w *engine.World, unitOf []int32, units int, err error) {
	unitOf, units, weight := fabric.Units(t, grain)
	lookahead, err := fabric.Lookahead(t, unitOf)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("threads: %v", err)
	}
	// The generators' unit fires one event per flow: light.
	w, err = engine.NewWorldWeighted(s.Seed, append(weight, 1), threads, lookahead)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("threads: %v", err)
	}
	return w, unitOf, units, nil
}
