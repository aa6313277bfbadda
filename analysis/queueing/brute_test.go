package queueing

// An independent model of the simulator's integer sizes: it sums over
// every integer k = 1..floor(max) with p_k read off the CDF points
// directly, and evaluates docs/model.md §11.1 size by size (no exchange of
// integration order, no quadrature). It is O(max) and serves as the
// reference for the Integer discretisation.

// yLess returns a function t -> P(Y < t) for the linear interpolant Y of
// the points; successive calls must not decrease t.
func yLess(sizes, cdf []float64) func(float64) float64 {
	i := 0 // first point with sizes[i] >= t
	last := cdf[len(cdf)-1]
	return func(t float64) float64 {
		for i < len(sizes) && sizes[i] < t {
			i++
		}
		switch {
		case i == len(sizes):
			return 1
		case i == 0:
			return 0
		case sizes[i] == t:
			return cdf[i] / last // point masses at t come after index i
		}
		a, b := sizes[i-1], sizes[i]
		return (cdf[i-1] + (cdf[i]-cdf[i-1])*(t-a)/(b-a)) / last
	}
}

// integerPMF calls f(k, p_k) for k = 1..floor(max), p_k = P(max(1, floor(Y)) = k).
func integerPMF(sizes, cdf []float64, f func(k, p float64)) {
	less := yLess(sizes, cdf)
	top := float64(int64(sizes[len(sizes)-1]))
	prev := 0.0
	for k := 1.0; k <= top; k++ {
		next := less(k + 1)
		f(k, next-prev)
		prev = next
	}
}

type bruteResult struct {
	mean, m2, inv float64
	resp, slow    [4]float64 // by Policy, in bytes of service time
}

func bruteInteger(sizes, cdf []float64, load float64) bruteResult {
	var r bruteResult
	integerPMF(sizes, cdf, func(k, p float64) {
		r.mean += k * p
		r.m2 += k * k * p
		r.inv += p / k
	})
	lam := load / r.mean
	var fle, m1le, m2le float64 // sums over sizes <= k
	res := 0.0                  // SRPT residence R(k) = sum_{j<k} 1/(1-rho(j))
	prevRho := 0.0              // rho(k-1)
	integerPMF(sizes, cdf, func(k, p float64) {
		res += 1 / (1 - prevRho)
		rhoLt := lam * m1le
		fle, m1le, m2le = fle+p, m1le+k*p, m2le+k*k*p
		rhoLe := lam * m1le
		tail := 1 - fle
		if tail < 0 {
			tail = 0
		}
		m2x := m2le + k*k*tail
		t := [4]float64{
			PS:   k / (1 - load),
			FCFS: k + lam*r.m2/(2*(1-load)),
			SRPT: lam*m2x/(2*(1-rhoLt)*(1-rhoLe)) + res,
		}
		rx := lam * (m1le + k*tail)
		t[LAS] = lam*m2x/(2*(1-rx)*(1-rx)) + k/(1-rx)
		for i := range t {
			r.resp[i] += p * t[i]
			r.slow[i] += p * t[i] / k
		}
		prevRho = rhoLe
	})
	return r
}
