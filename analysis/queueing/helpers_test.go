package queueing

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readCDF reads a dcsim CDF file (docs/model.md §7.1): '#' comments, then
// "size_bytes cdf" lines.
func readCDF(t testing.TB, path string) (sizes, cdf []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		fields := strings.Fields(s)
		if len(fields) != 2 {
			t.Fatalf("%s:%d: want 2 fields, got %q", path, line, s)
		}
		x, err1 := strconv.ParseFloat(fields[0], 64)
		c, err2 := strconv.ParseFloat(fields[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s:%d: bad line %q", path, line, s)
		}
		sizes, cdf = append(sizes, x), append(cdf, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sizes, cdf
}

func mustDist(t testing.TB, sizes, cdf []float64, disc Discretisation) *Dist {
	t.Helper()
	d, err := NewPiecewise(sizes, cdf, disc)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func fileDist(t testing.TB, name string, disc Discretisation) *Dist {
	t.Helper()
	s, c := readCDF(t, "testdata/"+name)
	return mustDist(t, s, c, disc)
}

func mustMG1(t testing.TB, d *Dist, rate, load float64) *MG1 {
	t.Helper()
	q, err := NewMG1(d, rate, load)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func mustMeans(t testing.TB, q *MG1, p Policy) Means {
	t.Helper()
	m, err := q.Means(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustResponse(t testing.TB, q *MG1, p Policy, x float64) float64 {
	t.Helper()
	v, err := q.Response(p, x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// relErr returns |got-want|/|want| (or |got| when want is 0).
func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

func checkRel(t testing.TB, what string, got, want, tol float64) {
	t.Helper()
	if e := relErr(got, want); !(e <= tol) {
		t.Errorf("%s: got %.12g, want %.12g (relative error %.3g > %.3g)", what, got, want, e, tol)
	}
}
