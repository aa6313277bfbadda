package wiring

import (
	"fmt"
	"github.com/dcsim/dcsim/scenario"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/internal/invariants"
)

// headroomRun runs a k = 4 fat-tree with 100 Gbps links everywhere and
// 1 MiB switch buffers, WebSearch at 80% and no congestion control, so
// that PFC pauses often and headroom fills (issue #19's MTU 9000 drops, on
// a network small enough for a test).
func headroomRun(t *testing.T, seed, mtu int, rule string) *Result {
	t.Helper()
	sim := mustBuild(t, "default", "topology.kind=fat-tree", "topology.k=4", "topology.fabric_link=100Gbps",
		"switch.buffer=1MiB", "cc.algorithm=none", fmt.Sprintf("nic.mtu=%d", mtu), "workload.load=0.8",
		"duration=300us", "drain_limit=5ms", "switch.pfc_headroom="+rule, fmt.Sprintf("seed=%d", seed))
	return sim.Run(Options{})
}

// A lossless fabric with sized headroom, or the default auto (per port the
// larger of sized and the reference's), never drops, at MTU 9000 and at
// the training default 4096, though it pauses hundreds of times; the
// reference's rate x delay x 3 drops at MTU 9000 (seed 1: 75 packets) and
// says so in the run's warnings. The sizing is not loose: with two frames
// instead of three (SizedHeadroom) seeds 1 and 3-6 drop at MTU 9000 and
// seed 5 at 4096.
func TestLosslessNeverDrops(t *testing.T) {
	for _, rule := range []string{scenario.HeadroomSized, scenario.HeadroomAuto} {
		for _, mtu := range []int{9000, 4096} {
			for seed := 1; seed <= 3; seed++ {
				r := headroomRun(t, seed, mtu, rule)
				drops, pauses := r.Run.Counters["headroom_drops"], r.Run.PFCPauseFrames
				if drops != 0 || pauses < 50 {
					t.Errorf("%s, mtu %d seed %d: %d headroom drops and %d PAUSE frames, want 0 drops and at least 50 pauses",
						rule, mtu, seed, drops, pauses)
				}
			}
		}
	}
	if invariants.Enabled {
		return // the reference's drops are a sizing error: TestHeadroomDropWarning
	}
	if r := headroomRun(t, 1, 9000, scenario.HeadroomReference); r.Run.Counters["headroom_drops"] == 0 {
		t.Errorf("reference headroom at MTU 9000: got no drops, want some (the test would not see a sizing bug)")
	}
}

// The reference's headroom drops loudly: a run-level warning naming the
// counter and the rule, and under -tags invariants a panic from the
// fabric's check.
func TestHeadroomDropWarning(t *testing.T) {
	if invariants.Enabled {
		defer func() {
			if msg := fmt.Sprint(recover()); !strings.Contains(msg, "drops in a lossless fabric (1 of them at full headroom, 0 explained") {
				t.Errorf("under invariants: got panic %q, want the fabric check's lossless drop", msg)
			}
		}()
	}
	res := headroomRun(t, 1, 9000, scenario.HeadroomReference)
	w := res.Warnings()
	if len(w) != 1 || !strings.HasPrefix(w[0], "lossless fabric dropped 75 packets at full PFC headroom") {
		t.Errorf("warnings %q, want one about 75 packets dropped at full PFC headroom", w)
	}
	if !strings.Contains(res.Headline(), "warning: lossless fabric dropped") {
		t.Errorf("headline %q has no warning", res.Headline())
	}
}
