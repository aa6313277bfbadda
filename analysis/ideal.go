package analysis

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// nsPerSecond is 10^9, the reference model's time scale for rates.
const nsPerSecond = 1_000_000_000

// IdealFCT is the standalone FCT of a size-byte flow alone in an empty
// network (docs/model.md §8.1), computed in integer ns with the reference
// model's order of operations so that it matches to the ns:
//
//	packets = (size-1)/payload + 1
//	total   = size + packets*headerBytes
//	fct_ns  = base_rtt_ns + total*8*10^9/bottleneck      (integer division)
//
// base_rtt_ns is baseRTT truncated to whole ns. The product total*8*10^9 is
// formed in 128 bits, so flows beyond 1.15 GB do not overflow; where the
// reference's 64-bit product fits, the result is identical. A size of 0
// counts one packet (a zero-length message still carries its headers).
// payload and bottleneck must be positive and size non-negative: they come
// from a validated scenario, so anything else is a bug and panics.
func IdealFCT(size, payload, headerBytes int64, baseRTT engine.Time, bottleneck engine.Rate) engine.Time {
	if payload <= 0 || bottleneck <= 0 || size < 0 || headerBytes < 0 {
		panic(fmt.Sprintf("analysis: IdealFCT(size=%d, payload=%d, header=%d, bottleneck=%d): want size, header >= 0 and payload, bottleneck > 0",
			size, payload, headerBytes, int64(bottleneck)))
	}
	packets := int64(1)
	if size > 0 {
		packets = (size-1)/payload + 1
	}
	total := size + packets*headerBytes
	ns := baseRTT.Nanoseconds() + engine.MulDiv(total, 8*nsPerSecond, int64(bottleneck))
	return engine.Time(ns) * engine.Nanosecond
}

// BaseRTT is the reference model's base RTT of a path (docs/model.md §8.1);
// fabric.BaseRTT documents it. The simulator's paths (fabric.Path.BaseRTT,
// Network.MaxRTTBDP) and this package use that one function, so a flow's
// ideal FCT and the NIC's maxRtt cannot round differently.
func BaseRTT(propDelays []engine.Time, hopRates []engine.Rate, payload int64) engine.Time {
	return fabric.BaseRTT(propDelays, hopRates, payload)
}

// BDP is the bandwidth-delay product in bytes as the reference model
// computes it (docs/model.md §2.1): rtt_ns * rate / 10^9 / 8, integer. It is
// the usual size boundary for SplitAt.
func BDP(rtt engine.Time, rate engine.Rate) int64 { return fabric.BDP(rtt, rate) }
