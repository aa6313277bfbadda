package none

import (
	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
)

// Name is the algorithm's name in scenarios (cc.algorithm: none).
const Name = "none"

// Params is empty: "none" has no settings. It exists so that every
// algorithm is configured and built the same way.
type Params struct{}

// DefaultParams returns the (empty) settings.
func DefaultParams(lineRate engine.Rate) Params { return Params{} }

// Validate always succeeds.
func (p Params) Validate() error { return nil }

// Spec describes "none": no header, no INT, no timestamps.
func Spec(p Params) cc.Spec {
	return cc.Spec{Name: Name, New: func(env cc.Env) cc.Algorithm { return New(env) }}
}

// State sends at line rate whatever happens.
type State struct{ lineRate engine.Rate }

// New builds the state machine for one QP.
func New(env cc.Env) *State { return &State{lineRate: env.LineRate} }

// OnAck ignores the feedback.
func (q *State) OnAck(*cc.Feedback) {}

// OnCNP ignores the CNP.
func (q *State) OnCNP(engine.Time) {}

// OnTimer is never needed.
func (q *State) OnTimer(engine.Time) {}

// NextTimer is always Never.
func (q *State) NextTimer() engine.Time { return engine.Never }

// Rate is the line rate.
func (q *State) Rate() engine.Rate { return q.lineRate }

// Window is 0: no window.
func (q *State) Window() int64 { return 0 }
