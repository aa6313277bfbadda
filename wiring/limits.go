package wiring

import (
	"fmt"
	"github.com/dcsim/dcsim/scenario"
	"math"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// checkBuffer rejects a switch buffer too small for the network: one
// packet per port, plus every port's PFC headroom and reserve when
// lossless.
func checkBuffer(s *scenario.Scenario, net *fabric.Network, pkt int64) error {
	sw, need := net.MinBuffer(pkt)
	if sw == nil || int64(s.Switch.Buffer) >= need {
		return nil
	}
	what := "one packet"
	if s.Switch.PFC {
		what = "its PFC headroom and reserve plus one packet"
	}
	return &scenario.FieldError{Path: "switch.buffer", Msg: fmt.Sprintf("%v is too small: switch %s with %d ports needs at least %d B (%s of %d B per port)",
		s.Switch.Buffer, sw.Name, len(sw.Ports), need, what, pkt)}
}

// maxMessageBytes is the largest message whose transfer alone, with
// overhead header bytes per packet of mtu payload bytes, takes at most
// engine.MaxSpan at the slowest link rate: a larger one's ideal FCT and
// finish time would overflow the picosecond clock.
func maxMessageBytes(mtu, overhead int64, rate engine.Rate) int64 {
	wire := engine.MaxSpan.Seconds() * float64(rate) / 8
	return int64(math.Min(wire*float64(mtu)/float64(mtu+overhead), scenario.MaxBytes))
}
