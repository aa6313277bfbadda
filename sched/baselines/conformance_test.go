package baselines_test

import (
	"testing"

	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/sched/schedtest"
)

func TestConformance(t *testing.T) {
	single := baselines.DefaultSRPTParams()
	single.Tagging = baselines.TagSingle
	inherit := baselines.DefaultSRPTParams()
	inherit.Guard = baselines.GuardInherit
	stall := baselines.DefaultSRPTParams()
	stall.Guard = baselines.GuardStall
	pias2 := baselines.DefaultPIASParams()
	pias2.Thresholds, _ = baselines.PIASTable("websearch-equal", 2)
	piasStall := baselines.DefaultPIASParams()
	piasStall.Guard = baselines.GuardStall
	for _, c := range []struct {
		name string
		new  func(*rnic.Host) rnic.Scheduler
	}{
		{"fair", func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(3) }},
		{"fair-message", func(*rnic.Host) rnic.Scheduler { return baselines.NewFairMessage(3) }},
		{"srpt", baselines.NewSRPT(baselines.DefaultSRPTParams())},
		{"srpt-single", baselines.NewSRPT(single)},
		{"pias", baselines.NewPIAS(baselines.DefaultPIASParams())},
		{"srpt-inherit", baselines.NewSRPT(inherit)},
		{"srpt-stall", baselines.NewSRPT(stall)},
		{"pias-2", baselines.NewPIAS(pias2)},
		{"pias-stall", baselines.NewPIAS(piasStall)},
	} {
		t.Run(c.name, func(t *testing.T) { schedtest.Run(t, c.name, c.new) })
	}
}
