package wiring

import (
	"github.com/dcsim/dcsim/scenario"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// lowestFirst is a test-only scheduler: the ready QP with the lowest id
// first, in one class, counting its picks. It lives in this test alone,
// and its one registry entry is all that makes a scenario able to run it.
type lowestFirst struct {
	rnic.SchedulerBase
	class uint8
	ready map[*rnic.QP]bool
	picks int64
}

type lowestFirstParams struct {
	Class int `yaml:"class"`
}

func (s *lowestFirst) QPClosed(qp *rnic.QP) { delete(s.ready, qp) }

func (s *lowestFirst) ReadyChanged(qp *rnic.QP) {
	if qp.Ready() {
		s.ready[qp] = true
	} else {
		delete(s.ready, qp)
	}
}

func (s *lowestFirst) Pick(_ engine.Time, paused uint8) (*rnic.QP, uint8) {
	if paused&(1<<s.class) != 0 {
		return nil, 0
	}
	var best *rnic.QP
	for qp := range s.ready { // a map, but the minimum does not depend on its order
		if best == nil || qp.ID < best.ID {
			best = qp
		}
	}
	if best != nil {
		s.picks++
	}
	return best, s.class
}

var lowestFirstPlugin = Scheduler{Plugin: scenario.Plugin{Name: "test-lowest-first", Doc: "test only: lowest QP id first",
	Params: func(engine.Rate) any { return &lowestFirstParams{Class: 3} },
	Validate: func(p any) error {
		if c := p.(*lowestFirstParams).Class; c < 1 || c >= fabric.NumClasses {
			return &scenario.FieldError{Path: "class", Msg: "must be in 1..7"}
		}
		return nil
	}},
	New: func(_ *scenario.Scenario, p any, _ int64) (func(*rnic.Host) rnic.Scheduler, error) {
		class := uint8(p.(*lowestFirstParams).Class)
		return func(*rnic.Host) rnic.Scheduler { return &lowestFirst{class: class, ready: map[*rnic.QP]bool{}} }, nil
	},
	Counters: func(hosts []*rnic.Host) map[string]int64 {
		var n int64
		for _, h := range hosts {
			if s, ok := h.Scheduler().(*lowestFirst); ok {
				n += s.picks
			}
		}
		return map[string]int64{"test.picks": n}
	},
}

// TestTestOnlySchedulerRuns registers a scheduler that exists only in this
// test, selects it by name with a parameter in its own sub-map, and runs it
// end to end: every flow finishes, every data packet was its pick, and its
// counter reaches run.parquet's counters map. A bad parameter is reported
// on its field.
func TestTestOnlySchedulerRuns(t *testing.T) {
	tables := Builtin()
	tables.Schedulers = append(tables.Schedulers, lowestFirstPlugin)
	cat := tables.Catalog()

	if _, err := cat.Parse("t.yaml", []byte("nic: {scheduler: test-lowest-first, test-lowest-first: {class: 9}}\n"), nil); err == nil ||
		err.Error() != "t.yaml:1: nic.test-lowest-first.class: must be in 1..7" {
		t.Errorf("class 9: got %v, want t.yaml:1: nic.test-lowest-first.class: must be in 1..7", err)
	}
	sim := mustBuildWith(t, cat, "default", "topology.kind=star", "topology.hosts=8", "duration=200us",
		"nic.scheduler=test-lowest-first", "nic.test-lowest-first.class=2", "nic.data_class=2")
	res := sim.Run(Options{})
	if !res.Drained || res.Run.FlowsDone != res.Run.FlowsTotal || res.Run.FlowsTotal == 0 {
		t.Fatalf("got %d of %d flows done (drained %v), want all of at least one", res.Run.FlowsDone, res.Run.FlowsTotal, res.Drained)
	}
	if got, want := res.Run.Counters["test.picks"], res.Run.Counters["data_packets"]; got != want {
		t.Errorf("test.picks: got %d, want %d (data_packets)", got, want)
	}
	if _, ok := res.Run.Counters["storm.grants_sent"]; !ok {
		t.Errorf("counters lack storm.grants_sent: every registered scheduler's counters are reported")
	}
}
