package storm_test

import (
	"errors"
	"math"
	"reflect"
	"regexp"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/sched/storm"
)

func TestDefaultsValid(t *testing.T) {
	for _, v := range []storm.Variant{storm.Full, storm.SenderOnly, storm.Software} {
		p := storm.DefaultParamsFor(v)
		if err := p.Validate(); err != nil {
			t.Errorf("%s defaults: %v", v, err)
		}
		if p.Variant != v {
			t.Errorf("%s defaults carry variant %q", v, p.Variant)
		}
	}
	if got := storm.DefaultParamsFor(storm.Software).WithinClassOrder; got != storm.OrderRR {
		t.Errorf("storm-sw within_class_order = %q, want rr", got)
	}
	if got := storm.DefaultParams().WithinClassOrder; got != storm.OrderUrgency {
		t.Errorf("storm within_class_order = %q, want urgency", got)
	}
}

// Every knob is a YAML field with a snake_case name.
func TestParamsYAMLTags(t *testing.T) {
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	typ := reflect.TypeOf(storm.Params{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		tag := f.Tag.Get("yaml")
		if f.Name == "Variant" {
			if tag != "-" {
				t.Errorf("Variant has yaml tag %q, want \"-\" (it follows the scheduler name)", tag)
			}
			continue
		}
		if !snake.MatchString(tag) {
			t.Errorf("field %s has yaml tag %q, want snake_case", f.Name, tag)
		}
	}
}

func TestValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		field  string
		mutate func(*storm.Params)
	}{
		{"variant", func(p *storm.Params) { p.Variant = "storm-x" }},
		{"bdp_bytes", func(p *storm.Params) { p.BDPBytes = -1 }},
		{"priorities", func(p *storm.Params) { p.Priorities = 4 }},
		{"priorities", func(p *storm.Params) { p.Priorities = 0 }},
		{"slots_backlog", func(p *storm.Params) { p.SlotsBacklog = 0 }},
		{"slots_other", func(p *storm.Params) { p.SlotsOther = -1 }},
		{"grant_granularity", func(p *storm.Params) { p.GrantGranularity = "bytes" }},
		{"grant_chunk_bytes", func(p *storm.Params) { p.GrantChunkBytes = -5 }},
		{"grouping", func(p *storm.Params) { p.Grouping = "wr" }},
		{"group_window", func(p *storm.Params) { p.GroupWindow = -engine.Nanosecond }},
		{"within_class_order", func(p *storm.Params) { p.WithinClassOrder = "fifo" }},
		{"guard", func(p *storm.Params) { p.Guard = "none" }},
		{"storm_header_bytes", func(p *storm.Params) { p.StormHeaderBytes = -1 }},
		{"grant_bytes", func(p *storm.Params) { p.GrantBytes = 0 }},
		{"grant_class", func(p *storm.Params) { p.GrantClass = 8 }},
		{"sw_decision_delay", func(p *storm.Params) { p.SWDecisionDelay = -1 }},
		{"backlog_update_gap", func(p *storm.Params) { p.BacklogUpdateGap = -1 }},
		{"backlog_update_bytes", func(p *storm.Params) { p.BacklogUpdateBytes = 0 }},
		{"release_after_rtts", func(p *storm.Params) { p.ReleaseAfterRTTs = -1 }},
		{"release_after_rtts", func(p *storm.Params) { p.ReleaseAfterRTTs = math.NaN() }},
		{"p_small", func(p *storm.Params) { p.PSmall = 0 }},
		{"p_backlog", func(p *storm.Params) { p.PBacklog = 8 }},
		{"p_low", func(p *storm.Params) { p.PLow = 1 }},
		{"p_backlog", func(p *storm.Params) { p.PSmall, p.PBacklog = 3, 2 }},
	} {
		p := storm.DefaultParams()
		c.mutate(&p)
		err := p.Validate()
		var pe *cc.ParamError
		if !errors.As(err, &pe) || pe.Field != c.field {
			t.Errorf("%s: got %v, want a *cc.ParamError for field %s", c.field, err, c.field)
		}
	}
	p := storm.DefaultParams()
	p.PSmall, p.PBacklog, p.PLow = 2, 2, 2 // equal classes are allowed (one queue)
	if err := p.Validate(); err != nil {
		t.Errorf("p_small = p_backlog = p_low = 2: %v, want valid", err)
	}
}

func TestCountersMap(t *testing.T) {
	m := storm.Stats{GuardStalls: 3, GrantsSent: 2, GrantLatencyMin: 2 * engine.Microsecond}.Map()
	for k, want := range map[string]int64{"storm.guard_stalls": 3, "storm.grants_sent": 2, "storm.grant_latency_min_ns": 2000} {
		if m[k] != want {
			t.Errorf("%s = %d, want %d", k, m[k], want)
		}
	}
}
