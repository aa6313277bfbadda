package storm_test

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/sched/schedtest"
	"github.com/dcsim/dcsim/sched/storm"
)

func TestConformance(t *testing.T) {
	for _, c := range []struct {
		name   string
		v      storm.Variant
		mutate func(*storm.Params)
	}{
		{"storm", storm.Full, nil},
		{"storm-sender", storm.SenderOnly, nil},
		{"storm-sw", storm.Software, nil},
		{"storm-sw-delay", storm.Software, func(p *storm.Params) { p.SWDecisionDelay = 2 * engine.Microsecond }},
		{"storm-chunk", storm.Full, func(p *storm.Params) { p.GrantGranularity = storm.GrantChunk; p.GrantChunkBytes = 20_000 }},
		{"storm-literal", storm.Full, func(p *storm.Params) { *p = p.Literal() }},
		{"storm-preempt", storm.Full, func(p *storm.Params) { *p = p.Literal(); p.Preempt = true }},
		{"storm-updates", storm.Full, func(p *storm.Params) { *p = p.Literal(); p.BacklogUpdates = true }},
		{"storm-release", storm.Full, func(p *storm.Params) { *p = p.Literal(); p.ReleaseAfterRTTs = 0.5 }},
		{"storm-lend-chunk", storm.Full, func(p *storm.Params) {
			p.Lend = true
			p.GrantGranularity = storm.GrantChunk
			p.BacklogUpdateGap = 100 * engine.Nanosecond
		}},
		{"storm-small-set", storm.Full, func(p *storm.Params) { p.SmallInActiveSet = true }},
		{"storm-preempt-small-set", storm.Full, func(p *storm.Params) { p.Preempt = true; p.SmallInActiveSet = true }},
		{"storm-inherit", storm.Full, func(p *storm.Params) { p.Guard = storm.GuardInherit }},
		{"storm-guard-off", storm.Full, func(p *storm.Params) { p.Guard = storm.GuardOff }},
		{"storm-2prio-2slots", storm.Full, func(p *storm.Params) { p.Priorities = 2; p.SlotsBacklog, p.SlotsOther = 2, 2 }},
		{"storm-grant-class-1", storm.Full, func(p *storm.Params) { p.GrantClass = 1; p.StormHeaderBytes = 16; p.Grouping = storm.GroupID }},
	} {
		p := storm.DefaultParamsFor(c.v)
		if c.mutate != nil {
			c.mutate(&p)
		}
		t.Run(c.name, func(t *testing.T) { schedtest.Run(t, c.name, storm.New(p, storm.Env{})) })
	}
}
