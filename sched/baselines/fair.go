package baselines

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
)

// Fair is round-robin fair sharing over ready QPs (docs/model.md §6.2), all data
// in one class. Like the reference model and ConnectX NICs, the round robin
// visits QPs in creation (QPN) order and resumes after the QP served last,
// so a newly ready QP is served within the current round. With PerMessage
// it serves a QP's whole head-of-line message before moving on
// (rr_granularity = message); otherwise one packet per turn.
type Fair struct {
	rnic.SchedulerBase
	Class      uint8
	PerMessage bool

	ready   readySet // ready QPs by id
	last    int64    // id of the QP served last
	current *rnic.QP // PerMessage: the QP whose message is being served
}

// NewFair returns packet-level round robin in class.
func NewFair(class uint8) *Fair { return newFair(class, false) }

// NewFairMessage returns message-level round robin in class.
func NewFairMessage(class uint8) *Fair { return newFair(class, true) }

func newFair(class uint8, perMessage bool) *Fair {
	return &Fair{Class: class, PerMessage: perMessage}
}

// ReleasesQPs implements rnic.Releaser: QPClosed drops the QP (a ready
// QP is taken out of the set before it closes).
func (f *Fair) ReleasesQPs() {}

// QPClosed implements rnic.Scheduler.
func (f *Fair) QPClosed(qp *rnic.QP) {
	if f.current == qp {
		f.current = nil
	}
}

// HOLChanged implements rnic.Scheduler: a message boundary ends a
// message-granularity turn.
func (f *Fair) HOLChanged(qp *rnic.QP) {
	if f.current == qp {
		f.current = nil
	}
}

// ReadyChanged implements rnic.Scheduler.
func (f *Fair) ReadyChanged(qp *rnic.QP) {
	if qp.Ready() {
		f.ready.insert(qp)
	} else {
		f.ready.remove(qp)
	}
}

// Pick implements rnic.Scheduler.
func (f *Fair) Pick(_ engine.Time, paused uint8) (*rnic.QP, uint8) {
	if paused&(1<<f.Class) != 0 || f.ready.len() == 0 {
		return nil, 0
	}
	if f.PerMessage && f.current != nil && f.current.Ready() {
		return f.current, f.Class
	}
	next := f.ready.from(f.last + 1)
	f.last = next.ID
	if f.PerMessage {
		f.current = next
	}
	return next, f.Class
}
