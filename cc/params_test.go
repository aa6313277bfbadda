package cc_test

import (
	"errors"
	"math"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
)

// The shared bounds say what the algorithms' Validate said before they
// shared them (the scenario's error lines quote these), and the first
// failed check is the one reported.
func TestParamChecks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(c *cc.ParamChecks)
		want  string // "" = passes
	}{
		{"positive", func(c *cc.ParamChecks) { cc.Positive(c, "min_rate", engine.Rate(0)) }, "x: min_rate: must be positive, got 0bps"},
		{"positive ok", func(c *cc.ParamChecks) { cc.Positive(c, "min_rtt", engine.Microsecond) }, ""},
		{"non-negative", func(c *cc.ParamChecks) { cc.NonNegative(c, "mi_thresh", -1) }, "x: mi_thresh: must be >= 0, got -1"},
		{"at least", func(c *cc.ParamChecks) { cc.AtLeast(c, "rp_timer", engine.Nanosecond, 100*engine.Nanosecond) },
			"x: rp_timer: must be at least 100ns, got 1ns"},
		{"fraction 0", func(c *cc.ParamChecks) { cc.Fraction(c, "ewma_gain", 0) }, "x: ewma_gain: must be in (0, 1], got 0"},
		{"fraction NaN", func(c *cc.ParamChecks) { cc.Fraction(c, "ewma_gain", math.NaN()) }, "x: ewma_gain: must be in (0, 1], got NaN"},
		{"fraction 1", func(c *cc.ParamChecks) { cc.Fraction(c, "u_target", 1) }, ""},
		{"weight", func(c *cc.ParamChecks) { cc.Weight(c, "beta", 1.5) }, "x: beta: must be in [0, 1], got 1.5"},
		{"weight 0", func(c *cc.ParamChecks) { cc.Weight(c, "alpha", 0) }, ""},
		{"first wins", func(c *cc.ParamChecks) {
			cc.Weight(c, "alpha", 2)
			cc.Positive(c, "min_rtt", -1)
		}, "x: alpha: must be in [0, 1], got 2"},
	} {
		c := cc.CheckParams("x")
		tc.check(c)
		err := c.Err()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: got %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.want)
		}
		var pe *cc.ParamError
		if err != nil && !errors.As(err, &pe) {
			t.Errorf("%s: got a %T, want a *cc.ParamError", tc.name, err)
		}
	}
}
