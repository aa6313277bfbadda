package cloud

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/internal/textline"
)

// cdfTolerance is how far the first cumulative probability may sit from 0
// and the last from 1 (and any value outside [0, 1]); such values are
// snapped to the bound. It absorbs decimal rounding in converted tables.
const cdfTolerance = 1e-9

// maxCDFSize is the largest size a CDF may hold: 2^53 B, beyond which
// float64 no longer represents every integer and floor() of a sample could
// not be trusted.
const maxCDFSize = 1 << 53

// maxCDFPoints bounds a CDF's points (the shipped ones have under 50), so
// that an endless input fails instead of filling memory.
const maxCDFPoints = 1 << 20

// CDF is an empirical flow-size distribution: points (x[i], F[i]) with
// sizes in bytes and cumulative probabilities, both non-decreasing, F[0] = 0
// and F[n-1] = 1. A CDF is immutable after parsing and safe to share.
type CDF struct {
	// Name is the built-in name or the file name the CDF was read from.
	Name string

	x, f []float64

	title  string // first comment line
	source string // text after "source:" in the first such comment

	meanLinear, meanStep, secondMoment float64
}

// ParseCDF reads a CDF in the format of docs/model.md §7.1: lines starting with
// '#' are comments, blank lines are skipped, every other line is
// "size_bytes cdf" separated by white space. Repeated sizes (point masses)
// and repeated cdf values (zero-probability segments) are accepted. Errors
// are "name:LINE: reason".
func ParseCDF(name string, r io.Reader) (*CDF, error) {
	c := &CDF{Name: name}
	sc := textline.NewScanner(r)
	line := 0
	lastLine := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if strings.HasPrefix(text, "#") {
			c.comment(strings.TrimSpace(strings.TrimPrefix(text, "#")))
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want 2 fields (size_bytes cdf), got %d", name, line, len(fields))
		}
		x, err := parseFinite(fields[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: size %q: %v", name, line, fields[0], err)
		}
		p, err := parseFinite(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: cdf %q: %v", name, line, fields[1], err)
		}
		if x < 0 {
			return nil, fmt.Errorf("%s:%d: negative size %v", name, line, x)
		}
		if x > maxCDFSize {
			return nil, fmt.Errorf("%s:%d: size %v above the limit 2^53", name, line, x)
		}
		if p < -cdfTolerance || p > 1+cdfTolerance {
			return nil, fmt.Errorf("%s:%d: cdf %v outside [0, 1]", name, line, p)
		}
		p = min(max(p, 0), 1)
		n := len(c.x)
		if n == 0 && p > cdfTolerance {
			return nil, fmt.Errorf("%s:%d: first cdf is %v, want 0", name, line, p)
		}
		if n == 0 {
			p = 0
		}
		if n > 0 && x < c.x[n-1] {
			return nil, fmt.Errorf("%s:%d: size %v decreases (previous %v)", name, line, x, c.x[n-1])
		}
		if n > 0 && p < c.f[n-1] {
			return nil, fmt.Errorf("%s:%d: cdf %v decreases (previous %v)", name, line, p, c.f[n-1])
		}
		if len(c.x) == maxCDFPoints {
			return nil, fmt.Errorf("%s:%d: more than %d points", name, line, maxCDFPoints)
		}
		c.x = append(c.x, x)
		c.f = append(c.f, p)
		lastLine = line
	}
	if err := textline.ScanErr(sc, line); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	n := len(c.x)
	if n == 0 {
		return nil, fmt.Errorf("%s: no points", name)
	}
	if math.Abs(c.f[n-1]-1) > cdfTolerance {
		return nil, fmt.Errorf("%s:%d: last cdf is %v, want 1", name, lastLine, c.f[n-1])
	}
	c.f[n-1] = 1
	c.moments()
	return c, nil
}

// parseFinite parses a decimal number and rejects NaN and infinities.
func parseFinite(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, errors.New("out of range")
		}
		return 0, errors.New("not a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("not a finite number")
	}
	return v, nil
}

// comment keeps the first comment line as the title and the first
// "source:" comment as the source, for Describe.
func (c *CDF) comment(text string) {
	if c.title == "" && text != "" {
		c.title = text
	}
	if c.source == "" {
		if s, ok := strings.CutPrefix(text, "source:"); ok {
			c.source = strings.TrimSpace(s)
		}
	}
}

// moments computes the linear and step means (docs/model.md §7.2) and the
// second moment of the linear rule (each segment uniform on [a, b], so
// E[X^2 | segment] = (a^2 + ab + b^2) / 3), used by tests for tolerances.
func (c *CDF) moments() {
	var lin, step, sq float64
	for i := 1; i < len(c.x); i++ {
		dp := c.f[i] - c.f[i-1]
		a, b := c.x[i-1], c.x[i]
		lin += (a + b) / 2 * dp
		step += b * dp
		sq += (a*a + a*b + b*b) / 3 * dp
	}
	c.meanLinear, c.meanStep, c.secondMoment = lin, step, sq
}

// Sample draws one size with the linear rule of docs/model.md §7.2: u uniform in
// [0, 1), the first segment i with u <= F[i] and F[i] > F[i-1], linear
// interpolation inside it, then floor, and 1 B for results <= 0. It draws
// exactly one value from r.
func (c *CDF) Sample(r *rand.Rand) int64 {
	return c.at(r.Float64())
}

// Quantile is the size Sample returns for u = p, i.e. the inverse of the
// linear rule; p is clamped to [0, 1] (NaN counts as 0). Quantile is
// non-decreasing in p, so P(Sample <= Quantile(p)) >= p: Quantile(k/n),
// k = 1..n-1, splits flows into n classes of at least equal probability.
func (c *CDF) Quantile(p float64) int64 {
	if !(p > 0) {
		p = 0
	}
	return c.at(min(p, 1))
}

// at applies the linear rule to u in [0, 1].
func (c *CDF) at(u float64) int64 {
	f := c.f
	// First i with F[i] >= u and F[i] > 0. For u > 0 the second condition
	// is implied, and F[i-1] < u <= F[i] makes F[i] > F[i-1]; for u = 0 it
	// skips the zero-probability head, as "F[i] > F[i-1]" requires.
	lo, hi := 1, len(f)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if f[mid] >= u && f[mid] > 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	i := lo
	size := c.x[i-1] + (c.x[i]-c.x[i-1])*(u-f[i-1])/(f[i]-f[i-1])
	size = math.Floor(size)
	if size <= 0 {
		return 1
	}
	return int64(size)
}

// Mean is mean_linear of docs/model.md §7.2, the mean of the linear rule before
// the floor and the 1 B minimum (they move it by less than 1 B). Arrival
// rates use it.
func (c *CDF) Mean() float64 { return c.meanLinear }

// MeanStep is mean_step of docs/model.md §7.2 (each segment's mass at its upper
// size), the mean of Homa's samplers. Sample does not use the step rule.
func (c *CDF) MeanStep() float64 { return c.meanStep }

// Max is the largest size in the table, floored to whole bytes; no sample
// exceeds it.
func (c *CDF) Max() int64 { return int64(c.x[len(c.x)-1]) }

// Len is the number of points.
func (c *CDF) Len() int { return len(c.x) }

// Title is the first comment line of the file, or "".
func (c *CDF) Title() string { return c.title }

// Source is the text of the first "# source:" comment, or "".
func (c *CDF) Source() string { return c.source }

// Points returns copies of the sizes (bytes) and cumulative probabilities,
// for analytic oracles that integrate the same piecewise-linear CDF.
func (c *CDF) Points() (sizes []float64, probs []float64) {
	return append([]float64(nil), c.x...), append([]float64(nil), c.f...)
}
