package cloud

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dcsim/dcsim/engine"
)

func hostRange(n int) []int {
	h := make([]int, n)
	for i := range h {
		h[i] = i
	}
	return h
}

func mustCDF(t testing.TB, name string) *CDF {
	t.Helper()
	c, ok := Builtin(name)
	if !ok {
		t.Fatalf("no built-in %q", name)
	}
	return c
}

// drain pulls every flow and checks the Generator contract on the way:
// Start non-decreasing, inside [start, stop), Src != Dst, Size >= 1, and
// false forever after the end.
func drain(t *testing.T, g Generator, start, stop engine.Time) []Flow {
	t.Helper()
	var out []Flow
	prev := engine.Time(math.MinInt64)
	for {
		f, ok := g.Next()
		if !ok {
			break
		}
		if f.Start < prev {
			t.Fatalf("flow %d starts at %v before the previous %v", len(out), f.Start, prev)
		}
		if f.Start < start || f.Start >= stop {
			t.Fatalf("flow %d starts at %v outside [%v, %v)", len(out), f.Start, start, stop)
		}
		if f.Src == f.Dst || f.Size < 1 {
			t.Fatalf("flow %d: got src %d dst %d size %d, want src != dst and size >= 1", len(out), f.Src, f.Dst, f.Size)
		}
		prev = f.Start
		out = append(out, f)
	}
	if _, ok := g.Next(); ok {
		t.Fatalf("Next returned a flow after reporting the end")
	}
	return out
}

// The offered load over [Start, Stop) must be within 2% of the target.
// The bytes offered in a window of length T by Poisson arrivals at total
// rate Lambda are compound Poisson, Var = Lambda*T*E[X^2], so the relative
// standard deviation is sqrt(E[X^2]/E[X]^2 / N) with N = Lambda*T expected
// flows. Each window below holds about 10^6 flows, which makes 2% at least
// 7 standard deviations (asserted, so a change of window cannot silently
// weaken the test); the 1 B floor bias is under 0.3% even for homa_w1.
func TestPoissonOfferedLoad(t *testing.T) {
	tests := []struct {
		cdf    string
		hosts  int
		rate   engine.Rate
		load   float64
		window engine.Time
	}{
		// 128 hosts x 3653 flows/s x 2 s = 9.3e5 flows.
		{"websearch", 128, 100 * engine.Gbps, 0.5, 2 * engine.Second},
		// 16 hosts x 3.39e7 flows/s x 2 ms = 1.08e6 flows.
		{"homa_w1", 16, 100 * engine.Gbps, 0.5, 2 * engine.Millisecond},
		// A different rate and load: 32 hosts x 25 Gbps x 0.8, websearch.
		{"websearch", 32, 25 * engine.Gbps, 0.8, 20 * engine.Second},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/hosts=%d/load=%v", tc.cdf, tc.hosts, tc.load), func(t *testing.T) {
			c := mustCDF(t, tc.cdf)
			start := 3 * engine.Millisecond
			cfg := PoissonConfig{Hosts: hostRange(tc.hosts), HostRate: tc.rate, Load: tc.load, CDF: c,
				Start: start, Stop: start + tc.window}
			g, err := NewPoisson(cfg, engine.NewStream(1, "arrivals"))
			if err != nil {
				t.Fatal(err)
			}
			flows := drain(t, g, cfg.Start, cfg.Stop)
			expected := tc.load * float64(tc.rate) * tc.window.Seconds() * float64(tc.hosts) / (8 * c.Mean())
			relSD := math.Sqrt(c.secondMoment / (c.Mean() * c.Mean()) / expected)
			if 7*relSD > 0.02 {
				t.Fatalf("window too short: relative sd %.4f, want 2%% >= 7 sd", relSD)
			}
			var bytes float64
			for _, f := range flows {
				bytes += float64(f.Size)
				if f.Generator != "cloud" || f.Tag != "" {
					t.Fatalf("got generator %q tag %q, want \"cloud\" and \"\"", f.Generator, f.Tag)
				}
			}
			got := bytes * 8 / (float64(tc.hosts) * float64(tc.rate) * tc.window.Seconds())
			if math.Abs(got-tc.load)/tc.load > 0.02 {
				t.Errorf("offered load got %.4f (%d flows), want %v +- 2%%", got, len(flows), tc.load)
			}
			t.Logf("%s: %d flows, load %.4f (target %v, sd %.4f)", tc.cdf, len(flows), got, tc.load, relSD*tc.load)
		})
	}
}

// Per host, inter-arrival gaps must be exponential with mean
// 8*mean/(rate*load): check the mean and the coefficient of variation (1
// for an exponential). 4 hosts x 2.0e7 flows/s x 10 ms give 8e5 gaps; the
// standard error of the mean is 1/sqrt(n) = 0.11% and that of the CV
// sqrt(2/n) = 0.16% (exponential fourth moment), so 1% is over 6 sd.
func TestPoissonInterArrivals(t *testing.T) {
	c := mustCDF(t, "homa_w1")
	cfg := PoissonConfig{Hosts: hostRange(4), HostRate: 100 * engine.Gbps, Load: 0.3, CDF: c,
		Stop: 10 * engine.Millisecond}
	g, err := NewPoisson(cfg, engine.NewStream(2, "arrivals"))
	if err != nil {
		t.Fatal(err)
	}
	wantMean := 8 * c.Mean() / (100e9 * 0.3) * 1e12 // ps; docs/model.md §7.3
	last := map[int]engine.Time{}
	var n, sum, sumSq float64
	for _, f := range drain(t, g, cfg.Start, cfg.Stop) {
		if prev, ok := last[f.Src]; ok {
			d := float64(f.Start - prev)
			n++
			sum += d
			sumSq += d * d
		}
		last[f.Src] = f.Start
	}
	mean := sum / n
	cv := math.Sqrt(sumSq/n-mean*mean) / mean
	if math.Abs(mean/wantMean-1) > 0.01 {
		t.Errorf("mean gap got %.1f ps, want %.1f ps +- 1%%", mean, wantMean)
	}
	if math.Abs(cv-1) > 0.01 {
		t.Errorf("gap coefficient of variation got %.4f, want 1 +- 0.01", cv)
	}
}

func TestPoissonWebsearchGapExample(t *testing.T) {
	// docs/model.md §7.3: websearch, 100 Gbps, load 0.5 -> 273.8 us.
	got := meanGapPS(mustCDF(t, "websearch").Mean(), 100*engine.Gbps, 0.5) / float64(engine.Microsecond)
	if math.Abs(got-273.8) > 0.05 {
		t.Errorf("mean inter-arrival got %.3f us, want 273.8 us", got)
	}
}

// Destinations must be uniform over the other hosts. Pearson's statistic
// summed over source rows has n*(n-2) degrees of freedom (each row of n-1
// cells, its total fixed); it must stay below the 0.999 quantile of
// chi-square(224) for n = 16, about 295. Sources are checked the same way
// against equal shares (n-1 degrees of freedom).
func TestPoissonDestinationsUniform(t *testing.T) {
	const n = 16
	c := mustCDF(t, "homa_w1")
	hosts := make([]int, n)
	for i := range hosts {
		hosts[i] = 100 + 3*i // ids need not be 0..n-1
	}
	cfg := PoissonConfig{Hosts: hosts, HostRate: 100 * engine.Gbps, Load: 0.5, CDF: c, Stop: 500 * engine.Microsecond}
	g, err := NewPoisson(cfg, engine.NewStream(5, "arrivals"))
	if err != nil {
		t.Fatal(err)
	}
	pos := map[int]int{}
	for i, h := range hosts {
		pos[h] = i
	}
	var counts [n][n]float64
	flows := drain(t, g, cfg.Start, cfg.Stop)
	for _, f := range flows {
		s, ok1 := pos[f.Src]
		d, ok2 := pos[f.Dst]
		if !ok1 || !ok2 {
			t.Fatalf("flow %+v uses a host outside %v", f, hosts)
		}
		counts[s][d]++
	}
	var stat, srcStat float64
	for s := range n {
		var row float64
		for d := range n {
			row += counts[s][d]
		}
		if counts[s][s] != 0 {
			t.Fatalf("host %d sent %v flows to itself", hosts[s], counts[s][s])
		}
		e := row / (n - 1)
		for d := range n {
			if d != s {
				stat += (counts[s][d] - e) * (counts[s][d] - e) / e
			}
		}
		es := float64(len(flows)) / n
		srcStat += (row - es) * (row - es) / es
	}
	crit := distuv.ChiSquared{K: n * (n - 2)}.Quantile(0.999)
	if stat > crit {
		t.Errorf("destination chi-square got %.1f, want < %.1f (df %d, p = 0.001)", stat, crit, n*(n-2))
	}
	critSrc := distuv.ChiSquared{K: n - 1}.Quantile(0.999)
	if srcStat > critSrc {
		t.Errorf("source chi-square got %.1f, want < %.1f (df %d, p = 0.001)", srcStat, critSrc, n-1)
	}
}

func TestPoissonDeterministic(t *testing.T) {
	cfg := PoissonConfig{Hosts: hostRange(8), HostRate: 100 * engine.Gbps, Load: 0.7,
		CDF: mustCDF(t, "fbhdp"), Stop: 10 * engine.Millisecond, Name: "bg"}
	run := func(seed uint64) []Flow {
		g, err := NewPoisson(cfg, engine.NewStream(seed, "arrivals"))
		if err != nil {
			t.Fatal(err)
		}
		return drain(t, g, cfg.Start, cfg.Stop)
	}
	a, b, other := run(9), run(9), run(10)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("got %d and %d flows from the same seed, want equal and > 0", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("flow %d differs between runs with one seed: %+v vs %+v", i, a[i], b[i])
		}
	}
	if a[0].Generator != "bg" {
		t.Errorf("got generator %q, want bg", a[0].Generator)
	}
	same := len(a) == len(other)
	for i := 0; same && i < len(a); i++ {
		same = a[i] == other[i]
	}
	if same {
		t.Errorf("seeds 9 and 10 gave identical flows")
	}
}

func TestPoissonEmpty(t *testing.T) {
	c := mustCDF(t, "websearch")
	for _, cfg := range []PoissonConfig{
		{Hosts: hostRange(4), HostRate: engine.Gbps, Load: 0, CDF: c, Stop: engine.Second},
		{Hosts: hostRange(4), HostRate: engine.Gbps, Load: 0.5, CDF: c, Start: engine.Second, Stop: engine.Second},
		{Hosts: hostRange(4), HostRate: engine.Gbps, Load: 1e-300, CDF: c, Stop: engine.Second},
	} {
		g, err := NewPoisson(cfg, engine.NewStream(1, "a"))
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := g.Next(); ok {
			t.Errorf("config %+v: got flow %+v, want none", cfg, f)
		}
	}
}

func TestPoissonValidate(t *testing.T) {
	c := mustCDF(t, "websearch")
	zero, _ := ParseCDF("zero", strings.NewReader("0 0\n0 1\n"))
	good := PoissonConfig{Hosts: hostRange(4), HostRate: engine.Gbps, Load: 0.5, CDF: c, Stop: engine.Second}
	tests := []struct {
		name string
		edit func(*PoissonConfig)
		want string
	}{
		{"one host", func(p *PoissonConfig) { p.Hosts = []int{1} }, "hosts: need at least 2"},
		{"duplicate host", func(p *PoissonConfig) { p.Hosts = []int{1, 2, 1} }, "hosts: host 1 listed twice"},
		{"negative host", func(p *PoissonConfig) { p.Hosts = []int{1, -2} }, "hosts: negative host -2"},
		{"zero rate", func(p *PoissonConfig) { p.HostRate = 0 }, "host_rate: must be positive"},
		{"negative load", func(p *PoissonConfig) { p.Load = -0.1 }, "load: must be a finite number >= 0"},
		{"nan load", func(p *PoissonConfig) { p.Load = math.NaN() }, "load: must be a finite number"},
		{"no cdf", func(p *PoissonConfig) { p.CDF = nil }, "cdf: missing"},
		{"zero-mean cdf", func(p *PoissonConfig) { p.CDF = zero }, "cdf: zero has mean 0 B"},
		{"negative start", func(p *PoissonConfig) { p.Start = -1 }, "start: negative"},
		{"stop before start", func(p *PoissonConfig) { p.Start = 2 * engine.Second }, "stop: 1s is before start 2s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.edit(&cfg)
			_, err := NewPoisson(cfg, engine.NewStream(1, "a"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := NewPoisson(good, engine.NewStream(1, "a")); err != nil {
		t.Errorf("good config: got error %v", err)
	}
}

func TestPoissonNextAllocatesNothing(t *testing.T) {
	cfg := PoissonConfig{Hosts: hostRange(128), HostRate: 100 * engine.Gbps, Load: 0.5,
		CDF: mustCDF(t, "websearch"), Stop: engine.Never - 1}
	g, err := NewPoisson(cfg, engine.NewStream(1, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(10000, func() { g.Next() }); n != 0 {
		t.Errorf("Next got %v allocs per flow, want 0", n)
	}
}

func BenchmarkPoissonNext(b *testing.B) {
	cfg := PoissonConfig{Hosts: hostRange(128), HostRate: 100 * engine.Gbps, Load: 0.5,
		CDF: mustCDF(b, "websearch"), Stop: engine.Never - 1}
	g, err := NewPoisson(cfg, engine.NewStream(1, "a"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		g.Next()
	}
}
