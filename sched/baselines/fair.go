package baselines

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// Fair is round-robin fair sharing over ready QPs (REFERENCE 6.2), all data
// in one class. With PerMessage it serves a QP's whole head-of-line message
// before moving on (rr_granularity = message); otherwise one packet per turn.
type Fair struct {
	Class      uint8
	PerMessage bool

	ring    ring
	current *rnic.QP // PerMessage: the QP whose message is being served
}

// NewFair returns packet-level round robin in class.
func NewFair(class uint8) *Fair { return &Fair{Class: class} }

// NewFairMessage returns message-level round robin in class.
func NewFairMessage(class uint8) *Fair { return &Fair{Class: class, PerMessage: true} }

func (f *Fair) Attach(*rnic.Host)                    {}
func (f *Fair) QPOpened(*rnic.QP)                    {}
func (f *Fair) Posted(*rnic.QP, *rnic.Message)       {}
func (f *Fair) Sent(*rnic.QP, *fabric.Packet)        {}
func (f *Fair) Acked(*rnic.QP)                       {}
func (f *Fair) Control(engine.Time, *fabric.Packet)  {}
func (f *Fair) Received(engine.Time, *fabric.Packet) {}

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
		f.ring.pushBack(qp)
	} else {
		f.ring.remove(qp)
	}
}

// Pick implements rnic.Scheduler.
func (f *Fair) Pick(_ engine.Time, paused uint8) (*rnic.QP, uint8) {
	if paused&(1<<f.Class) != 0 || f.ring.head == nil {
		return nil, 0
	}
	if f.PerMessage {
		if f.current != nil && f.current.Ready() {
			return f.current, f.Class
		}
		f.current = f.ring.head
		f.ring.rotate()
		return f.current, f.Class
	}
	qp := f.ring.head
	f.ring.rotate()
	return qp, f.Class
}

// ring is a circular doubly linked list of QPs through their scheduler
// links; SchedIndex is 1 while a QP is in the ring.
type ring struct {
	head *rnic.QP
	n    int
}

func (r *ring) pushBack(qp *rnic.QP) {
	if qp.SchedIndex == 1 {
		return
	}
	qp.SchedIndex = 1
	r.n++
	if r.head == nil {
		qp.SchedPrev, qp.SchedNext = qp, qp
		r.head = qp
		return
	}
	tail := r.head.SchedPrev
	qp.SchedPrev, qp.SchedNext = tail, r.head
	tail.SchedNext = qp
	r.head.SchedPrev = qp
}

func (r *ring) remove(qp *rnic.QP) {
	if qp.SchedIndex != 1 {
		return
	}
	qp.SchedIndex = 0
	r.n--
	if qp.SchedNext == qp {
		r.head = nil
	} else {
		qp.SchedPrev.SchedNext = qp.SchedNext
		qp.SchedNext.SchedPrev = qp.SchedPrev
		if r.head == qp {
			r.head = qp.SchedNext
		}
	}
	qp.SchedPrev, qp.SchedNext = nil, nil
}

// rotate moves the head to the tail.
func (r *ring) rotate() {
	if r.head != nil {
		r.head = r.head.SchedNext
	}
}
