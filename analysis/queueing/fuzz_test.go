package queueing

import (
	"math"
	"testing"
)

// FuzzNewPiecewise feeds arbitrary four-point CDFs through validation, both
// discretisations and every policy: no panics, and whenever the input is
// accepted the means are finite (slowdown may be +Inf only for FCFS) and
// ordered as SRPT <= PS.
func FuzzNewPiecewise(f *testing.F) {
	f.Add(0.0, 10000.0, 10000.0, 30000.0, 0.3, 0.5, 0.5, false)
	f.Add(1.0, 1.0, 2.0, 100000.0, 0.0, 0.2, 0.9, true)
	f.Add(65535.5, 65536.0, 70000.0, 70000.0, 0.1, 0.1, 0.99, true)
	f.Add(3.0, 3.0, 3.0, 3.0, 0.5, 1.0, 0.2, false)
	f.Add(1.0, 1+1e-13, 1+2e-13, 2.0, 0.3, 0.6, 0.9999999, false)
	f.Add(0.0, 0.0, 0.0, 5e-324, 0.3, 0.6, 0.5, true)
	f.Add(1e-300, 1e-300, 1.0, 2.0, 0.5, 0.5, 0.999999999, false)
	f.Fuzz(func(t *testing.T, s0, s1, s2, s3, c1, c2, load float64, integer bool) {
		sizes := []float64{s0, s1, s2, s3}
		cdf := []float64{0, c1, c2, 1}
		disc := Continuous
		if integer {
			disc = Integer
		}
		d, err := NewPiecewise(sizes, cdf, disc)
		if err != nil {
			return
		}
		if m := d.Mean(); !(m > 0) || math.IsInf(m, 0) {
			t.Fatalf("accepted %v %v: mean %g", sizes, cdf, m)
		}
		q, err := NewMG1(d, 12.5e9, load)
		if err != nil {
			return
		}
		var srpt, ps float64
		for _, p := range Policies {
			m, err := q.Means(p)
			if err != nil {
				t.Fatalf("%v %v %v load %g: %v", sizes, cdf, p, load, err)
			}
			// FCFS slowdown 1 + E[W] E[1/X] is +Inf when E[1/X] is, and may
			// overflow when a point mass sits at a tiny size.
			slowOK := m.Slowdown >= 1-1e-9 && (!math.IsInf(m.Slowdown, 0) || p == FCFS)
			if math.IsNaN(m.Response) || math.IsInf(m.Response, 0) || !slowOK {
				t.Fatalf("%v %v %v load %g: got %+v", sizes, cdf, p, load, m)
			}
			switch p {
			case SRPT:
				srpt = m.Response
			case PS:
				ps = m.Response
			}
			for _, x := range []float64{0, s1, (s1 + s2) / 2, s3} {
				if v, err := q.Response(p, x); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%v %v %v load %g: Response(%g) = %g, %v", sizes, cdf, p, load, x, v, err)
				}
			}
		}
		if srpt > ps*(1+1e-9) {
			t.Fatalf("%v %v load %g: SRPT E[T] %g > PS %g", sizes, cdf, load, srpt, ps)
		}
	})
}
