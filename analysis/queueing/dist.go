package queueing

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Discretisation says which size distribution a piecewise-linear CDF
// stands for.
type Discretisation int

const (
	// Continuous is the linear interpolant Y itself: uniform density
	// between consecutive points, a point mass where a size repeats.
	Continuous Discretisation = iota
	// Integer is max(1, floor(Y)), the distribution the simulator's
	// linear sampler draws (docs/model.md §7.2). Sizes below
	// exactBelow are exact point masses; above it the mass of each integer
	// k is spread evenly over [k-1/2, k+1/2] (see doc.go).
	Integer
)

// String returns "continuous" or "integer".
func (m Discretisation) String() string {
	switch m {
	case Continuous:
		return "continuous"
	case Integer:
		return "integer"
	}
	return fmt.Sprintf("Discretisation(%d)", int(m))
}

const (
	// exactBelow is the size (bytes) under which the Integer model keeps
	// one exact point mass per integer. Above it, the spread of each
	// integer's mass over [k-1/2, k+1/2] moves no size by more than
	// 1/2 B, a relative change below 0.5/65536 = 7.6e-6; the tests measure
	// the effect on the means against a brute-force sum over integers.
	exactBelow = 1 << 16
	// maxSize bounds sizes so that x^2 and the integer conversions stay
	// exact in float64.
	maxSize = 1 << 53
	// cdfEndTol is how far the last CDF value may sit from 1; the masses
	// are rescaled to sum to exactly 1.
	cdfEndTol = 1e-9
	// expTailMeans is where Exponential truncates its support, in means:
	// the mass beyond, e^-64 = 1.6e-28, is below float64 resolution.
	expTailMeans = 64
)

type pieceKind uint8

const (
	atomPiece    pieceKind = iota // point mass at lo == hi
	uniformPiece                  // constant density on [lo, hi]
	expPiece                      // density proportional to exp(-rate*(t-lo)) on [lo, hi]
)

// piece is one part of a size distribution. Pieces of a Dist are sorted by
// (lo, hi) and their interiors are disjoint: a point mass sits only at an
// end of a continuous piece, never inside one.
type piece struct {
	kind   pieceKind
	lo, hi float64 // bytes
	mass   float64 // probability
	rate   float64 // expPiece only, per byte
}

func (p *piece) continuous() bool { return p.kind != atomPiece }

// expNorm returns K such that the expPiece density is K*exp(-rate*(t-lo)).
func (p *piece) expNorm() float64 {
	return p.mass * p.rate / gammaLower(0, p.rate*(p.hi-p.lo))
}

// partial returns the mass, int t dF and int t^2 dF of a continuous piece
// over [lo, x], for lo <= x <= hi.
func (p *piece) partial(x float64) (mass, m1, m2 float64) {
	d := x - p.lo
	if d <= 0 {
		return 0, 0, 0
	}
	lo := p.lo
	switch p.kind {
	case uniformPiece:
		m := p.mass * (d / (p.hi - p.lo))
		return m, m * (lo + 0.5*d), m * (x*x + x*lo + lo*lo) / 3
	case expPiece:
		k, r := p.expNorm(), p.rate
		g0, g1, g2 := gammaLower(0, r*d)/r, gammaLower(1, r*d)/(r*r), gammaLower(2, r*d)/(r*r*r)
		return k * g0, k * (g1 + lo*g0), k * (g2 + 2*lo*g1 + lo*lo*g0)
	}
	return 0, 0, 0
}

// invFrom returns int_x^hi f(t)/t dt for a continuous piece, lo <= x <= hi.
func (p *piece) invFrom(x float64) float64 {
	if x >= p.hi {
		return 0
	}
	switch p.kind {
	case uniformPiece:
		if x <= 0 {
			return math.Inf(1)
		}
		return p.mass * (math.Log1p((p.hi-x)/x) / (p.hi - p.lo))
	case expPiece:
		// Exponential builds its piece with lo = 0, so exp(rate*lo) = 1.
		k := p.expNorm() * math.Exp(p.rate*p.lo)
		return k * (expIntE1(p.rate*x) - expIntE1(p.rate*p.hi))
	}
	return 0
}

// density returns the density of a continuous piece at lo <= x <= hi.
func (p *piece) density(x float64) float64 {
	switch p.kind {
	case uniformPiece:
		return p.mass / (p.hi - p.lo)
	case expPiece:
		return p.expNorm() * math.Exp(-p.rate*(x-p.lo))
	}
	return 0
}

// maxDensity returns the largest density of d's continuous pieces, per
// byte (an exponential piece is densest at its lower end).
func (d *Dist) maxDensity() float64 {
	m := 0.0
	for i := range d.pieces {
		if p := &d.pieces[i]; p.continuous() {
			m = math.Max(m, p.density(p.lo))
		}
	}
	return m
}

// Dist is a job-size distribution in bytes. It is immutable and safe for
// concurrent use.
type Dist struct {
	pieces []piece
	// Running sums over pieces [0, i): probability, E[X; .], E[X^2; .].
	cumMass, cumM1, cumM2 []float64
	// sufInv[i] is the sum over pieces [i, n) of E[1/X; piece].
	sufInv []float64
	disc   Discretisation
}

// NewPiecewise builds the distribution of a piecewise-linear CDF: sizes in
// bytes and cdf the cumulative probability at each size, as in a dcsim CDF
// file (docs/model.md §7.1). Both must be non-decreasing; cdf[0]
// must be 0 and the last cdf within 1e-9 of 1 (the masses are rescaled to
// sum to 1). A repeated size is a point mass; a segment whose cdf does not
// rise carries no mass. disc selects the continuous interpolant or the
// integer sizes the simulator samples.
func NewPiecewise(sizes, cdf []float64, disc Discretisation) (*Dist, error) {
	if err := checkPoints(sizes, cdf); err != nil {
		return nil, err
	}
	if disc != Continuous && disc != Integer {
		return nil, fmt.Errorf("queueing: unknown discretisation %d", int(disc))
	}
	total := cdf[len(cdf)-1]
	var ps []piece
	for i := 1; i < len(sizes); i++ {
		m := (cdf[i] - cdf[i-1]) / total
		if m <= 0 {
			continue
		}
		if sizes[i] == sizes[i-1] {
			ps = append(ps, piece{kind: atomPiece, lo: sizes[i], hi: sizes[i], mass: m})
		} else {
			ps = append(ps, piece{kind: uniformPiece, lo: sizes[i-1], hi: sizes[i], mass: m})
		}
	}
	if disc == Integer {
		ps = integerPieces(ps)
	}
	return newDist(ps, disc)
}

// checkPoints validates CDF points; errors name the offending field.
func checkPoints(sizes, cdf []float64) error {
	if len(sizes) != len(cdf) {
		return fmt.Errorf("queueing: %d sizes but %d cdf values", len(sizes), len(cdf))
	}
	if len(sizes) < 2 {
		return fmt.Errorf("queueing: %d cdf points, need at least 2", len(sizes))
	}
	for i := range sizes {
		s, c := sizes[i], cdf[i]
		switch {
		case math.IsNaN(s) || s < 0 || s > maxSize:
			return fmt.Errorf("queueing: sizes[%d] = %g: want a size in [0, 2^53] bytes", i, s)
		case math.IsNaN(c) || c < 0 || c > 1+cdfEndTol:
			return fmt.Errorf("queueing: cdf[%d] = %g: want a probability in [0, 1]", i, c)
		case i > 0 && s < sizes[i-1]:
			return fmt.Errorf("queueing: sizes[%d] = %g < sizes[%d] = %g: sizes must be non-decreasing", i, s, i-1, sizes[i-1])
		case i > 0 && c < cdf[i-1]:
			return fmt.Errorf("queueing: cdf[%d] = %g < cdf[%d] = %g: cdf must be non-decreasing", i, c, i-1, cdf[i-1])
		}
	}
	if cdf[0] != 0 {
		return fmt.Errorf("queueing: cdf[0] = %g: the first cdf value must be 0", cdf[0])
	}
	if last := cdf[len(cdf)-1]; math.Abs(last-1) > cdfEndTol {
		return fmt.Errorf("queueing: cdf[%d] = %g: the last cdf value must be 1", len(cdf)-1, last)
	}
	return nil
}

// integerPieces maps the pieces of the continuous interpolant Y to those of
// max(1, floor(Y)). Below exactBelow every integer k gets the exact mass
// P(k <= Y < k+1) (k = 1 also takes Y < 1). Above it a uniform piece
// [a, b] becomes [a-1/2, b-1/2]: the mass that floor sends to k is spread
// over [k-1/2, k+1/2], which for integer a and b is exactly the lattice
// spread evenly, and a point mass at s goes to floor(s).
func integerPieces(y []piece) []piece {
	exact := make([]float64, exactBelow)
	var out []piece
	for _, p := range y {
		if p.kind == atomPiece {
			k := math.Max(1, math.Floor(p.lo))
			if k < exactBelow {
				exact[int(k)] += p.mass
			} else {
				out = append(out, piece{kind: atomPiece, lo: k, hi: k, mass: p.mass})
			}
			continue
		}
		width := p.hi - p.lo
		if p.lo < exactBelow {
			top := math.Min(p.hi, exactBelow)
			for k := int(p.lo); float64(k) < top; k++ {
				if w := math.Min(float64(k+1), top) - math.Max(float64(k), p.lo); w > 0 {
					exact[max(k, 1)] += p.mass * (w / width)
				}
			}
		}
		if p.hi > exactBelow {
			lo := math.Max(p.lo, exactBelow)
			out = append(out, piece{kind: uniformPiece, lo: lo - 0.5, hi: p.hi - 0.5, mass: p.mass * ((p.hi - lo) / width)})
		}
	}
	// Small sizes first: the result is then almost sorted for newDist.
	res := make([]piece, 0, len(exact)+len(out))
	for k, m := range exact {
		if m > 0 {
			res = append(res, piece{kind: atomPiece, lo: float64(k), hi: float64(k), mass: m})
		}
	}
	return append(res, out...)
}

// Exponential returns the exponential distribution with the given mean in
// bytes (continuous; its support is cut at 64 means, where the remaining
// mass e^-64 is below float64 resolution).
func Exponential(mean float64) (*Dist, error) {
	if !(mean > 0) || mean*expTailMeans > maxSize {
		return nil, fmt.Errorf("queueing: exponential mean %g: want a mean in (0, 2^47] bytes", mean)
	}
	return newDist([]piece{{kind: expPiece, lo: 0, hi: expTailMeans * mean, mass: 1, rate: 1 / mean}}, Continuous)
}

// Deterministic returns the distribution with all its mass at size bytes.
func Deterministic(size float64) (*Dist, error) {
	if !(size > 0) || size > maxSize {
		return nil, fmt.Errorf("queueing: deterministic size %g: want a size in (0, 2^53] bytes", size)
	}
	return newDist([]piece{{kind: atomPiece, lo: size, hi: size, mass: 1}}, Continuous)
}

// newDist sorts the pieces, merges point masses at one size, splits
// continuous pieces at any point mass inside them and builds the sums.
func newDist(ps []piece, disc Discretisation) (*Dist, error) {
	for i := range ps {
		// A segment so narrow that its density overflows float64
		// (width < 1e-300 B) is a point mass for every purpose here.
		if p := &ps[i]; p.kind == uniformPiece && math.IsInf(p.mass/(p.hi-p.lo), 1) {
			mid := p.lo + 0.5*(p.hi-p.lo)
			*p = piece{kind: atomPiece, lo: mid, hi: mid, mass: p.mass}
		}
	}
	slices.SortFunc(ps, func(a, b piece) int {
		return cmp.Or(cmp.Compare(a.lo, b.lo), cmp.Compare(a.hi, b.hi))
	})
	var atoms []float64
	merged := ps[:0]
	for _, p := range ps {
		if p.kind == atomPiece {
			if n := len(merged); n > 0 && merged[n-1].kind == atomPiece && merged[n-1].lo == p.lo {
				merged[n-1].mass += p.mass
				continue
			}
			atoms = append(atoms, p.lo)
		}
		merged = append(merged, p)
	}
	out := make([]piece, 0, len(merged)+len(atoms))
	for _, p := range merged {
		if p.kind != uniformPiece {
			out = append(out, p) // expPiece never shares its support
			continue
		}
		i, _ := slices.BinarySearch(atoms, p.lo)
		lo := p.lo
		for ; i < len(atoms) && atoms[i] < p.hi; i++ {
			if atoms[i] > lo {
				out = append(out, piece{kind: uniformPiece, lo: lo, hi: atoms[i], mass: p.mass * (atoms[i] - lo) / (p.hi - p.lo)})
				lo = atoms[i]
			}
		}
		out = append(out, piece{kind: uniformPiece, lo: lo, hi: p.hi, mass: p.mass * (p.hi - lo) / (p.hi - p.lo)})
	}
	// Split pieces land before the point masses inside them; (lo, hi) is
	// unique per piece, so an unstable sort restores the order.
	slices.SortFunc(out, func(a, b piece) int {
		return cmp.Or(cmp.Compare(a.lo, b.lo), cmp.Compare(a.hi, b.hi))
	})
	if len(out) == 0 {
		return nil, errors.New("queueing: distribution has no mass")
	}
	if out[0].kind == atomPiece && out[0].lo == 0 {
		return nil, errors.New("queueing: point mass at size 0: slowdown is undefined (the Integer discretisation lifts it to 1 B)")
	}
	n := len(out)
	d := &Dist{
		pieces:  out,
		cumMass: make([]float64, n+1),
		cumM1:   make([]float64, n+1),
		cumM2:   make([]float64, n+1),
		sufInv:  make([]float64, n+1),
		disc:    disc,
	}
	for i := range out {
		m, m1, m2 := d.pieceMoments(i)
		d.cumMass[i+1] = d.cumMass[i] + m
		d.cumM1[i+1] = d.cumM1[i] + m1
		d.cumM2[i+1] = d.cumM2[i] + m2
	}
	for i := n - 1; i >= 0; i-- {
		p := &out[i]
		inv := p.mass / p.lo
		if p.continuous() {
			inv = p.invFrom(p.lo)
		}
		d.sufInv[i] = d.sufInv[i+1] + inv
	}
	if m := d.cumM1[n]; !(m > 0) || math.IsInf(m, 1) {
		return nil, fmt.Errorf("queueing: distribution mean %g B: want a positive finite mean", m)
	}
	return d, nil
}

func (d *Dist) pieceMoments(i int) (mass, m1, m2 float64) {
	p := &d.pieces[i]
	if p.kind == atomPiece {
		return p.mass, p.mass * p.lo, p.mass * p.lo * p.lo
	}
	return p.partial(p.hi)
}

// cumState holds P(X <= x) (or < x), E[X; X <= x] and E[X^2; X <= x].
type cumState struct{ mass, m1, m2 float64 }

// state returns the cumulative sums up to x, including a point mass at x
// when inclusive.
func (d *Dist) state(x float64, inclusive bool) cumState {
	j := d.count(x, inclusive)
	if j == 0 {
		return cumState{}
	}
	p := &d.pieces[j-1]
	if p.continuous() && x < p.hi {
		m, m1, m2 := p.partial(x)
		return cumState{d.cumMass[j-1] + m, d.cumM1[j-1] + m1, d.cumM2[j-1] + m2}
	}
	return cumState{d.cumMass[j], d.cumM1[j], d.cumM2[j]}
}

// count returns how many pieces start at or before x (inclusive) or
// strictly before x.
func (d *Dist) count(x float64, inclusive bool) int {
	return sort.Search(len(d.pieces), func(i int) bool {
		if inclusive {
			return d.pieces[i].lo > x
		}
		return d.pieces[i].lo >= x
	})
}

// Mean returns E[X] in bytes.
func (d *Dist) Mean() float64 { return d.cumM1[len(d.pieces)] }

// SecondMoment returns E[X^2] in bytes^2.
func (d *Dist) SecondMoment() float64 { return d.cumM2[len(d.pieces)] }

// MeanInverse returns E[1/X] in 1/bytes; it is +Inf when the density is
// positive at 0 (a Continuous CDF starting at (0, 0), or Exponential).
func (d *Dist) MeanInverse() float64 { return d.sufInv[0] }

// CDF returns P(X <= x). For an Integer distribution above 65536 B it is
// the CDF of the spread model (see doc.go), between integers linear.
func (d *Dist) CDF(x float64) float64 { return math.Min(1, d.state(x, true).mass) }

// Max returns the largest size in the support, in bytes.
func (d *Dist) Max() float64 { return d.pieces[len(d.pieces)-1].hi }

// Discretisation returns how the distribution was built.
func (d *Dist) Discretisation() Discretisation { return d.disc }
