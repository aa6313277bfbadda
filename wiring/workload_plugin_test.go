package wiring

import (
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/workloads/cloud"
)

// ringParams are the knobs of the test-only "test-ring" workload kind.
type ringParams struct {
	Size  scenario.Size     `yaml:"size"`
	Every scenario.Duration `yaml:"every"`
	Laps  int               `yaml:"laps"`
}

// ring is a test-only generator: host i sends Size bytes to host i+1 (mod
// n), one flow every Every, Laps times round the hosts, counting its flows.
type ring struct {
	hosts  []int
	p      ringParams
	i      int
	posted int64
}

func (r *ring) Next() (cloud.Flow, bool) {
	n := len(r.hosts)
	if r.i >= n*r.p.Laps {
		return cloud.Flow{}, false
	}
	f := cloud.Flow{Src: r.hosts[r.i%n], Dst: r.hosts[(r.i+1)%n], Size: int64(r.p.Size),
		Start: engine.Time(r.i) * engine.Time(r.p.Every), Generator: "test-ring"}
	r.i++
	r.posted++
	return f, true
}

// ringKind is all that makes a scenario able to run the ring: one entry,
// registered by the test alone.
var ringKind = WorkloadKind{WorkloadKind: scenario.WorkloadKind{Name: "test-ring", Doc: "test only: each host sends to the next",
	Params: func() any {
		return &ringParams{Size: scenario.Size(10 * engine.KB), Every: scenario.Duration(engine.Microsecond), Laps: 1}
	},
	Validate: func(w *scenario.Workload, at scenario.WorkloadCheck) *scenario.FieldError {
		if p := w.Params.(*ringParams); p.Laps < 1 {
			return &scenario.FieldError{Path: at.Prefix + "test-ring.laps", Msg: "must be at least 1"}
		}
		return nil
	}},
	New: func(w *scenario.Workload, env WorkloadEnv) (Workload, error) {
		hosts, err := env.HostIDs(w)
		if err != nil {
			return nil, err
		}
		p := w.Params.(*ringParams)
		if err := env.CheckSize("test-ring.size", int64(p.Size)); err != nil {
			return nil, err
		}
		r := &ring{hosts: hosts, p: *p}
		return ringWorkload{FlowWorkload: &FlowWorkload{Gen: r}, r: r}, nil
	},
}

// ringWorkload is a flow workload with a counter of its own.
type ringWorkload struct {
	*FlowWorkload
	r *ring
}

func (w ringWorkload) Counters(into map[string]int64) { into["test_ring.posted"] += w.r.posted }

func TestTestOnlyWorkloadRuns(t *testing.T) {
	tables := Builtin()
	tables.Workloads = append(tables.Workloads, ringKind)
	cat := tables.Catalog()

	for _, tc := range []struct{ in, want string }{
		{"workload: {kind: test-ring, test-ring: {laps: 0}}\n", "t.yaml:1: workload.test-ring.laps: must be at least 1"},
		{"workload: {kind: cloud, test-ring: {laps: 2}}\n", "t.yaml:1: workload.test-ring: only allowed when workload.kind is test-ring (it is cloud)"},
		{"workload: {kind: test-ring, test-ring: {lap: 2}}\n", `t.yaml:1: workload.test-ring.lap: unknown field "lap" (valid: size, every, laps)`},
	} {
		if _, err := cat.Parse("t.yaml", []byte(tc.in), nil); err == nil || err.Error() != tc.want {
			t.Errorf("%q: got %v, want %s", tc.in, err, tc.want)
		}
	}
	sets := []string{"topology.kind=star", "topology.hosts=8", "duration=200us",
		"workload.kind=test-ring", "workload.test-ring.laps=3", "workload.test-ring.size=20KB"}
	s, err := cat.Load("default", sets)
	if err != nil {
		t.Fatal(err)
	}
	if y := string(s.YAML()); !strings.Contains(y, "  test-ring:\n    size: 20KB\n") {
		t.Errorf("YAML lacks the kind's sub-map:\n%s", y)
	} else if back, err := cat.Parse("back.yaml", s.YAML(), nil); err != nil || back.Hash() != s.Hash() {
		t.Errorf("printed scenario: parse %v, hash %s, want %s", err, back.Hash(), s.Hash())
	}
	sim := mustBuildWith(t, cat, "default", sets...)
	res := sim.Run(Options{})
	const want = 8 * 3
	if !res.Drained || res.Run.FlowsDone != want || res.Run.FlowsTotal != want {
		t.Fatalf("got %d of %d flows done (drained %v), want all of %d", res.Run.FlowsDone, res.Run.FlowsTotal, res.Drained, want)
	}
	for _, f := range res.Flows {
		if f.Generator != "test-ring" || f.SizeBytes != 20000 || f.Dst != (f.Src+1)%8 {
			t.Fatalf("flow %+v: want a test-ring flow of 20000 B to the next host", f)
		}
	}
	if got := res.Run.Counters["test_ring.posted"]; got != want {
		t.Errorf("test_ring.posted: got %d, want %d", got, want)
	}
	if got := res.Run.Workload; got != "test-ring" {
		t.Errorf("run workload: got %q, want test-ring", got)
	}
}
