package engine

import (
	"math"
	"math/bits"
)

// NS3Seconds is ns-3's Seconds(double) at its default nanosecond
// resolution, as the HPCC reference model (ns-3.17) computes it: the
// double becomes a 64.64 fixed-point value (int64x64-128.h: the whole
// part, plus the fraction times 2^64 truncated), is multiplied by 10^9
// and truncated to whole ns (nstime.h Time::From, GetHigh). So 83.84 ns
// becomes 83 ns, and a value a hair below a whole ns, as a double division
// can leave it, loses that ns. Negative and non-finite inputs give 0.
func NS3Seconds(s float64) Time {
	if !(s > 0) || math.IsInf(s, 0) {
		return 0
	}
	whole := math.Floor(s)
	frac := uint64((s - whole) * 0x1p64) // exact scaling, then truncation, as (int128_t)lo
	ns, _ := bits.Mul64(frac, 1e9)
	return Time(uint64(whole)*1e9+ns) * Nanosecond
}

// TxTimeWholeNs is the reference model's serialization time of n bytes at
// rate r: Seconds(DataRate::CalculateTxTime(n)), where CalculateTxTime is
// the double n*8/bps (qbb-net-device.cc TransmitStart, rdma-hw.cc
// UpdateNextAvail). A 1048 B packet at 100 Gbps takes 83 ns, a 60 B ACK
// 4 ns. TxTime is the exact value.
func (r Rate) TxTimeWholeNs(n int64) Time {
	return NS3Seconds(float64(uint32(n*8)) / float64(uint64(r)))
}
