package queueing

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// fixedQuad integrates f over [a, b] with an n-point Gauss-Legendre rule
// on each of m equal parts, an integrator independent of quad.go.
func fixedQuad(f func(float64) float64, a, b float64, m, n int) float64 {
	sum := 0.0
	h := (b - a) / float64(m)
	for i := 0; i < m; i++ {
		sum += quad.Fixed(f, a+float64(i)*h, a+float64(i+1)*h, n, quad.Legendre{}, 0)
	}
	return sum
}

// mm1 computes M/M/1 means (mean size 1) with closed forms for the
// exponential and gonum's fixed Gauss-Legendre rules:
// rho(x) = rho (1 - e^-x (1+x)), E[min(X,x)^2] = 2 - 2 e^-x (1+x),
// rho_x = rho (1 - e^-x). Sizes beyond 60 carry mass e^-60 and are dropped.
func mm1(rho float64) (srptResp, srptSlow, lasSlow float64) {
	m2 := func(x float64) float64 { return 2 - 2*math.Exp(-x)*(1+x) }
	rhoSRPT := func(x float64) float64 { return rho * (1 - math.Exp(-x)*(1+x)) }
	tSRPT := func(x float64) float64 {
		r := fixedQuad(func(t float64) float64 { return 1 / (1 - rhoSRPT(t)) }, 0, x, 4, 40)
		return rho*m2(x)/(2*(1-rhoSRPT(x))*(1-rhoSRPT(x))) + r
	}
	tLAS := func(x float64) float64 {
		rx := rho * (1 - math.Exp(-x))
		return rho*m2(x)/(2*(1-rx)*(1-rx)) + x/(1-rx)
	}
	const parts, nodes, top = 60, 40, 60
	srptResp = fixedQuad(func(x float64) float64 { return tSRPT(x) * math.Exp(-x) }, 0, top, parts, nodes)
	srptSlow = fixedQuad(func(x float64) float64 { return tSRPT(x) / x * math.Exp(-x) }, 0, top, parts, nodes)
	lasSlow = fixedQuad(func(x float64) float64 { return tLAS(x) / x * math.Exp(-x) }, 0, top, parts, nodes)
	return srptResp, srptSlow, lasSlow
}

// docs/model.md §11.1 insensitivity check: with exponential sizes at rho =
// 0.8, E[T]/E[X] = 1/(1-rho) = 5 for every size-blind policy and 2.353
// for SRPT.
func TestMM1(t *testing.T) {
	const mean, rate = 1000.0, 1e9 // bytes, bytes/s
	d, err := Exponential(mean)
	if err != nil {
		t.Fatal(err)
	}
	ex := mean / rate // E[X] in seconds
	q := mustMG1(t, d, rate, 0.8)
	for _, p := range []Policy{PS, FCFS, LAS} {
		checkRel(t, fmt.Sprintf("M/M/1 %v E[T]/E[X]", p), mustMeans(t, q, p).Response/ex, 5, 1e-12)
	}
	srpt := mustMeans(t, q, SRPT)
	if got := math.Round(srpt.Response/ex*1000) / 1000; got != 2.353 {
		t.Errorf("M/M/1 SRPT E[T]/E[X] at 0.8: got %.6f, want 2.353", srpt.Response/ex)
	}
	for _, rho := range []float64{0.3, 0.8, 0.95} {
		q := mustMG1(t, d, rate, rho)
		resp, slow, lasSlow := mm1(rho)
		srpt, las := mustMeans(t, q, SRPT), mustMeans(t, q, LAS)
		checkRel(t, fmt.Sprintf("M/M/1 SRPT E[T] at %g", rho), srpt.Response/ex, resp, 1e-10)
		checkRel(t, fmt.Sprintf("M/M/1 SRPT E[T/x] at %g", rho), srpt.Slowdown, slow, 1e-10)
		checkRel(t, fmt.Sprintf("M/M/1 LAS E[T/x] at %g", rho), las.Slowdown, lasSlow, 1e-10)
		checkRel(t, fmt.Sprintf("M/M/1 PS E[T/x] at %g", rho), mustMeans(t, q, PS).Slowdown, 1/(1-rho), 1e-14)
	}
}

// Hand-derived values. Rate 1 B/s, so seconds equal bytes.
func TestHandValues(t *testing.T) {
	det, err := Deterministic(1000)
	if err != nil {
		t.Fatal(err)
	}
	// Two sizes, 1000 B and 10000 B, half each; load 0.5, so
	// lambda = 0.5/5500 per B, rho(1000) = 1/22 and E[X^2] = 50.5e6.
	two := mustDist(t, []float64{1000, 1000, 10000, 10000}, []float64{0, 0.5, 0.5, 1}, Continuous)
	tests := []struct {
		name     string
		d        *Dist
		p        Policy
		x        float64 // a size and its E[T(x)]
		tx       float64
		resp     float64 // E[T]
		slowdown float64 // E[T(X)/X]
	}{
		// Deterministic 1000 B at load 0.5: lambda x^2/(2(1-rho)) = 500.
		{"D PS", det, PS, 1000, 2000, 2000, 2},
		{"D FCFS", det, FCFS, 1000, 1500, 1500, 1.5},
		// Equal sizes with first-come ties: SRPT serves in arrival order.
		{"D SRPT", det, SRPT, 1000, 1500, 1500, 1.5},
		// LAS shares equal sizes: a busy period of (500 + 1000) at load
		// 0.5 ends when the tagged job ends: 3000.
		{"D LAS", det, LAS, 1000, 3000, 3000, 3},
		// SRPT, x = 1000: (1/11e3)(1e6)/(2 * 21/22) + 1000 = 22000/21.
		{"2pt SRPT small", two, SRPT, 1000, 22000.0 / 21, 57000.0 / 7, 9.0 / 7},
		// SRPT, x = 10000: (1/11e3)(50.5e6)/(2 (21/22)(1/2)) + 1000 + 9000/(21/22) = 320000/21.
		{"2pt SRPT large", two, SRPT, 10000, 320000.0 / 21, 57000.0 / 7, 9.0 / 7},
		// LAS, x = 1000: rho_x = 1/11: (1/11e3)(1e6)/(2 (10/11)^2) + 1000 (11/10) = 1155.
		{"2pt LAS small", two, LAS, 1000, 1155, (1155 + 321000.0/11) / 2, (1.155 + 32.1/11) / 2},
		// LAS, x = 10000: rho_x = 1/2: (1/11e3)(50.5e6)/(1/2) + 20000 = 321000/11.
		{"2pt LAS large", two, LAS, 10000, 321000.0 / 11, (1155 + 321000.0/11) / 2, (1.155 + 32.1/11) / 2},
		{"2pt FCFS", two, FCFS, 10000, 10000 + 50.5e6/11e3, 5500 + 50.5e6/11e3, 1 + 50.5e6/11e3*0.55e-3},
		{"2pt PS", two, PS, 1000, 2000, 11000, 2},
		// A size between the two: only the 1000 B jobs are smaller.
		// SRPT: (1/11e3)(0.5e6 + 0.5*25e6)/(2 (21/22)^2) + 1000 + 4000/(21/22).
		{"2pt SRPT 5000", two, SRPT, 5000, 13e6/11e3/(2*21.0/22*21.0/22) + 1000 + 4000*22.0/21, 57000.0 / 7, 9.0 / 7},
	}
	for _, tt := range tests {
		q := mustMG1(t, tt.d, 1, 0.5)
		checkRel(t, tt.name+" T(x)", mustResponse(t, q, tt.p, tt.x), tt.tx, 1e-13)
		m := mustMeans(t, q, tt.p)
		checkRel(t, tt.name+" E[T]", m.Response, tt.resp, 1e-13)
		checkRel(t, tt.name+" E[T/x]", m.Slowdown, tt.slowdown, 1e-13)
	}
}

// Means must equal the size-by-size Response integrated over the CDF; this
// checks the exchange of integration order in srptMeans and the piece
// bookkeeping, with gonum's fixed rules instead of quad.go.
func TestMeansMatchResponse(t *testing.T) {
	for _, name := range []string{"websearch.cdf", "homa_w1.cdf"} {
		s, c := readCDF(t, "testdata/"+name)
		d := mustDist(t, s, c, Continuous)
		q := mustMG1(t, d, 12.5e9, 0.75)
		for _, p := range Policies {
			var resp, slow float64
			tx := func(x float64) float64 { return mustResponse(t, q, p, x) }
			for i := 1; i < len(s); i++ {
				m := c[i] - c[i-1]
				switch {
				case m == 0:
				case s[i] == s[i-1]:
					v := tx(s[i])
					resp += m * v
					slow += m * v / (s[i] / q.Rate())
				default:
					dens := m / (s[i] - s[i-1])
					resp += dens * fixedQuad(tx, s[i-1], s[i], 4, 30)
					slow += dens * fixedQuad(func(x float64) float64 { return tx(x) / (x / q.Rate()) }, s[i-1], s[i], 4, 30)
				}
			}
			got := mustMeans(t, q, p)
			checkRel(t, fmt.Sprintf("%s %v E[T]", name, p), got.Response, resp, 1e-9)
			if p != FCFS { // FCFS slowdown diverges for a CDF from (0, 0)
				checkRel(t, fmt.Sprintf("%s %v E[T/x]", name, p), got.Slowdown, slow, 1e-9)
			}
		}
	}
}

// Orderings that are theorems, on the real CDFs:
//   - SRPT minimises mean response time over all work-conserving
//     policies (Schrage 1968): SRPT <= PS, FCFS, LAS.
//   - SRPT <= LAS for every size: rho(t) <= rho_x for t <= x in the
//     formulas (Harchol-Balter, Performance Modeling, ch. 33), so also in
//     mean slowdown.
//   - All-can-win (Bansal and Harchol-Balter 2001): for rho <= 1/2 every
//     size does at least as well under SRPT as under PS.
//   - FCFS <= PS in E[T] exactly when E[X^2] <= 2 E[X]^2 (algebra on the
//     two formulas); PS slowdown is 1/(1-rho) for every distribution.
//   - T(x) >= x.
//
// LAS versus PS is a theorem only for decreasing hazard rates, which
// piecewise-uniform densities do not have, so it is not asserted.
func TestTheoremOrderings(t *testing.T) {
	for _, name := range []string{"websearch.cdf", "homa_w1.cdf"} {
		for _, disc := range []Discretisation{Continuous, Integer} {
			d := fileDist(t, name, disc)
			tag := fmt.Sprintf("%s %v", name, disc)
			fcfsBelowPS := d.SecondMoment() <= 2*d.Mean()*d.Mean()
			for _, rho := range []float64{0.1, 0.3, 0.5, 0.7, 0.9, 0.98} {
				q := mustMG1(t, d, 12.5e9, rho)
				m := map[Policy]Means{}
				for _, p := range Policies {
					m[p] = mustMeans(t, q, p)
				}
				for _, p := range []Policy{PS, FCFS, LAS} {
					if m[SRPT].Response > m[p].Response {
						t.Errorf("%s rho %g: SRPT E[T] %g > %v E[T] %g", tag, rho, m[SRPT].Response, p, m[p].Response)
					}
				}
				if m[SRPT].Slowdown > m[LAS].Slowdown {
					t.Errorf("%s rho %g: SRPT E[T/x] %g > LAS %g", tag, rho, m[SRPT].Slowdown, m[LAS].Slowdown)
				}
				if (m[FCFS].Response <= m[PS].Response) != fcfsBelowPS {
					t.Errorf("%s rho %g: FCFS E[T] %g, PS E[T] %g, want FCFS <= PS iff E[X^2] <= 2E[X]^2 (%v)",
						tag, rho, m[FCFS].Response, m[PS].Response, fcfsBelowPS)
				}
				checkRel(t, tag+" PS slowdown", m[PS].Slowdown, 1/(1-rho), 1e-14)
				for _, x := range sizeGrid(d) {
					srpt, las, ps := mustResponse(t, q, SRPT, x), mustResponse(t, q, LAS, x), mustResponse(t, q, PS, x)
					if srpt > las*(1+1e-12) {
						t.Errorf("%s rho %g x %g: SRPT T(x) %g > LAS %g", tag, rho, x, srpt, las)
					}
					if rho <= 0.5 && srpt > ps*(1+1e-12) {
						t.Errorf("%s rho %g x %g: SRPT T(x) %g > PS %g (all-can-win)", tag, rho, x, srpt, ps)
					}
					for _, p := range Policies {
						if v := mustResponse(t, q, p, x); v < x/q.Rate()*(1-1e-12) {
							t.Errorf("%s rho %g: %v T(%g) = %g s < x/C = %g s", tag, rho, p, x, v, x/q.Rate())
						}
					}
				}
			}
		}
	}
}

// sizeGrid returns sizes across the support: each piece's ends and middle.
func sizeGrid(d *Dist) []float64 {
	var xs []float64
	step := max(1, len(d.pieces)/300)
	for i := 0; i < len(d.pieces); i += step {
		p := d.pieces[i]
		xs = append(xs, p.lo, (p.lo+p.hi)/2, p.hi)
	}
	return append(xs, d.Max()*2)
}

func TestMonotoneInLoad(t *testing.T) {
	for _, name := range []string{"websearch.cdf", "homa_w1.cdf"} {
		for _, disc := range []Discretisation{Continuous, Integer} {
			d := fileDist(t, name, disc)
			prev := map[Policy]Means{}
			for i := 0; i <= 19; i++ {
				rho := 0.05 * float64(i)
				q := mustMG1(t, d, 12.5e9, rho)
				for _, p := range Policies {
					m := mustMeans(t, q, p)
					if i == 0 {
						// SRPT reaches E[X] as int P(X > t) dt, summed over
						// 65536 integer gaps: rounding allows 1e-10.
						checkRel(t, fmt.Sprintf("%s %v %v E[T] at load 0", name, disc, p), m.Response, d.Mean()/12.5e9, 1e-10)
					} else if !(m.Response > prev[p].Response) || !(m.Slowdown > prev[p].Slowdown || math.IsInf(m.Slowdown, 1)) {
						t.Errorf("%s %v %v: at load %.2f got %+v, at %.2f %+v: want both to grow", name, disc, p, rho, m, rho-0.05, prev[p])
					}
					prev[p] = m
				}
			}
		}
	}
}

func TestUnitsAndArrivals(t *testing.T) {
	d := fileDist(t, "homa_w1.cdf", Integer)
	a := mustMG1(t, d, 1, 0.6)
	b := mustMG1(t, d, 12.5e9, 0.6)
	lambda := 0.6 * 12.5e9 / d.Mean()
	c, err := NewMG1Arrivals(d, 12.5e9, lambda)
	if err != nil {
		t.Fatal(err)
	}
	checkRel(t, "ArrivalRate", b.ArrivalRate(), lambda, 1e-15)
	checkRel(t, "Load from arrivals", c.Load(), 0.6, 1e-15)
	for _, p := range Policies {
		ma, mb, mc := mustMeans(t, a, p), mustMeans(t, b, p), mustMeans(t, c, p)
		checkRel(t, p.String()+" E[T] scales as 1/rate", mb.Response, ma.Response/12.5e9, 1e-14)
		checkRel(t, p.String()+" slowdown is rate-free", mb.Slowdown, ma.Slowdown, 1e-14)
		checkRel(t, p.String()+" NewMG1Arrivals", mc.Response, mb.Response, 1e-13)
	}
}

func TestMG1Errors(t *testing.T) {
	d, err := Deterministic(100)
	if err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name string
		f    func() error
		want string
	}{
		{"nil dist", func() error { _, err := NewMG1(nil, 1, 0.5); return err }, "nil distribution"},
		{"load 1", func() error { _, err := NewMG1(d, 1, 1); return err }, "load 1"},
		{"load -0.1", func() error { _, err := NewMG1(d, 1, -0.1); return err }, "load -0.1"},
		{"load NaN", func() error { _, err := NewMG1(d, 1, math.NaN()); return err }, "load NaN"},
		{"rate 0", func() error { _, err := NewMG1(d, 0, 0.5); return err }, "service rate 0"},
		{"rate Inf", func() error { _, err := NewMG1(d, math.Inf(1), 0.5); return err }, "service rate +Inf"},
		{"arrivals unstable", func() error { _, err := NewMG1Arrivals(d, 100, 1); return err }, "unstable"},
		{"arrivals negative", func() error { _, err := NewMG1Arrivals(d, 100, -1); return err }, "arrival rate -1"},
		{"size negative", func() error { _, err := mustMG1(t, d, 1, 0.5).Response(SRPT, -1); return err }, "size -1"},
		{"unknown policy", func() error { _, err := mustMG1(t, d, 1, 0.5).Means(Policy(9)); return err }, "unknown policy"},
	}
	for _, b := range bad {
		if err := b.f(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: got error %v, want one containing %q", b.name, err, b.want)
		}
	}
}

// A continuous piece only a few float64 sizes wide cannot be integrated
// over (its quadrature nodes round to a handful of sizes; the fuzzer found
// SRPT's mean above PS's at load 0.9999999 with 70% of the mass in
// [45.0000000000001, 45.0000000000002] B), so the queue is refused,
// naming the piece; the same sizes as a point mass are accepted.
func TestNarrowPieceRefused(t *testing.T) {
	d, err := NewPiecewise([]float64{0.1, 45.0000000000001, 45.0000000000002, 774}, []float64{0, 0.3, 0.9999999999999999, 1}, Continuous)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewMG1(d, 12.5e9, 0.9999999); err == nil || !strings.Contains(err.Error(), "too narrow") {
		t.Errorf("narrow piece: error %v, want one saying it is too narrow", err)
	}
	d, err = NewPiecewise([]float64{0.1, 45, 45, 774}, []float64{0, 0.3, 0.9999999999999999, 1}, Continuous)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewMG1(d, 12.5e9, 0.9999999); err != nil {
		t.Errorf("point mass: %v", err)
	}
}
