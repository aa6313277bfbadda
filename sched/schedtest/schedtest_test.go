package schedtest

import (
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
)

// The suite must fail schedulers that break its rules. Each broken
// scheduler below wraps fair sharing.

// forgetful returns nil from every seventh Pick.
type forgetful struct {
	*baselines.Fair
	n int
}

func (f *forgetful) Pick(now engine.Time, paused uint8) (*rnic.QP, uint8) {
	f.n++
	if f.n%7 == 0 {
		return nil, 0
	}
	return f.Fair.Pick(now, paused)
}

// liar picks like fair sharing but claims no QP is ever eligible.
type liar struct{ *baselines.Fair }

func (liar) Eligible(*rnic.QP, uint8) bool { return false }

// late holds every QP until 50 us, then forgets to kick the port.
type late struct {
	*baselines.Fair
	h *rnic.Host
}

const lateGate = 50 * engine.Microsecond

func (l *late) Attach(h *rnic.Host) { l.h = h }
func (l *late) Pick(now engine.Time, paused uint8) (*rnic.QP, uint8) {
	if now < lateGate {
		return nil, 0
	}
	return l.Fair.Pick(now, paused)
}
func (l *late) Eligible(qp *rnic.QP, paused uint8) bool {
	return qp.Ready() && l.h.Cluster().Sim.Now() >= lateGate && paused&(1<<3) == 0
}

func TestSuiteCatchesBrokenSchedulers(t *testing.T) {
	c := cases[0]
	for _, b := range []struct {
		name string
		new  func(*rnic.Host) rnic.Scheduler
		want string
	}{
		{"forgetful", func(*rnic.Host) rnic.Scheduler { return &forgetful{Fair: baselines.NewFair(3)} }, "Pick returned nil"},
		{"liar", func(*rnic.Host) rnic.Scheduler { return liar{baselines.NewFair(3)} }, "its Eligible denies"},
		{"late", func(*rnic.Host) rnic.Scheduler { return &late{Fair: baselines.NewFair(3)} }, "without a kick"},
	} {
		_, problems := runCase(t, b.name, c, b.new)
		if len(problems) == 0 || !strings.Contains(problems[0], b.want) {
			t.Errorf("%s: problems %q, want one containing %q", b.name, problems, b.want)
		}
	}
}

func TestSuiteCatchesNondeterminism(t *testing.T) {
	c := cases[0]
	built := 0
	flaky := func(*rnic.Host) rnic.Scheduler {
		built++
		if built > c.hosts { // the second run serves whole messages
			return baselines.NewFairMessage(3)
		}
		return baselines.NewFair(3)
	}
	first, p1 := runCase(t, "flaky", c, flaky)
	second, p2 := runCase(t, "flaky", c, flaky)
	if len(p1)+len(p2) > 0 {
		t.Fatalf("unexpected problems: %q %q", p1, p2)
	}
	if sameFinish(first, second) == nil {
		t.Error("two different schedulers gave the same finish times; the determinism check would pass anything")
	}
}
