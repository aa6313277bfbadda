package fabric

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
)

// BaseRTT is the reference model's base RTT of a path (docs/model.md §8.1),
// in whole ns:
//
//	base_rtt = sum over hops of 2*delay + sum over hops of payload*8*10^9/rate
//
// with each hop's doubled delay and serialization truncated to whole ns
// (hopNs; one payload-size packet per hop, one direction, no header, no
// ACK). Per-hop truncation keeps the sum additive, so MaxRTTBDP can
// combine the parts of paths it never builds; with whole-ns link delays,
// as in the reference's topologies, it equals 2*sum(delays) exactly.
// propDelays and hopRates list the links of the one-way path (normally the
// same length; each slice is summed on its own). A non-positive rate or a
// negative payload is a bug and panics. It is the one base-RTT formula:
// Path.BaseRTT, Network.MaxRTTBDP (the NIC's maxRtt) and analysis's ideal
// FCT all use it.
func BaseRTT(propDelays []engine.Time, hopRates []engine.Rate, payload int64) engine.Time {
	if payload < 0 {
		panic(fmt.Sprintf("fabric: BaseRTT with negative payload %d", payload))
	}
	var ns int64
	for _, d := range propDelays {
		ns += hopNs(0, 1, d)
	}
	for i, r := range hopRates {
		if r <= 0 {
			panic(fmt.Sprintf("fabric: BaseRTT hop %d has non-positive rate %d", i, int64(r)))
		}
		ns += hopNs(payload, r, 0)
	}
	return engine.Time(ns) * engine.Nanosecond
}

// BDP is the bandwidth-delay product in bytes as the reference model
// computes it (docs/model.md §2.1): rtt_ns * rate / 10^9 / 8, integer.
func BDP(rtt engine.Time, rate engine.Rate) int64 {
	return engine.MulDiv(rtt.Nanoseconds(), int64(rate), 1_000_000_000) / 8
}
