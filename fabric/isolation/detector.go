package isolation

import "github.com/dcsim/dcsim/engine"

// State is a congestion detector's state (docs/model.md §10.1).
type State uint8

// The detector's states.
const (
	Normal State = iota // below LCDTh, or never above HCDTh since
	Branch              // above HCDTh, and not a root: part of a tree rooted elsewhere (or a root candidate waiting out CRT)
	Root                // above HCDTh with free downstream credits above FCTh, continuously for CRT
)

func (s State) String() string {
	switch s {
	case Normal:
		return "normal"
	case Branch:
		return "branch"
	case Root:
		return "root"
	}
	return "state?"
}

// Thresholds are the detector's four parameters, in bytes and time.
type Thresholds struct {
	HCDTh int64       // high congestion-detection threshold on the queue's occupancy
	LCDTh int64       // low threshold: below it the queue is normal again
	FCTh  int64       // free-credits threshold on the downstream input buffer
	CRT   engine.Time // congestion root timer
}

// Detector is the state machine of one switch output port and class. It
// does no I/O: Observe is handed the time, the queue's occupancy and the
// downstream's free credits, and returns the state before and after and,
// when the root condition holds but CRT has not yet passed, the time at
// which to observe again (0 otherwise).
//
// The rules, in order:
//
//	occ < LCDTh                                   -> Normal
//	occ > HCDTh, free > FCTh, held since t0       -> Root if now - t0 >= CRT, else Branch (wake at t0 + CRT)
//	occ > HCDTh otherwise                         -> Branch
//	LCDTh <= occ <= HCDTh                         -> unchanged (hysteresis)
//
// "Held since t0" is continuous: any observation that breaks the root
// condition (occupancy at or below HCDTh, or free credits at or below
// FCTh) restarts the timer, and a Root whose downstream fills becomes a
// Branch. Between LCDTh and HCDTh a Root stays a Root and a Branch a
// Branch, but the root timer restarts; a Root above HCDTh with free
// credits stays a Root without waiting again.
type Detector struct {
	state State
	since engine.Time // start of the current root condition; -1 = none
}

// NewDetector is a detector in state Normal.
func NewDetector() Detector { return Detector{since: -1} }

// State is the current state.
func (d *Detector) State() State { return d.state }

// Observe applies one observation.
func (d *Detector) Observe(now engine.Time, occ, free int64, th *Thresholds) (from, to State, wake engine.Time) {
	from = d.state
	switch {
	case occ < th.LCDTh:
		d.state, d.since = Normal, -1
	case occ > th.HCDTh && free > th.FCTh:
		if d.since < 0 {
			d.since = now
		}
		switch {
		case d.state == Root:
		case now-d.since >= th.CRT:
			d.state = Root
		default:
			d.state, wake = Branch, d.since+th.CRT
		}
	case occ > th.HCDTh:
		d.state, d.since = Branch, -1
	default:
		d.since = -1
	}
	return from, d.state, wake
}
