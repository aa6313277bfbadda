package baselines

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
)

// NS3Fair is the reference model's round robin exactly as ns-3 runs it
// (qbb-net-device.cc RdmaEgressQueue::GetNextQindex and DequeueQindex),
// for the compat: hpcc-ns3 profile. The NIC keeps its QPs in one list in
// creation order (RdmaQueuePairGroup::AddQp) and an index rrlast of the QP
// served last. A scan visits (rrlast+1) mod n, (rrlast+2) mod n, ... and
// takes the first eligible QP; finished QPs stay in the list until a scan
// meets one, and then every finished QP from the lowest such index on is
// removed and the list compacted, while rrlast keeps its number. So after
// a removal the round robin resumes at a shifted position: a QP can be
// skipped or served twice in a row. Fair (the default) keeps the intended
// order instead: after the QP served last, by id.
//
// It needs the NIC to ask on every transmit opportunity (rnic
// Compat.ScanAlways), since ns-3 scans, and compacts, even when nothing
// can be sent.
type NS3Fair struct {
	rnic.SchedulerBase
	Class uint8

	qps    []*rnic.QP
	rrlast int
}

// NewNS3Fair returns ns-3's round robin in class.
func NewNS3Fair(class uint8) *NS3Fair { return &NS3Fair{Class: class} }

// QPOpened implements rnic.Scheduler: the list keeps QPs in opening order.
func (f *NS3Fair) QPOpened(qp *rnic.QP) { f.qps = append(f.qps, qp) }

// Len is the length of the QP list, finished QPs not yet dropped included.
func (f *NS3Fair) Len() int { return len(f.qps) }

// Pick implements rnic.Scheduler. A closed QP is a finished one
// (RdmaQueuePair::IsFinished: every byte acknowledged); a ready QP has
// bytes left, an open window and its pacing time come, as ns-3's test.
func (f *NS3Fair) Pick(_ engine.Time, paused uint8) (*rnic.QP, uint8) {
	var res int
	f.qps, res = ns3Scan(f.qps, f.rrlast, paused&(1<<f.Class) != 0)
	if res < 0 {
		return nil, 0
	}
	f.rrlast = res
	return f.qps[res], f.Class
}

// scanned is what ns3Scan reads of a QP.
type scanned interface {
	Ready() bool
	Closed() bool
}

// ns3Scan is GetNextQindex: the index of the first ready QP after rrlast
// (or -1), and the list with finished QPs dropped from the lowest finished
// index the scan met, the returned index adjusted to the compacted list.
func ns3Scan[Q scanned](qps []Q, rrlast int, classPaused bool) ([]Q, int) {
	n := len(qps)
	res, minFinished := -1, -1
	for i := 1; i <= n; i++ {
		idx := (i + rrlast) % n
		qp := qps[idx]
		if !classPaused && qp.Ready() {
			res = idx
			break
		}
		if qp.Closed() && (minFinished < 0 || idx < minFinished) {
			minFinished = idx
		}
	}
	if minFinished < 0 {
		return qps, res
	}
	next := minFinished
	for i := minFinished + 1; i < n; i++ {
		if qps[i].Closed() {
			continue
		}
		if i == res {
			res = next
		}
		qps[next] = qps[i]
		next++
	}
	clear(qps[next:])
	return qps[:next], res
}
