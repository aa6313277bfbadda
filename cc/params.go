package cc

import "fmt"

// ParamError is an unusable algorithm parameter. Field is the parameter's
// YAML key within the algorithm's own settings (e.g. "rate_ai" for
// cc.dcqcn.rate_ai), so that a scenario parser can point at its line.
type ParamError struct {
	Algorithm string // e.g. "dcqcn"
	Field     string // YAML key, snake_case
	Msg       string // what is wrong, lower case
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Algorithm, e.Field, e.Msg)
}

// ParamErrorf builds a *ParamError with a formatted message.
func ParamErrorf(algorithm, field, format string, args ...any) error {
	return &ParamError{Algorithm: algorithm, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ParamChecks collects the first unusable parameter of an algorithm's
// settings, in the order they are checked: an algorithm's Validate states
// one bound per field with the functions below and returns Err. The
// messages are the ones every algorithm shares, so a field reads the same
// whichever algorithm it belongs to.
type ParamChecks struct {
	algorithm string
	err       error
}

// CheckParams starts the checks of algorithm's settings.
func CheckParams(algorithm string) *ParamChecks { return &ParamChecks{algorithm: algorithm} }

// Err is the first failed check's *ParamError, or nil.
func (c *ParamChecks) Err() error { return c.err }

// Require records field as unusable, with the formatted message, unless ok.
func (c *ParamChecks) Require(ok bool, field, format string, args ...any) {
	if !ok && c.err == nil {
		c.err = ParamErrorf(c.algorithm, field, format, args...)
	}
}

// number is what a bound applies to: counts, rates, times, ratios.
type number interface {
	~int | ~int64 | ~float64
}

// Positive requires v > 0.
func Positive[T number](c *ParamChecks, field string, v T) {
	c.Require(v > 0, field, "must be positive, got %v", v)
}

// NonNegative requires v >= 0.
func NonNegative[T number](c *ParamChecks, field string, v T) {
	c.Require(v >= 0, field, "must be >= 0, got %v", v)
}

// AtLeast requires v >= lo.
func AtLeast[T number](c *ParamChecks, field string, v, lo T) {
	c.Require(v >= lo, field, "must be at least %v, got %v", lo, v)
}

// Fraction requires v in (0, 1]: a gain or a target that 0 would disable.
func Fraction(c *ParamChecks, field string, v float64) {
	c.Require(v > 0 && v <= 1, field, "must be in (0, 1], got %v", v)
}

// Weight requires v in [0, 1].
func Weight(c *ParamChecks, field string, v float64) {
	c.Require(v >= 0 && v <= 1, field, "must be in [0, 1], got %v", v)
}

// NICParams are the reference's RdmaHw settings that its launch script
// sets together with the CC choice and that every algorithm here takes:
// the HAS_WIN/VAR_WIN window (see Window) and ACK_HIGH_PRIO (reaching
// rnic through Spec.AckHighPrio). An algorithm's Params embed them last,
// tagged `yaml:",inline"`, so that they read and print as the algorithm's
// own keys (cc.dcqcn.has_win); min_rate, which every algorithm also
// takes, stays in each Params because DCQCN prints it among its own
// fields and the printed order is part of the schema.
type NICParams struct {
	HasWin bool `yaml:"has_win"` // window W = maxBdp
	VarWin bool `yaml:"var_win"` // window scales with R/R_max
	// AckHighPrio lets the NIC send this algorithm's ACKs while their
	// (data) class is paused (Spec.AckHighPrio).
	AckHighPrio bool `yaml:"ack_high_prio"`
}

// Spec starts the Spec of the algorithm name with these settings, built
// per QP by newAlg: no extra header, no INT, no timestamps, and
// ACK_HIGH_PRIO as set, so that no algorithm can leave it out. An
// algorithm that needs more on the wire sets those fields on the result.
func (n NICParams) Spec(name string, newAlg func(Env) Algorithm) Spec {
	return Spec{Name: name, AckHighPrio: n.AckHighPrio, New: newAlg}
}
