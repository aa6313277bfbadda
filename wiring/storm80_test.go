package wiring

import (
	"math"
	"testing"

	"github.com/dcsim/dcsim/analysis/queueing"
	"github.com/dcsim/dcsim/workloads/cloud"
)

// The fluid bounds beside the paper's 80% case (docs/studies/storm.md,
// "The paper's 80% case"): M/G/1 mean slowdowns at load 0.8 on one 100 Gbps link for each
// storm-cloud distribution, with the integer sizes the simulator samples.
// SRPT is the lowest mean slowdown any scheduler can reach on that link,
// PS is ideal fair sharing (1/(1-rho) = 5 for every distribution) and LAS
// is size-agnostic least-attained-service, PIAS's ideal. These pin what
// docs/studies/storm.md quotes (relative 1e-6: they are printed to 8 digits; the integrals converge
// to 1e-9).
func TestStorm80FluidBounds(t *testing.T) {
	want := map[string][3]float64{ // SRPT, PS, LAS
		"websearch":  {1.1920534, 5, 1.5908228},
		"fbhdp":      {1.0548047, 5, 1.1464729},
		"alistorage": {1.1077120, 5, 1.2910603},
		"googlerpc":  {1.0441426, 5, 1.0983636},
		"webserver":  {1.2278247, 5, 1.8482200},
	}
	for _, name := range []string{"websearch", "fbhdp", "alistorage", "googlerpc", "webserver"} {
		c, ok := cloud.Builtin(name)
		if !ok {
			t.Fatalf("no built-in CDF %q", name)
		}
		sizes, probs := c.Points()
		d, err := queueing.NewPiecewise(sizes, probs, queueing.Integer)
		if err != nil {
			t.Fatal(err)
		}
		q, err := queueing.NewMG1(d, 100e9/8, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		var got [3]float64
		for i, p := range []queueing.Policy{queueing.SRPT, queueing.PS, queueing.LAS} {
			m, err := q.Means(p)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = m.Slowdown
		}
		t.Logf("%-10s SRPT %.7f  PS %.7f  LAS %.7f", name, got[0], got[1], got[2])
		for i, p := range []string{"SRPT", "PS", "LAS"} {
			if w := want[name][i]; math.Abs(got[i]-w) > 1e-6*w {
				t.Errorf("%s %s mean slowdown at 0.8: got %.7f, want %.7f", name, p, got[i], w)
			}
		}
	}
}
