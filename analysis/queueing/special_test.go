package queueing

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

func TestExpIntE1(t *testing.T) {
	// Reference values: Abramowitz and Stegun table 5.1 / DLMF 6.
	tests := []struct{ x, want float64 }{
		{0.1, 1.8229239584193906},
		{0.5, 0.5597735947761608},
		{1, 0.21938393439552029},
		{2, 0.048900510708061118},
		{5, 0.0011482955912753257},
		{10, 4.1569689296853243e-06},
	}
	for _, tt := range tests {
		checkRel(t, fmt.Sprintf("E1(%g)", tt.x), expIntE1(tt.x), tt.want, 1e-14)
	}
	// Independent check on both branches: E1(x) = int_0^1 exp(-x/u)/u du.
	for _, x := range []float64{0.01, 0.3, 0.999, 1.001, 3, 30} {
		want, err := integrate(func(u float64) float64 { return math.Exp(-x/u) / u }, 0, 1, 0, quadRelTol)
		if err != nil {
			t.Fatal(err)
		}
		checkRel(t, fmt.Sprintf("E1(%g) by quadrature", x), expIntE1(x), want, 1e-10)
	}
	if !math.IsInf(expIntE1(0), 1) || expIntE1(math.Inf(1)) != 0 {
		t.Errorf("E1(0), E1(inf): got %g, %g, want +Inf, 0", expIntE1(0), expIntE1(math.Inf(1)))
	}
}

func TestGammaLower(t *testing.T) {
	fact := []float64{1, 1, 2}
	for n := 0; n <= 2; n++ {
		for _, z := range []float64{1e-8, 1e-3, 0.5, 1.999, 2, 7, 80} {
			// gamma(n+1, z) = n! * P(n+1, z), the regularised lower incomplete gamma.
			want := fact[n] * mathext.GammaIncReg(float64(n+1), z)
			checkRel(t, fmt.Sprintf("gamma(%d, %g)", n+1, z), gammaLower(n, z), want, 1e-13)
		}
		if got := gammaLower(n, math.Inf(1)); got != fact[n] {
			t.Errorf("gamma(%d, inf): got %g, want %g", n+1, got, fact[n])
		}
	}
}
