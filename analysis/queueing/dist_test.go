package queueing

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestNewPiecewiseErrors(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name        string
		sizes, cdf  []float64
		disc        Discretisation
		wantErrPart string
	}{
		{"length mismatch", []float64{1, 2}, []float64{0}, Continuous, "2 sizes but 1 cdf"},
		{"one point", []float64{1}, []float64{0}, Continuous, "need at least 2"},
		{"negative size", []float64{-1, 2}, []float64{0, 1}, Continuous, "sizes[0] = -1"},
		{"NaN size", []float64{1, nan}, []float64{0, 1}, Continuous, "sizes[1] = NaN"},
		{"huge size", []float64{1, 1e17}, []float64{0, 1}, Continuous, "sizes[1] = 1e+17"},
		{"NaN cdf", []float64{1, 2}, []float64{0, nan}, Continuous, "cdf[1] = NaN"},
		{"cdf above 1", []float64{1, 2, 3}, []float64{0, 1.5, 1}, Continuous, "cdf[1] = 1.5"},
		{"sizes decrease", []float64{1, 3, 2}, []float64{0, 0.5, 1}, Continuous, "sizes[2] = 2 < sizes[1] = 3"},
		{"cdf decreases", []float64{1, 2, 3}, []float64{0, 0.6, 0.5}, Continuous, "cdf[2] = 0.5 < cdf[1] = 0.6"},
		{"first cdf not 0", []float64{1, 2}, []float64{0.1, 1}, Continuous, "cdf[0] = 0.1"},
		{"last cdf not 1", []float64{1, 2}, []float64{0, 0.9}, Continuous, "cdf[1] = 0.9"},
		{"mass at 0", []float64{0, 0, 5}, []float64{0, 0.5, 1}, Continuous, "point mass at size 0"},
		{"all zero", []float64{0, 0}, []float64{0, 1}, Continuous, "point mass at size 0"},
		{"bad discretisation", []float64{1, 2}, []float64{0, 1}, Discretisation(7), "unknown discretisation"},
	}
	for _, tt := range tests {
		_, err := NewPiecewise(tt.sizes, tt.cdf, tt.disc)
		if err == nil || !strings.Contains(err.Error(), tt.wantErrPart) {
			t.Errorf("%s: got error %v, want one containing %q", tt.name, err, tt.wantErrPart)
		}
	}
	// The Integer discretisation lifts a point mass at 0 to 1 B.
	d, err := NewPiecewise([]float64{0, 0, 5}, []float64{0, 0.5, 1}, Integer)
	if err != nil {
		t.Fatalf("mass at 0, Integer: got %v, want no error", err)
	}
	if got := d.CDF(1); got != 0.5+0.5*2/5 {
		t.Errorf("mass at 0, Integer: P(X <= 1) = %g, want %g", got, 0.5+0.5*2/5)
	}
	for _, c := range []struct {
		name string
		f    func() (*Dist, error)
	}{
		{"Exponential(0)", func() (*Dist, error) { return Exponential(0) }},
		{"Exponential(NaN)", func() (*Dist, error) { return Exponential(nan) }},
		{"Deterministic(-1)", func() (*Dist, error) { return Deterministic(-1) }},
		{"Deterministic(Inf)", func() (*Dist, error) { return Deterministic(math.Inf(1)) }},
	} {
		if _, err := c.f(); err == nil {
			t.Errorf("%s: got no error, want one", c.name)
		}
	}
}

// linearMoments sums E[X], E[X^2] of the interpolant point by point, the
// way docs/model.md §7.2 defines mean_linear.
func linearMoments(sizes, cdf []float64) (m1, m2 float64) {
	for i := 1; i < len(sizes); i++ {
		a, b, p := sizes[i-1], sizes[i], cdf[i]-cdf[i-1]
		m1 += (a + b) / 2 * p
		m2 += (a*a + a*b + b*b) / 3 * p
	}
	return m1, m2
}

func TestPiecewiseMoments(t *testing.T) {
	tests := []struct {
		file       string
		headerMean float64 // the file's "mean flow size (linear ...)" line
		headerTol  float64 // the header's rounding
	}{
		{"websearch.cdf", 1711250.0, 1e-12},
		{"homa_w1.cdf", 184.6, 0.05 / 184.6},
	}
	for _, tt := range tests {
		s, c := readCDF(t, "testdata/"+tt.file)
		d := mustDist(t, s, c, Continuous)
		m1, m2 := linearMoments(s, c)
		checkRel(t, tt.file+" mean", d.Mean(), m1, 1e-13)
		checkRel(t, tt.file+" mean vs header", d.Mean(), tt.headerMean, tt.headerTol)
		checkRel(t, tt.file+" E[X^2]", d.SecondMoment(), m2, 1e-13)
		if got := d.Max(); got != s[len(s)-1] {
			t.Errorf("%s max: got %g, want %g", tt.file, got, s[len(s)-1])
		}
		for i := range s {
			// At a repeated size the CDF is the last value listed there.
			want := c[i]
			for j := i + 1; j < len(s) && s[j] == s[i]; j++ {
				want = c[j]
			}
			checkRel(t, fmt.Sprintf("%s CDF(%g)", tt.file, s[i]), d.CDF(s[i]), want, 1e-12)
		}
	}
}

func TestPointMassesAndEmptySegments(t *testing.T) {
	// 20% at 1 B, nothing in (1, 5), 30% at 5 B, 50% uniform on (5, 9).
	d := mustDist(t, []float64{1, 1, 5, 5, 5, 9}, []float64{0, 0.2, 0.2, 0.4, 0.5, 1}, Continuous)
	cdfs := []struct{ x, want float64 }{
		{0.5, 0}, {1, 0.2}, {3, 0.2}, {4.999, 0.2}, {5, 0.5}, {7, 0.75}, {9, 1}, {100, 1},
	}
	for _, c := range cdfs {
		if got := d.CDF(c.x); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("CDF(%g): got %g, want %g", c.x, got, c.want)
		}
	}
	checkRel(t, "mean", d.Mean(), 0.2*1+0.3*5+0.5*7, 1e-15)
	checkRel(t, "E[X^2]", d.SecondMoment(), 0.2+0.3*25+0.5*(25+45+81)/3, 1e-15)
	checkRel(t, "E[1/X]", d.MeanInverse(), 0.2+0.3/5+0.5/4*math.Log(9.0/5), 1e-15)
}

func TestExponentialAndDeterministic(t *testing.T) {
	e, err := Exponential(1000)
	if err != nil {
		t.Fatal(err)
	}
	checkRel(t, "exponential mean", e.Mean(), 1000, 1e-15)
	checkRel(t, "exponential E[X^2]", e.SecondMoment(), 2e6, 1e-15)
	checkRel(t, "exponential CDF(mean)", e.CDF(1000), 1-math.Exp(-1), 1e-15)
	if !math.IsInf(e.MeanInverse(), 1) {
		t.Errorf("exponential E[1/X]: got %g, want +Inf", e.MeanInverse())
	}
	d, err := Deterministic(1500)
	if err != nil {
		t.Fatal(err)
	}
	if d.Mean() != 1500 || d.SecondMoment() != 1500*1500 || d.MeanInverse() != 1.0/1500 || d.CDF(1499) != 0 || d.CDF(1500) != 1 {
		t.Errorf("deterministic 1500 B: got mean %g, E[X^2] %g, E[1/X] %g, CDF(1499) %g, CDF(1500) %g",
			d.Mean(), d.SecondMoment(), d.MeanInverse(), d.CDF(1499), d.CDF(1500))
	}
}

// synthetic exercises what the data files do not: non-integer sizes, a
// segment across exactBelow, point masses above it (one non-integer,
// landing inside a shifted segment) and a CDF starting at (0, 0).
var synthetic = struct{ sizes, cdf []float64 }{
	sizes: []float64{0, 2.5, 2.5, 700.25, 90000, 90000, 123456.7, 123456.7, 300000},
	cdf:   []float64{0, 0.05, 0.15, 0.4, 0.6, 0.7, 0.75, 0.8, 1},
}

// The Integer model against a sum over every integer size: exact below
// exactBelow, the 1/2 B spread above it.
func TestIntegerMatchesBruteForce(t *testing.T) {
	cases := []struct {
		name                 string
		sizes, cdf           []float64
		momentTol, policyTol float64
	}{
		{"synthetic", synthetic.sizes, synthetic.cdf, 1e-9, 1e-9},
		{"homa_w1", nil, nil, 1e-9, 1e-9},
		// WebSearch with sizes / 20 (max 1.5 MB) keeps the sum short; the
		// full file agrees to 1e-11 as well (30M sizes, 8 s).
		{"websearch/20", nil, nil, 1e-9, 1e-9},
	}
	for _, c := range cases {
		if c.sizes == nil {
			name, scale := c.name, 1.0
			if n, ok := strings.CutSuffix(name, "/20"); ok {
				name, scale = n, 20
			}
			c.sizes, c.cdf = readCDF(t, "testdata/"+name+".cdf")
			for i := range c.sizes {
				c.sizes[i] /= scale
			}
		}
		d := mustDist(t, c.sizes, c.cdf, Integer)
		const load = 0.7
		b := bruteInteger(c.sizes, c.cdf, load)
		checkRel(t, c.name+" mean", d.Mean(), b.mean, c.momentTol)
		checkRel(t, c.name+" E[X^2]", d.SecondMoment(), b.m2, c.momentTol)
		checkRel(t, c.name+" E[1/X]", d.MeanInverse(), b.inv, c.momentTol)
		// Rate 1 B/s: seconds equal bytes of service time. The load is
		// taken from each model's own mean, which differ by < 1e-9.
		q := mustMG1(t, d, 1, load)
		for _, p := range Policies {
			m := mustMeans(t, q, p)
			checkRel(t, fmt.Sprintf("%s %v E[T]", c.name, p), m.Response, b.resp[p], c.policyTol)
			checkRel(t, fmt.Sprintf("%s %v E[T/x]", c.name, p), m.Slowdown, b.slow[p], c.policyTol)
		}
	}
}
