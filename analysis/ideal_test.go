package analysis

import (
	"math/big"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

func TestIdealFCT(t *testing.T) {
	const us = engine.Microsecond
	tests := []struct {
		name          string
		size, payload int64
		header        int64
		baseRTT       engine.Time
		bottleneck    engine.Rate
		wantNs        int64
	}{
		// docs/model.md §8.1 test vectors (inter-leaf, base RTT 8,200 ns, 100 Gbps).
		{"one byte", 1, 1000, 48, 8200 * engine.Nanosecond, 100 * engine.Gbps, 8203},
		{"1MB", 1_000_000, 1000, 48, 8200 * engine.Nanosecond, 100 * engine.Gbps, 92040},
		// 1000 B is exactly one packet: 1048*8/100 = 83.84 -> 83 ns.
		{"one full packet", 1000, 1000, 48, 8200 * engine.Nanosecond, 100 * engine.Gbps, 8283},
		// 1001 B needs two packets: 1097*8/100 = 87.76 -> 87 ns.
		{"one byte over", 1001, 1000, 48, 8200 * engine.Nanosecond, 100 * engine.Gbps, 8287},
		// Same leaf, 4,160 ns base RTT, 25 Gbps: 1,048,000*8/25 = 335,360 ns.
		{"25G", 1_000_000, 1000, 48, 4160 * engine.Nanosecond, 25 * engine.Gbps, 4160 + 335360},
		// Base RTT is truncated to whole ns, as the reference keeps ns.
		{"ps base rtt", 1, 1000, 48, 8200*engine.Nanosecond + 999, 100 * engine.Gbps, 8203},
		{"zero size", 0, 1000, 48, 2 * us, 100 * engine.Gbps, 2000 + 3},
		{"no header", 1000, 1000, 0, 0, 100 * engine.Gbps, 80},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := IdealFCT(tc.size, tc.payload, tc.header, tc.baseRTT, tc.bottleneck)
			if want := engine.Time(tc.wantNs) * engine.Nanosecond; got != want {
				t.Errorf("IdealFCT(%d, %d, %d, %v, %v) = %v, want %v", tc.size, tc.payload, tc.header, tc.baseRTT, tc.bottleneck, got, want)
			}
		})
	}
}

// A 10 GB flow overflows the reference's 64-bit total*8*10^9; dcsim's
// 128-bit product must still give the exact quotient.
func TestIdealFCTLargeFlow(t *testing.T) {
	const size, payload, header = 10_000_000_000, 4096, 48
	rate := 100 * engine.Gbps
	got := IdealFCT(size, payload, header, 0, rate)
	packets := int64((size-1)/payload + 1)
	total := new(big.Int).SetInt64(size + packets*header)
	want := new(big.Int).Mul(total, big.NewInt(8_000_000_000))
	want.Quo(want, big.NewInt(int64(rate)))
	if got.Nanoseconds() != want.Int64() {
		t.Errorf("IdealFCT(10GB) = %d ns, want %s ns", got.Nanoseconds(), want)
	}
}

func TestIdealFCTPanicsOnBug(t *testing.T) {
	for _, tc := range []struct {
		name          string
		size, payload int64
		rate          engine.Rate
	}{{"zero payload", 1, 0, engine.Gbps}, {"zero rate", 1, 1000, 0}, {"negative size", -1, 1000, engine.Gbps}} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("IdealFCT(%d, %d, rate %d) did not panic", tc.size, tc.payload, tc.rate)
				}
			}()
			IdealFCT(tc.size, tc.payload, 48, 0, tc.rate)
		})
	}
}

func TestBaseRTT(t *testing.T) {
	const us = engine.Microsecond
	g100, g400 := 100*engine.Gbps, 400*engine.Gbps
	tests := []struct {
		name    string
		delays  []engine.Time
		rates   []engine.Rate
		payload int64
		wantNs  int64
		wantBDP int64 // at 100 Gbps, docs/model.md §2.1
	}{
		{"same leaf", []engine.Time{us, us}, []engine.Rate{g100, g100}, 1000, 4160, 52000},
		{"inter-leaf 400G fabric", []engine.Time{us, us, us, us}, []engine.Rate{g100, g400, g400, g100}, 1000, 8200, 102500},
		{"inter-leaf 100G fabric", []engine.Time{us, us, us, us}, []engine.Rate{g100, g100, g100, g100}, 1000, 8320, 104000},
		// 25 Gbps hop: 8000/25 = 320 ns; 40 Gbps: 200 ns.
		{"mixed rates", []engine.Time{500 * engine.Nanosecond}, []engine.Rate{25 * engine.Gbps, 40 * engine.Gbps}, 1000, 1000 + 320 + 200, 19000},
		// 3 Gbps: 8000/3 = 2666.67 -> 2666 ns per hop, integer as the reference.
		{"truncating hop", nil, []engine.Rate{3 * engine.Gbps}, 1000, 2666, 33325},
		{"empty path", nil, nil, 1000, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := BaseRTT(tc.delays, tc.rates, tc.payload)
			if want := engine.Time(tc.wantNs) * engine.Nanosecond; got != want {
				t.Errorf("BaseRTT = %v, want %v", got, want)
			}
			if bdp := BDP(got, g100); bdp != tc.wantBDP {
				t.Errorf("BDP(%v, 100Gbps) = %d, want %d", got, bdp, tc.wantBDP)
			}
		})
	}
}

// The two functions together reproduce the reference's vectors from a path.
func TestIdealFCTFromPath(t *testing.T) {
	us, g100, g400 := engine.Microsecond, 100*engine.Gbps, 400*engine.Gbps
	rtt := BaseRTT([]engine.Time{us, us, us, us}, []engine.Rate{g100, g400, g400, g100}, 1000)
	if got, want := IdealFCT(1_000_000, 1000, 48, rtt, g100), 92040*engine.Nanosecond; got != want {
		t.Errorf("IdealFCT over the inter-leaf path = %v, want %v", got, want)
	}
}
