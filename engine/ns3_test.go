package engine

import "testing"

func TestNS3Seconds(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want Time
	}{
		{2.000000577, 2000000576 * Nanosecond}, // fct-dcqcn.txt's start of flows.txt line 2
		{2.000001567, 2000001566 * Nanosecond},
		{2.0, 2 * Second},
		{0.5, 500 * Millisecond},
		{0, 0},
		{-1, 0},
	} {
		if got := NS3Seconds(c.s); got != c.want {
			t.Errorf("NS3Seconds(%v) = %d ps, want %d ps", c.s, got, c.want)
		}
	}
}

func TestTxTimeWholeNs(t *testing.T) {
	for _, c := range []struct {
		n    int64
		r    Rate
		want Time
	}{
		{1048, 100 * Gbps, 83 * Nanosecond}, // 83.84 ns
		{60, 100 * Gbps, 4 * Nanosecond},    // 4.8 ns
		{88, 100 * Gbps, 7 * Nanosecond},    // 7.04 ns
		{1048, 50 * Gbps, 167 * Nanosecond}, // 167.68 ns
		// An exact whole ns comes out 1 ns short: 8e-8 s times 2^64 is not an
		// integer, so its truncation leaves 79.99999999995 ns.
		{1000, 100 * Gbps, 79 * Nanosecond},
		{1048, 1 * Gbps, 8383 * Nanosecond},
		{1, 8 * Gbps, 0}, // 1 ns exactly, not dyadic: 0 ns
	} {
		if got := c.r.TxTimeWholeNs(c.n); got != c.want {
			t.Errorf("TxTimeWholeNs(%d B at %v) = %d ps, want %d ps", c.n, c.r, got, c.want)
		}
	}
}
