package cc

import (
	"math"
	"math/bits"

	"github.com/dcsim/dcsim/engine"
)

// maxRate is the largest rate the helpers return; it leaves head room so
// that adding a rate increment to it cannot overflow.
const maxRate = engine.Rate(math.MaxInt64 / 2)

// ScaleRate returns r*f truncated toward zero, as the reference model's
// DataRate arithmetic does (a double product converted back to integer
// bits per second). NaN and negative products give 0; products too large
// for an int64 saturate.
func ScaleRate(r engine.Rate, f float64) engine.Rate {
	return fromFloat(float64(r) * f)
}

// DivRate returns r/d truncated toward zero, the reference model's
// DataRate / double. d <= 0 or a quotient too large saturates, so a zero
// utilisation means "as fast as allowed", never a negative rate.
func DivRate(r engine.Rate, d float64) engine.Rate {
	if !(d > 0) {
		if r <= 0 {
			return 0
		}
		return maxRate
	}
	return fromFloat(float64(r) / d)
}

func fromFloat(x float64) engine.Rate {
	switch {
	case !(x > 0): // NaN, zero, negative
		return 0
	case x >= float64(maxRate):
		return maxRate
	}
	return engine.Rate(x)
}

// AddRate returns a+b, saturating instead of overflowing.
func AddRate(a, b engine.Rate) engine.Rate {
	s := a + b
	if b > 0 && s < a {
		return engine.Rate(math.MaxInt64)
	}
	return s
}

// ClampRate bounds r to [lo, hi]; hi wins when lo > hi.
func ClampRate(r, lo, hi engine.Rate) engine.Rate {
	if r < lo {
		r = lo
	}
	if r > hi {
		r = hi
	}
	return r
}

// RateFloor is the MIN_RATE an algorithm applies to every decrease: the
// larger of its own min_rate setting and env.MinRate, never above
// env.LineRate. Taking the larger keeps both promises: the algorithm's
// parameter and the Algorithm contract (Rate within [Env.MinRate,
// Env.LineRate]).
func RateFloor(env Env, own engine.Rate) engine.Rate {
	f := max(own, env.MinRate)
	return min(f, env.LineRate)
}

// Window is the reference model's window for a QP now sending at rate r
// (docs/model.md §5.1, RdmaQueuePair::GetWin):
//
//   - 0 (no window) unless hasWin and env.BDP > 0;
//   - env.BDP when !varWin;
//   - otherwise max(1, BDP*r/LineRate) bytes, integer division (r is
//     taken as at most LineRate).
//
// The floor is one byte, as in the reference, not one MTU: a QP whose rate
// is tiny may still send one packet whenever nothing is in flight.
func Window(env Env, hasWin, varWin bool, r engine.Rate) int64 {
	if !hasWin || env.BDP <= 0 {
		return 0
	}
	if !varWin || env.LineRate <= 0 {
		return env.BDP
	}
	r = ClampRate(r, 0, env.LineRate) // so the quotient fits: at most BDP
	hi, lo := bits.Mul64(uint64(env.BDP), uint64(r))
	q, _ := bits.Div64(hi, lo, uint64(env.LineRate))
	return max(int64(q), 1)
}
