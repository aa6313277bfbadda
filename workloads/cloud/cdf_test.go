package cloud

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// table71 is docs/model.md §7.1's table, with the rounding it shows.
var table71 = []struct {
	name             string
	linear, step     float64
	max              int64
	roundingShownToB float64 // half the last digit shown
}{
	{"websearch", 1711250, 2434900, 30000000, 0.5},
	{"websearch_powertcp", 1711223, 2434317, 30000000, 0.5},
	{"datamining", 12658199, 23199799, 1000000000, 0.5},
	{"datamining_pfabric", 7470236, 13821966, 973333820, 0.5},
	{"datamining_abm", 5036535, 7861995, 1000000000, 0.5},
	{"fbhdp", 120421, 183897, 10000000, 0.5},
	{"alistorage", 40870, 67050, 2000000, 0.5},
	{"solar2022", 39424, 47104, 262144, 0.5},
	{"googlerpc", 2892, 2929, 15158197, 0.5},
	{"cachefollower", 686866, 692976, 3837698, 0.5},
	{"webserver", 62229, 62874, 1000000, 0.5},
	{"cachefollower_all_parsimon", 609883, 698171, 28388498, 0.5},
	{"webserver_all_parsimon", 91343, 152824, 19791390, 0.5},
	{"hadoop_all_parsimon", 568755, 977600, 96047070, 0.5},
	{"homa_w1", 184.6, 187.5, 100000, 0.05},
	{"homa_w2", 423.4, 440.8, 3529904, 0.05},
	{"homa_w3", 2890, 2927, 15158197, 0.5},
	{"homa_w4", 121849, 127797, 10000000, 0.5},
	{"homa_w5", 2527976, 2564715, 29400000, 0.5},
}

func TestBuiltinMeansMatchReferenceTable(t *testing.T) {
	if got, want := len(BuiltinNames()), len(table71); got != want {
		t.Errorf("got %d built-in CDFs, want %d (docs/model.md §7.1)", got, want)
	}
	for _, tc := range table71 {
		c, ok := Builtin(tc.name)
		if !ok {
			t.Errorf("Builtin(%q) missing", tc.name)
			continue
		}
		if d := math.Abs(c.Mean() - tc.linear); d > tc.roundingShownToB {
			t.Errorf("%s: Mean() got %.2f, want %v (+-%v)", tc.name, c.Mean(), tc.linear, tc.roundingShownToB)
		}
		if d := math.Abs(c.MeanStep() - tc.step); d > tc.roundingShownToB {
			t.Errorf("%s: MeanStep() got %.2f, want %v (+-%v)", tc.name, c.MeanStep(), tc.step, tc.roundingShownToB)
		}
		if got := c.Max(); got != tc.max {
			t.Errorf("%s: Max() got %d, want %d", tc.name, got, tc.max)
		}
	}
}

// headerMean extracts "mean flow size (<kind>...): X bytes" from a header.
func headerMean(t *testing.T, data []byte, kind string) float64 {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	prefix := "# mean flow size (" + kind
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		_, rest, _ := strings.Cut(line, "):")
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " bytes"), 64)
		if err != nil {
			t.Fatalf("bad header line %q: %v", line, err)
		}
		return v
	}
	t.Fatalf("no %q line", prefix)
	return 0
}

// The headers print means to 0.1 B, so the computed means must agree to
// within 0.05 B (plus float slack).
func TestBuiltinMeansMatchHeaders(t *testing.T) {
	for _, name := range BuiltinNames() {
		data, err := builtinFS.ReadFile("cdf/" + name + ".cdf")
		if err != nil {
			t.Fatal(err)
		}
		c, _ := Builtin(name)
		if got, want := c.Mean(), headerMean(t, data, "linear"); math.Abs(got-want) > 0.05+1e-9 {
			t.Errorf("%s: Mean() got %.3f, want header %.1f", name, got, want)
		}
		if got, want := c.MeanStep(), headerMean(t, data, "step"); math.Abs(got-want) > 0.05+1e-9 {
			t.Errorf("%s: MeanStep() got %.3f, want header %.1f", name, got, want)
		}
		if c.Source() == "" || c.Title() == "" {
			t.Errorf("%s: got empty title %q or source %q", name, c.Title(), c.Source())
		}
	}
}

func TestDescribe(t *testing.T) {
	infos := Describe()
	names := BuiltinNames()
	if len(infos) != len(names) {
		t.Fatalf("got %d infos, want %d", len(infos), len(names))
	}
	for i, in := range infos {
		if in.Name != names[i] {
			t.Errorf("info %d: got name %q, want %q", i, in.Name, names[i])
		}
		if !strings.HasPrefix(in.Source, "github.com/") {
			t.Errorf("%s: got source %q, want a github.com/ reference", in.Name, in.Source)
		}
		if in.MeanLinear <= 0 || in.MeanStep < in.MeanLinear || in.Max <= 0 || in.Points < 2 {
			t.Errorf("%s: implausible info %+v", in.Name, in)
		}
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("BuiltinNames not sorted: %q before %q", names[i-1], names[i])
		}
	}
}

// refLinear is docs/model.md §7.2 transcribed literally, with a linear scan, as
// an oracle for the binary search in CDF.at.
func refLinear(x, f []float64, u float64) int64 {
	for i := 1; i < len(f); i++ {
		if u <= f[i] && f[i] > f[i-1] {
			size := x[i-1] + (x[i]-x[i-1])*(u-f[i-1])/(f[i]-f[i-1])
			size = math.Floor(size)
			if size <= 0 {
				size = 1
			}
			return int64(size)
		}
	}
	panic("no segment")
}

func TestSampleFollowsReferenceRule(t *testing.T) {
	r := engine.NewStream(1, "test")
	for _, name := range BuiltinNames() {
		c, _ := Builtin(name)
		x, f := c.Points()
		// Every breakpoint and its neighbours, plus random u.
		us := []float64{0, math.Nextafter(1, 0), 1}
		for _, p := range f {
			us = append(us, p, math.Nextafter(p, 0), math.Nextafter(p, 1))
		}
		for range 20000 {
			us = append(us, r.Float64())
		}
		for _, u := range us {
			if u < 0 || u > 1 {
				continue
			}
			if got, want := c.Quantile(u), refLinear(x, f, u); got != want {
				t.Fatalf("%s: Quantile(%v) got %d, want %d (reference rule)", name, u, got, want)
			}
		}
	}
}

func TestSampleEqualsQuantileOfSameDraw(t *testing.T) {
	for _, name := range BuiltinNames() {
		c, _ := Builtin(name)
		ra, rb := engine.NewStream(7, name), engine.NewStream(7, name)
		for range 10000 {
			got := c.Sample(ra)
			if want := c.Quantile(rb.Float64()); got != want {
				t.Fatalf("%s: Sample got %d, want Quantile(u) = %d for the same u", name, got, want)
			}
		}
	}
}

func TestQuantileMonotoneAndSplits(t *testing.T) {
	const n = 200000
	for _, name := range BuiltinNames() {
		c, _ := Builtin(name)
		prev := int64(0)
		for k := 0; k <= 1000; k++ {
			q := c.Quantile(float64(k) / 1000)
			if q < prev {
				t.Fatalf("%s: Quantile(%v) = %d below Quantile of the previous step %d", name, float64(k)/1000, q, prev)
			}
			if q < 1 || q > max(c.Max(), 1) {
				t.Fatalf("%s: Quantile(%v) = %d outside [1, %d]", name, float64(k)/1000, q, c.Max())
			}
			prev = q
		}
		// Equal split into 4 classes: P(Sample <= Quantile(p)) >= p exactly
		// (monotone rule); the empirical fraction may fall short of p only
		// by sampling noise, at most 5 sd = 5*sqrt(p(1-p)/n) <= 0.0056.
		r := engine.NewStream(3, name)
		th := []int64{c.Quantile(0.25), c.Quantile(0.5), c.Quantile(0.75)}
		var below [3]int
		for range n {
			s := c.Sample(r)
			for i, v := range th {
				if s <= v {
					below[i]++
				}
			}
		}
		for i, p := range []float64{0.25, 0.5, 0.75} {
			frac := float64(below[i]) / n
			if tol := 5 * math.Sqrt(p*(1-p)/n); frac < p-tol {
				t.Errorf("%s: P(Sample <= Quantile(%v)) got %.4f, want >= %v - %.4f", name, p, frac, p, tol)
			}
		}
	}
	// Hand-computed on websearch: (0,0) (10000,0.15) ... (50000,0.4)
	// (80000,0.53) ... (10^7,0.97) (3*10^7,1); p = 0.5 gives
	// 50000 + 30000*0.1/0.13 = 73076.9.
	c, _ := Builtin("websearch")
	for _, tc := range []struct {
		p    float64
		want int64
	}{{-1, 1}, {math.NaN(), 1}, {0, 1}, {0.075, 5000}, {0.15, 10000}, {0.5, 73076}, {1, 30000000}, {2, 30000000}} {
		if got := c.Quantile(tc.p); got != tc.want {
			t.Errorf("websearch Quantile(%v) got %d, want %d", tc.p, got, tc.want)
		}
	}
}

// The sampled mean of 10^6 draws must match Mean() within 5 standard errors
// of the mean, sqrt(Var/n) with Var from the second moment of the linear
// rule, plus 1 B for the floor and the 1 B minimum (each moves a sample by
// less than 1 B). The streams are seeded, so the test is deterministic; 5
// sd keeps a seed change from failing it spuriously (p ~ 6e-7).
func TestSampledMeanMatchesMean(t *testing.T) {
	const n = 1000000
	for _, name := range BuiltinNames() {
		c, _ := Builtin(name)
		r := engine.NewStream(11, name)
		var sum float64
		for range n {
			sum += float64(c.Sample(r))
		}
		got := sum / n
		sd := math.Sqrt(c.secondMoment - c.Mean()*c.Mean())
		tol := 5*sd/math.Sqrt(n) + 1
		if math.Abs(got-c.Mean()) > tol {
			t.Errorf("%s: sampled mean got %.1f, want %.1f +- %.1f", name, got, c.Mean(), tol)
		}
	}
}

func TestParseCDFAccepts(t *testing.T) {
	tests := []struct {
		name, in         string
		mean, step       float64
		sizes            []float64
		quantile0, qHalf int64
	}{
		{"two points", "0 0\n100 1\n", 50, 100, []float64{0, 100}, 1, 50},
		{"comments blank lines tabs", "# t\n\n# source: here\n10\t0\n  20 0.5 \n30 1\n", 20, 25, []float64{10, 20, 30}, 10, 20},
		{"point mass first", "5 0\n5 0.5\n10 1\n", 6.25, 7.5, []float64{5, 5, 10}, 5, 5},
		{"point mass inside", "0 0\n4 0.5\n4 0.75\n8 1\n", 3.5, 5, []float64{0, 4, 4, 8}, 1, 4},
		{"zero-probability segment", "0 0\n10 0.5\n20 0.5\n30 1\n", 15, 20, []float64{0, 10, 20, 30}, 1, 10},
		{"zero-probability head", "0 0\n10 0\n20 1\n", 15, 20, []float64{0, 10, 20}, 10, 15},
		{"tolerance snaps ends", "0 1e-10\n10 0.9999999999\n", 5, 10, []float64{0, 10}, 1, 5},
		{"percent-like decimals", "1 0\n2 0.15\n3 1\n", 2.35, 2.85, []float64{1, 2, 3}, 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCDF("t.cdf", strings.NewReader(tc.in))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if math.Abs(c.Mean()-tc.mean) > 1e-9 || math.Abs(c.MeanStep()-tc.step) > 1e-9 {
				t.Errorf("got means %v/%v, want %v/%v", c.Mean(), c.MeanStep(), tc.mean, tc.step)
			}
			sizes, probs := c.Points()
			if len(sizes) != len(tc.sizes) {
				t.Fatalf("got sizes %v, want %v", sizes, tc.sizes)
			}
			for i := range sizes {
				if sizes[i] != tc.sizes[i] {
					t.Errorf("got sizes %v, want %v", sizes, tc.sizes)
				}
			}
			if probs[0] != 0 || probs[len(probs)-1] != 1 {
				t.Errorf("got probs %v, want first 0 and last 1 exactly", probs)
			}
			if got := c.Quantile(0); got != tc.quantile0 {
				t.Errorf("Quantile(0) got %d, want %d", got, tc.quantile0)
			}
			if got := c.Quantile(0.5); got != tc.qHalf {
				t.Errorf("Quantile(0.5) got %d, want %d", got, tc.qHalf)
			}
			if tc.name == "comments blank lines tabs" && (c.Title() != "t" || c.Source() != "here") {
				t.Errorf("got title %q source %q, want \"t\" and \"here\"", c.Title(), c.Source())
			}
			sizes[0] = -99
			if s, _ := c.Points(); s[0] == -99 {
				t.Errorf("Points returned the CDF's own slice, want a copy")
			}
		})
	}
}

func TestParseCDFRejects(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "t.cdf: no points"},
		{"only comments", "# a\n# b\n", "t.cdf: no points"},
		{"one field", "0 0\n1\n", "t.cdf:2: want 2 fields"},
		{"three fields", "0 0 1\n", "t.cdf:1: want 2 fields"},
		{"non-numeric size", "0 0\nabc 1\n", "t.cdf:2: size \"abc\": not a number"},
		{"non-numeric cdf", "0 0\n1 x\n", "t.cdf:2: cdf \"x\": not a number"},
		{"nan", "0 0\nNaN 1\n", "t.cdf:2: size \"NaN\": not a finite number"},
		{"inf cdf", "0 0\n1 Inf\n", "t.cdf:2: cdf \"Inf\": not a finite number"},
		{"overflow", "0 0\n1e999 1\n", "t.cdf:2: size \"1e999\": out of range"},
		{"negative size", "-1 0\n1 1\n", "t.cdf:1: negative size"},
		{"huge size", "0 0\n1e17 1\n", "t.cdf:2: size 1e+17 above the limit"},
		{"decreasing size", "0 0\n10 0.5\n5 1\n", "t.cdf:3: size 5 decreases"},
		{"decreasing cdf", "0 0\n10 0.5\n20 0.4\n30 1\n", "t.cdf:3: cdf 0.4 decreases"},
		{"first cdf not 0", "1 0.1\n2 1\n", "t.cdf:1: first cdf is 0.1, want 0"},
		{"last cdf not 1", "0 0\n2 0.9\n", "t.cdf:2: last cdf is 0.9, want 1"},
		{"last cdf just outside tolerance", "0 0\n2 0.999999998\n", "t.cdf:2: last cdf"},
		{"cdf above 1", "0 0\n2 1.5\n", "t.cdf:2: cdf 1.5 outside [0, 1]"},
		{"single point", "0 0\n", "t.cdf:1: last cdf is 0, want 1"},
		{"last line named after comments", "0 0\n5 0.5\n# tail\n", "t.cdf:2: last cdf"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCDF("t.cdf", strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	c, err := Load("fbhdp")
	if err != nil || c.Name != "fbhdp" {
		t.Fatalf("Load(fbhdp) got %v, %v; want the built-in", c, err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "mine.cdf")
	if err := os.WriteFile(p, []byte("# mine\n100 0\n300 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = Load(p)
	if err != nil {
		t.Fatalf("Load(%s) got error %v", p, err)
	}
	if c.Name != p || c.Mean() != 200 {
		t.Errorf("got name %q mean %v, want %q and 200", c.Name, c.Mean(), p)
	}
	missing := filepath.Join(dir, "nope.cdf")
	if _, err := Load(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Load(missing) got %v, want an error naming %s", err, missing)
	}
	bad := filepath.Join(dir, "bad.cdf")
	if err := os.WriteFile(bad, []byte("0 0\n1 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad+":2:") {
		t.Errorf("Load(bad) got %v, want an error naming %s:2:", err, bad)
	}
}

func TestBuiltinReturnsIndependentName(t *testing.T) {
	a, _ := Builtin("websearch")
	a.Name = "changed"
	b, _ := Builtin("websearch")
	if b.Name != "websearch" {
		t.Errorf("got name %q after changing another copy, want websearch", b.Name)
	}
	if _, ok := Builtin("nosuch"); ok {
		t.Errorf("Builtin(nosuch) got ok, want false")
	}
}

func TestSampleAllocatesNothing(t *testing.T) {
	c, _ := Builtin("googlerpc")
	r := engine.NewStream(1, "alloc")
	if n := testing.AllocsPerRun(1000, func() { c.Sample(r) }); n != 0 {
		t.Errorf("Sample got %v allocs, want 0", n)
	}
}
