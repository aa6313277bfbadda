package wiring

import (
	"github.com/dcsim/dcsim/scenario"
)

// ns3Rules are the rules of the compat: hpcc-ns3 profile (the scenario
// package's "Reference compatibility"), each one behaviour of the HPCC
// ns-3 model that dcsim's default does otherwise; the packages' docs cite
// the ns-3 file and function of each. The profile is all of them and the
// default none; they are applied here, once, to the configurations Build
// makes, so that no other package asks which profile runs. A test may
// build with any subset, to measure what each rule contributes
// (TestNS3ProfileRules).
type ns3Rules uint32

const (
	// ns3ECMP: the reference's ECMP hash over node ids, seeded by the
	// switch (fabric.NS3ECMP), for the scenario without switch.routing.
	ns3ECMP ns3Rules = 1 << iota
	// ns3PairPorts: source ports from 10000 per (src, dst) pair in the
	// order QPs open (rnic.Compat.PairPorts).
	ns3PairPorts
	// ns3WholeNs: serialisation at every port and pacing gaps truncated
	// to whole ns (fabric.Config.WholeNs, rnic.Compat.WholeNsPacing).
	ns3WholeNs
	// ns3Repace: only an algorithm whose updates go through ChangeRate
	// moves a pending pacing time (rnic.Compat.RepaceOnChangeRate).
	ns3Repace
	// ns3Egress: ns-3's transmit loop and its round robin with the index
	// shift (rnic.Compat.NS3Egress, baselines.NS3Fair), with scheduler fair.
	ns3Egress
	// ns3EventOrder: a packet's delivery is scheduled when it is sent
	// (fabric.Config.NS3EventOrder), and a flow's QP opens two same-time
	// events after its start (ns3Start).
	ns3EventOrder
	// ns3ECNDraws: ECN marks drawn from ns-3's own generator and streams
	// (fabric.NS3Rand).
	ns3ECNDraws
	// ns3Arith: the congestion control's arithmetic in ns-3's operations
	// (cc.Env.NS3Arith).
	ns3Arith
	// ns3INTUnits: INT byte and queue fields in ns-3's units
	// (fabric.Config.INTBytesUnit, cc.Spec.INTMulti).
	ns3INTUnits
	// ns3Headroom: switch.pfc_headroom auto is the reference's rate x
	// delay x 3, not dcsim's sized headroom.
	ns3Headroom

	ns3AllRules = ns3Headroom<<1 - 1
)

// ns3RuleNames name the rules, in bit order, for tests and tables.
var ns3RuleNames = [...]string{"ecmp", "pair-ports", "whole-ns", "repace", "egress", "event-order",
	"ecn-draws", "arith", "int-units", "headroom"}

// profileRules are the rules of s's compat profile.
func profileRules(s *scenario.Scenario) ns3Rules {
	if s.Compat == scenario.CompatHPCCNS3 {
		return ns3AllRules
	}
	return 0
}

func (r ns3Rules) has(rule ns3Rules) bool { return r&rule != 0 }

// router is the scenario's router under rules: switch.routing's when it
// names adaptive routing or spraying, else ECMP with the reference's hash
// when the rules say so and dcsim's salted one when not.
func (r ns3Rules) router(s *scenario.Scenario) *Router { return routerFor(s, r.has(ns3ECMP)) }
