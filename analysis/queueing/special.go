package queueing

import "math"

// gammaLower returns the lower incomplete gamma integral
// int_0^z u^n e^{-u} du for n in {0, 1, 2} and z >= 0, without the
// cancellation that n! - e^{-z} * poly(z) suffers for small z.
func gammaLower(n int, z float64) float64 {
	fact := [3]float64{1, 1, 2}[n]
	if z <= 0 {
		return 0
	}
	if math.IsInf(z, 1) {
		return fact
	}
	if z < 2 {
		// n! * e^{-z} * sum_{k>n} z^k/k!: every term positive.
		term := 1.0
		for k := 1; k <= n; k++ {
			term *= z / float64(k)
		}
		sum := 0.0
		for k := n + 1; k < n+60; k++ {
			term *= z / float64(k)
			sum += term
			if term < 1e-18*sum {
				break
			}
		}
		return fact * math.Exp(-z) * sum
	}
	e := math.Exp(-z)
	switch n {
	case 0:
		return -math.Expm1(-z)
	case 1:
		return 1 - e*(1+z)
	default:
		return 2 - e*(z*z+2*z+2)
	}
}

// expIntE1 returns the exponential integral E1(x) = int_x^inf e^{-t}/t dt
// for x >= 0 (+Inf at 0): the power series below 1 and the continued
// fraction above (Numerical Recipes, expint with n = 1, modified Lentz).
func expIntE1(x float64) float64 {
	switch {
	case x <= 0:
		return math.Inf(1)
	case math.IsInf(x, 1):
		return 0
	case x <= 1:
		const eulerGamma = 0.57721566490153286060651209008240243
		sum := 0.0
		term := 1.0
		for k := 1; k < 60; k++ {
			term *= -x / float64(k)
			d := -term / float64(k)
			sum += d
			if math.Abs(d) < 1e-18*math.Abs(sum) {
				break
			}
		}
		return -eulerGamma - math.Log(x) + sum
	default:
		const tiny = 1e-300
		b := x + 1
		c := 1 / tiny
		d := 1 / b
		h := d
		for i := 1; i < 1000; i++ {
			an := -float64(i * i)
			b += 2
			d = 1 / (an*d + b)
			c = b + an/c
			del := c * d
			h *= del
			if math.Abs(del-1) < 1e-16 {
				break
			}
		}
		return h * math.Exp(-x)
	}
}
