package wiring

import (
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/scenario"
)

// halfRate is a congestion control that exists only in this test: every
// QP sends at a fixed fraction of the line rate.
type halfRate struct{ rate engine.Rate }

func (h *halfRate) OnAck(*cc.Feedback)     {}
func (h *halfRate) OnCNP(engine.Time)      {}
func (h *halfRate) OnTimer(engine.Time)    {}
func (h *halfRate) NextTimer() engine.Time { return engine.Never }
func (h *halfRate) Rate() engine.Rate      { return h.rate }
func (h *halfRate) Window() int64          { return 0 }

type halfRateParams struct {
	Percent int `yaml:"percent"`
}

// An algorithm of a test's own is its code and one table line (issue 28):
// its params parse and validate under cc.<name>, and Build runs with it.
func TestTestOnlyAlgorithmRuns(t *testing.T) {
	var built int
	tables := Builtin()
	tables.Algorithms = append(tables.Algorithms, Algorithm{Plugin: scenario.Plugin{Name: "test-fixed", Doc: "test only: a fixed fraction of line rate",
		Params: func(engine.Rate) any { return &halfRateParams{Percent: 50} },
		Validate: func(p any) error {
			if v := p.(*halfRateParams).Percent; v < 1 || v > 100 {
				return &scenario.FieldError{Path: "percent", Msg: "must be in 1..100"}
			}
			return nil
		}},
		Spec: func(p any) cc.Spec {
			pct := engine.Rate(p.(*halfRateParams).Percent)
			return cc.Spec{Name: "test-fixed", New: func(env cc.Env) cc.Algorithm { built++; return &halfRate{rate: env.LineRate * pct / 100} }}
		}})
	cat := tables.Catalog()

	if _, err := cat.Parse("t.yaml", []byte("cc: {algorithm: test-fixed, test-fixed: {percent: 0}}\n"), nil); err == nil ||
		err.Error() != "t.yaml:1: cc.test-fixed.percent: must be in 1..100" {
		t.Errorf("percent 0: got %v, want t.yaml:1: cc.test-fixed.percent: must be in 1..100", err)
	}
	sim := mustBuildWith(t, cat, "default", "topology.kind=star", "topology.hosts=8", "duration=200us",
		"cc.algorithm=test-fixed", "cc.test-fixed.percent=25")
	res := sim.Run(Options{})
	if !res.Drained || res.Run.FlowsDone != res.Run.FlowsTotal || res.Run.FlowsTotal == 0 {
		t.Fatalf("got %d of %d flows done (drained %v), want all of at least one", res.Run.FlowsDone, res.Run.FlowsTotal, res.Drained)
	}
	if built == 0 {
		t.Errorf("no QP ran the test algorithm")
	}
	if res.Run.CNPs != 0 {
		t.Errorf("CNPs: got %d, want 0 (the algorithm does not react to ECN)", res.Run.CNPs)
	}
}
