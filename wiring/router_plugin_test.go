package wiring

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/scenario"
)

// countingECMP is a router that exists only in this test: ECMP with the
// reference's unsalted hash, counting its decisions.
type countingECMP struct {
	fabric.ECMP
	routes *int64
}

func (c countingECMP) Route(sw *fabric.Switch, p *fabric.Packet, in int) int {
	*c.routes++
	return c.ECMP.Route(sw, p, in)
}

// A router of a test's own is its code and one table line: the catalog
// made from the extended tables accepts its name in switch.routing.kind,
// and Build routes with it (issue 28).
func TestTestOnlyRouterRuns(t *testing.T) {
	var routes int64
	tables := Builtin()
	tables.Routers = append(tables.Routers, Router{RouterKind: scenario.RouterKind{Name: "test-counting", Doc: "test only: unsalted ECMP, counted"},
		New: func(*engine.Sim, *fabric.Topology, *scenario.Routing) fabric.Router {
			return countingECMP{routes: &routes}
		}})
	cat := tables.Catalog()

	if _, err := Catalog().Load("default", []string{"switch.routing={}", "switch.routing.kind=test-counting"}); err == nil ||
		err.Error() != `--set switch.routing.kind=test-counting: switch.routing.kind: unknown routing kind "test-counting" (valid: ecmp, adaptive, spray)` {
		t.Errorf("built-in catalog: got %v, want the routing kind refused", err)
	}
	sim := mustBuildWith(t, cat, "default", "topology.leaves=2", "topology.hosts_per_leaf=4", "topology.spines=2", "duration=100us",
		"switch.routing={}", "switch.routing.kind=test-counting")
	res := sim.Run(Options{})
	if !res.Drained || res.Run.FlowsTotal == 0 {
		t.Fatalf("got %d of %d flows done (drained %v), want all of at least one", res.Run.FlowsDone, res.Run.FlowsTotal, res.Drained)
	}
	if routes == 0 {
		t.Errorf("the test router routed no packet")
	}
}
