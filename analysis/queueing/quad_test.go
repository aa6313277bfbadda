package queueing

import (
	"fmt"
	"math"
	"testing"
)

// The 15-point Kronrod rule is exact for polynomials of degree <= 22 and
// the embedded 7-point Gauss rule for degree <= 13; a mistyped node or
// weight breaks that, so this guards the tables in quad.go.
func TestGaussKronrodExactness(t *testing.T) {
	for deg := 0; deg <= 22; deg++ {
		f := func(x float64) float64 { return math.Pow(x, float64(deg)) + 1 }
		// int_0^2 (x^deg + 1) dx = 2^(deg+1)/(deg+1) + 2
		want := math.Pow(2, float64(deg+1))/float64(deg+1) + 2
		k, e := gk15(f, 0, 2)
		checkRel(t, fmt.Sprintf("Kronrod, degree %d", deg), k, want, 1e-14)
		if deg <= 13 && e > 1e-13*want {
			t.Errorf("degree %d: Gauss and Kronrod differ by %g, want both exact", deg, e)
		}
	}
	// Degree 14 is beyond the Gauss rule: the error estimate must see it.
	if _, e := gk15(func(x float64) float64 { return math.Pow(x, 14) }, -1, 1); e < 1e-6 {
		t.Errorf("degree 14: error estimate %g, want the Gauss rule to be inexact", e)
	}
}

func TestIntegrate(t *testing.T) {
	tests := []struct {
		name string
		f    func(float64) float64
		a, b float64
		want float64
	}{
		{"Runge", func(x float64) float64 { return 1 / (1 + 25*x*x) }, -1, 1, 0.4 * math.Atan(5)},
		// A pole just off the interval, as 1/(1-rho(x))^2 near rho = 1.
		{"near pole", func(x float64) float64 { return 1 / ((1.001 - x) * (1.001 - x)) }, 0, 1, 1/0.001 - 1/1.001},
		// Logarithmic end-point singularity, as E[1/X; X > t] near t = 0.
		{"log singularity", func(x float64) float64 { return -math.Log(x) }, 0, 1, 1},
		{"empty", func(x float64) float64 { return 1 }, 3, 3, 0},
	}
	for _, tt := range tests {
		got, err := integrate(tt.f, tt.a, tt.b, 0, quadRelTol)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		checkRel(t, tt.name, got, tt.want, 1e-10)
	}
}

func TestIntegrateReportsFailure(t *testing.T) {
	// 1/x on [0, 1] diverges: the budget must run out with an error.
	if _, err := integrate(func(x float64) float64 { return 1 / x }, 0, 1, 0, quadRelTol); err == nil {
		t.Errorf("int_0^1 dx/x: got no error, want non-convergence")
	}
}
