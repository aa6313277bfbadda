package queueing

import (
	"fmt"
	"math"
)

// Globally adaptive Gauss-Kronrod (7, 15) quadrature, the QUADPACK QAG
// scheme: the interval with the largest error estimate is bisected until
// the summed estimate meets the tolerance. The estimate |K15 - G7| is
// conservative for the smooth integrands used here (rational functions of
// x whose poles stay off the real segment because rho(x) <= rho < 1): the
// true error of K15 is usually many orders of magnitude smaller.

// Kronrod abscissae on [-1, 1] (positive half, descending) and weights;
// the odd entries (1, 3, 5, 7) are also the 7-point Gauss abscissae.
// Values from QUADPACK qk15.f; quad_test.go checks exactness on
// polynomials of degree <= 22 (Kronrod) and <= 13 (Gauss).
var (
	gkNodes = [8]float64{
		0.991455371120812639206854697526329,
		0.949107912342758524526189684047851,
		0.864864423359769072789712788640926,
		0.741531185599394439863864773280788,
		0.586087235467691130294144845693013,
		0.405845151377397166906606412076961,
		0.207784955007898467600689403773245,
		0.000000000000000000000000000000000,
	}
	gkWeights = [8]float64{
		0.022935322010529224963732008058970,
		0.063092092629978553290700663189204,
		0.104790010322250183839876322541518,
		0.140653259715525918745189590510238,
		0.169004726639267902826583426598550,
		0.190350578064785409913256402421014,
		0.204432940075298892414161999234649,
		0.209482141084727828012999174891714,
	}
	gaussWeights = [4]float64{ // for gkNodes[1], [3], [5], [7]
		0.129484966168869693270611432679082,
		0.279705391489276667901467771423780,
		0.381830050505118944950369775488975,
		0.417959183673469387755102040816327,
	}
)

const (
	// quadRelTol is the relative tolerance of every integral unless the
	// load makes it unreachable (see MG1.relTol). The tests check end
	// results against closed forms and brute-force sums to 1e-9 or better.
	quadRelTol = 1e-11
	// quadMaxIntervals bounds the work of one integral. The integrands are
	// analytic on each interval, so reaching it means a bug or a load so
	// close to 1 that float64 cannot resolve 1 - rho.
	quadMaxIntervals = 20000
)

// gk15 returns the Kronrod estimate of the integral of f over [a, b] and
// |Kronrod - Gauss| as its error estimate.
func gk15(f func(float64) float64, a, b float64) (val, err float64) {
	c := 0.5 * (a + b)
	h := 0.5 * (b - a)
	fc := f(c)
	k := gkWeights[7] * fc
	g := gaussWeights[3] * fc
	for i := 0; i < 7; i++ {
		dx := h * gkNodes[i]
		s := f(c-dx) + f(c+dx)
		k += gkWeights[i] * s
		if i%2 == 1 {
			g += gaussWeights[i/2] * s
		}
	}
	return k * h, math.Abs((k - g) * h)
}

type quadInterval struct{ a, b, val, err float64 }

// integrate returns the integral of f over [a, b] (a <= b, both finite).
// It stops when the summed error estimate is at most
// max(absTol, relTol*|integral|); absTol lets an integral that is a
// negligible part of a larger sum stop early. It returns an error when
// the interval budget runs out; callers add the package prefix.
func integrate(f func(float64) float64, a, b, absTol, relTol float64) (float64, error) {
	if !(a < b) {
		return 0, nil
	}
	val, err := gk15(f, a, b)
	if math.IsNaN(val) || math.IsInf(val, 0) {
		return val, fmt.Errorf("integrand not finite on [%g, %g]", a, b)
	}
	// A max-heap on err, kept by hand: a typed heap avoids interface boxing
	// and the intervals never need to be removed in any other order.
	h := []quadInterval{{a, b, val, err}}
	total, totalErr := val, err
	for totalErr > math.Max(absTol, relTol*math.Abs(total)) {
		if len(h) >= quadMaxIntervals {
			return total, fmt.Errorf("quadrature on [%g, %g] did not converge: estimate %g, error %g after %d intervals",
				a, b, total, totalErr, len(h))
		}
		w := h[0]
		m := 0.5 * (w.a + w.b)
		if !(w.a < m && m < w.b) { // interval below float64 resolution
			return total, fmt.Errorf("quadrature on [%g, %g] did not converge: interval [%g, %g] cannot be split",
				a, b, w.a, w.b)
		}
		l, lerr := gk15(f, w.a, m)
		r, rerr := gk15(f, m, w.b)
		total += l + r - w.val
		totalErr += lerr + rerr - w.err
		h[0] = quadInterval{w.a, m, l, lerr}
		siftDown(h, 0)
		h = append(h, quadInterval{m, w.b, r, rerr})
		siftUp(h, len(h)-1)
	}
	// Re-sum to drop the rounding that the running updates accumulated.
	total = 0
	for _, iv := range h {
		total += iv.val
	}
	if math.IsNaN(total) || math.IsInf(total, 0) {
		return total, fmt.Errorf("integrand not finite on [%g, %g]", a, b)
	}
	return total, nil
}

func siftUp(h []quadInterval, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].err >= h[i].err {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(h []quadInterval, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].err > h[l].err {
			m = r
		}
		if h[i].err >= h[m].err {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
