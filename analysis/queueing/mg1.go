package queueing

import (
	"errors"
	"fmt"
	"math"
)

// Policy is a scheduling discipline of the single server.
type Policy int

const (
	// PS is processor sharing: E[T(x)] = x/(1-rho).
	PS Policy = iota
	// FCFS is first come, first served (Pollaczek-Khinchine):
	// E[T(x)] = x + lambda E[X^2] / (2(1-rho)).
	FCFS
	// SRPT is preemptive shortest remaining processing time
	// (Schrage-Miller); ties go to the earlier arrival.
	SRPT
	// LAS is least attained service, also foreground-background: the job
	// with the least service so far runs, ties share the server equally.
	LAS
)

// Policies lists every Policy, for table-driven callers.
var Policies = []Policy{PS, FCFS, SRPT, LAS}

// String returns the policy's name, e.g. "SRPT".
func (p Policy) String() string {
	switch p {
	case PS:
		return "PS"
	case FCFS:
		return "FCFS"
	case SRPT:
		return "SRPT"
	case LAS:
		return "LAS"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// MG1 is an M/G/1 queue: Poisson arrivals, sizes from a Dist, one server
// of a fixed rate in bytes per second. Internally time is measured in
// bytes of service (1 unit = 1/rate s); results are converted to seconds.
type MG1 struct {
	dist   *Dist
	rate   float64 // bytes per second
	lambda float64 // arrivals per byte of service time
	load   float64
	relTol float64 // of every integral
	// SRPT residence R(x) = int_0^x dt/(1-rho(t)) at each piece's ends,
	// in bytes of service time.
	resLo, resHi []float64
}

// NewMG1 returns the queue with sizes d, service rate bytesPerSecond
// (a 100 Gbps link is 12.5e9) and load rho in [0, 1): the arrival rate is
// rho * bytesPerSecond / d.Mean() jobs per second.
func NewMG1(d *Dist, bytesPerSecond, load float64) (*MG1, error) {
	if d == nil {
		return nil, errors.New("queueing: nil distribution")
	}
	if !(load >= 0 && load < 1) {
		return nil, fmt.Errorf("queueing: load %g: want 0 <= load < 1", load)
	}
	return newMG1(d, bytesPerSecond, load/d.Mean())
}

// NewMG1Arrivals returns the queue with sizes d, service rate
// bytesPerSecond and Poisson arrivals at jobsPerSecond. Use it to match a
// simulation whose arrival rate came from a different mean (dcsim's
// generator uses the CDF header's linear mean, while the Integer
// distribution's mean is up to 1 B smaller).
func NewMG1Arrivals(d *Dist, bytesPerSecond, jobsPerSecond float64) (*MG1, error) {
	if d == nil {
		return nil, errors.New("queueing: nil distribution")
	}
	if !(bytesPerSecond > 0) || math.IsInf(bytesPerSecond, 1) {
		return nil, fmt.Errorf("queueing: service rate %g B/s: want a positive finite rate", bytesPerSecond)
	}
	if !(jobsPerSecond >= 0) || math.IsInf(jobsPerSecond, 1) {
		return nil, fmt.Errorf("queueing: arrival rate %g jobs/s: want a finite rate >= 0", jobsPerSecond)
	}
	return newMG1(d, bytesPerSecond, jobsPerSecond/bytesPerSecond)
}

func newMG1(d *Dist, rate, lambda float64) (*MG1, error) {
	if !(rate > 0) || math.IsInf(rate, 1) {
		return nil, fmt.Errorf("queueing: service rate %g B/s: want a positive finite rate", rate)
	}
	load := lambda * d.Mean()
	if !(load < 1) {
		return nil, fmt.Errorf("queueing: load %g: the queue is unstable (want load < 1)", load)
	}
	// The SRPT and LAS slowdown integrands reach density(x) times at most
	// rho/(2(1-rho)^2) + 1/(1-rho) (E[min(X,x)^2] <= x E[min(X,x)] and
	// rho(x) <= rho): a piece so narrow and a load so close to 1 that this
	// product overflows float64 (with the quadrature's sum of 15 terms)
	// cannot be integrated, so such a queue is refused up front.
	if b := d.maxDensity() * (load/(2*(1-load)*(1-load)) + 1/(1-load)); !(b <= math.MaxFloat64/1024) {
		return nil, fmt.Errorf("queueing: load %g: a size density of %g per byte at this load overflows float64", load, d.maxDensity())
	}
	// The quadrature places its nodes inside each continuous piece; in a
	// piece only a few float64 sizes wide they round to a handful of
	// values, and an integrand as steep as 1/(1-rho(x))^2 near rho = 1 is
	// then summed at the wrong points (SRPT's mean came out above PS's).
	// Such a piece (its sizes differ in the last 20 bits of the
	// mantissa: far below a byte for any size a CDF file holds) is refused.
	for i := range d.pieces {
		if p := &d.pieces[i]; p.continuous() && p.hi-p.lo < minPieceUlps*(math.Nextafter(p.hi, math.Inf(1))-p.hi) {
			return nil, fmt.Errorf("queueing: the piece [%g, %g] B is too narrow to integrate over (fewer than 2^20 float64 sizes): make it a point mass", p.lo, p.hi)
		}
	}
	// 1 - rho(t) carries an absolute rounding error of about eps, so the
	// integrands are only known to a relative eps/(1-rho): near rho = 1
	// the tolerance follows (64 eps/(1-rho) exceeds 1e-11 above 0.9986).
	relTol := math.Max(quadRelTol, 64*0x1p-52/(1-load))
	q := &MG1{dist: d, rate: rate, lambda: lambda, load: load, relTol: relTol}
	if err := q.buildResidence(); err != nil {
		return nil, err
	}
	return q, nil
}

// minPieceUlps is the fewest float64 values a continuous piece may span
// for the queue's integrals (newMG1).
const minPieceUlps = 1 << 20

// Load returns rho = lambda E[X] / rate.
func (q *MG1) Load() float64 { return q.load }

// ArrivalRate returns lambda in jobs per second.
func (q *MG1) ArrivalRate() float64 { return q.lambda * q.rate }

// Rate returns the service rate in bytes per second.
func (q *MG1) Rate() float64 { return q.rate }

// Dist returns the size distribution.
func (q *MG1) Dist() *Dist { return q.dist }

// Means holds the means over the size distribution.
type Means struct {
	Response float64 // E[T], seconds
	Slowdown float64 // E[T(X)/X], dimensionless (T(X) and X both as times)
}

// Response returns E[T(x)] in seconds for a job of size bytes under p.
// The size need not lie in the distribution's support.
func (q *MG1) Response(p Policy, size float64) (float64, error) {
	if !(size >= 0) || math.IsInf(size, 1) {
		return 0, fmt.Errorf("queueing: size %g: want a finite size >= 0 bytes", size)
	}
	var t float64
	switch p {
	case PS:
		t = size / (1 - q.load)
	case FCFS:
		t = size + q.fcfsWait()
	case SRPT:
		lt, le := q.dist.state(size, false), q.dist.state(size, true)
		r, err := q.residence(size)
		if err != nil {
			return 0, err
		}
		t = q.srptWait(size, lt, le) + r
	case LAS:
		t = q.las(size, q.dist.state(size, true))
	default:
		return 0, fmt.Errorf("queueing: unknown policy %d", int(p))
	}
	return t / q.rate, nil
}

// Means returns E[T] and E[T(X)/X] under p.
func (q *MG1) Means(p Policy) (Means, error) {
	var resp, slow float64
	var err error
	switch p {
	case PS:
		resp, slow = q.dist.Mean()/(1-q.load), 1/(1-q.load)
	case FCFS:
		w := q.fcfsWait()
		resp, slow = q.dist.Mean()+w, 1
		if w > 0 { // an empty queue (load 0) waits 0 even where E[1/X] is +Inf
			slow += w * q.dist.MeanInverse()
		}
	case SRPT:
		resp, slow, err = q.srptMeans()
	case LAS:
		resp, slow, err = q.lasMeans()
	default:
		return Means{}, fmt.Errorf("queueing: unknown policy %d", int(p))
	}
	if err != nil {
		return Means{}, fmt.Errorf("queueing: %v means at load %g: %w", p, q.load, err)
	}
	return Means{Response: resp / q.rate, Slowdown: slow}, nil
}

// fcfsWait is the Pollaczek-Khinchine mean wait lambda E[X^2]/(2(1-rho)).
func (q *MG1) fcfsWait() float64 {
	return q.lambda * q.dist.SecondMoment() / (2 * (1 - q.load))
}

// truncM2 returns E[min(X, x)^2] from the inclusive state at x.
func truncM2(x float64, le cumState) float64 {
	return le.m2 + x*x*math.Max(0, 1-le.mass)
}

// srptWait is the SRPT waiting term
// lambda E[min(X,x)^2] / (2 (1-rho(x-)) (1-rho(x))), with rho(x-) counting
// sizes < x and rho(x) sizes <= x. With first-come tie-breaking an earlier
// job of size x is served first while a later one cannot preempt, as in a
// preemptive priority queue; for a continuous distribution both loads are
// equal and this is the Schrage-Miller formula of docs/model.md §11.1.
func (q *MG1) srptWait(x float64, lt, le cumState) float64 {
	return q.lambda * truncM2(x, le) / (2 * (1 - q.lambda*lt.m1) * (1 - q.lambda*le.m1))
}

// las is E[T(x)] under LAS in bytes of service time:
// lambda E[min(X,x)^2]/(2(1-rho_x)^2) + x/(1-rho_x), rho_x = lambda E[min(X,x)].
func (q *MG1) las(x float64, le cumState) float64 {
	rx := q.lambda * (le.m1 + x*math.Max(0, 1-le.mass))
	return q.lambda*truncM2(x, le)/(2*(1-rx)*(1-rx)) + x/(1-rx)
}

// rhoInv returns 1/(1 - lambda*m1).
func (q *MG1) rhoInv(m1 float64) float64 { return 1 / (1 - q.lambda*m1) }

// buildResidence fills resLo and resHi: R(x) = int_0^x dt/(1-rho(t)),
// where rho(t) = lambda E[X; X <= t] is constant across gaps between
// pieces and smooth inside a continuous piece.
func (q *MG1) buildResidence() error {
	d := q.dist
	n := len(d.pieces)
	q.resLo, q.resHi = make([]float64, n), make([]float64, n)
	r, cursor := 0.0, 0.0
	for i := range d.pieces {
		p := &d.pieces[i]
		if p.lo > cursor {
			r += (p.lo - cursor) * q.rhoInv(d.cumM1[i])
			cursor = p.lo
		}
		q.resLo[i] = r
		if p.continuous() {
			v, err := q.pieceResidence(i, p.hi)
			if err != nil {
				return fmt.Errorf("queueing: SRPT residence: %w", err)
			}
			r += v
			cursor = p.hi
		}
		q.resHi[i] = r
	}
	return nil
}

// pieceResidence integrates dt/(1-rho(t)) over [lo, x] inside piece i.
func (q *MG1) pieceResidence(i int, x float64) (float64, error) {
	p, base := &q.dist.pieces[i], q.dist.cumM1[i]
	return integrate(func(t float64) float64 {
		_, m1, _ := p.partial(t)
		return q.rhoInv(base + m1)
	}, p.lo, x, 0, q.relTol)
}

// residence returns R(x) in bytes of service time.
func (q *MG1) residence(x float64) (float64, error) {
	d := q.dist
	j := d.count(x, true)
	if j == 0 {
		return x, nil // no mass at or below x: rho(t) = 0
	}
	p := &d.pieces[j-1]
	if p.continuous() && x < p.hi {
		v, err := q.pieceResidence(j-1, x)
		return q.resLo[j-1] + v, err
	}
	return q.resHi[j-1] + (x-p.hi)*q.rhoInv(d.cumM1[j]), nil
}

// srptMeans returns E[T] (bytes of service time) and E[T(X)/X] under
// SRPT. The residence part is integrated once over t by exchanging the
// order of integration:
//
//	E[R(X)]   = int_0^inf P(X > t)    dt/(1-rho(t))
//	E[R(X)/X] = int_0^inf E[1/X; X>t] dt/(1-rho(t))
func (q *MG1) srptMeans() (resp, slow float64, err error) {
	d := q.dist
	n := len(d.pieces)
	// Every part is positive, so per-part relative accuracy gives the same
	// accuracy for the sum; the absolute floors only stop parts that are a
	// negligible share of a total that is at least E[X] (resp) or 1 (slow).
	tolResp, tolSlow := q.relTol*d.Mean()/float64(n), q.relTol/float64(n)
	cursor := 0.0
	for i := range d.pieces {
		p := &d.pieces[i]
		if p.lo > cursor { // gap: rho, P(X > t) and E[1/X; X > t] constant
			g := (p.lo - cursor) * q.rhoInv(d.cumM1[i])
			resp += g * (1 - d.cumMass[i])
			slow += g * d.sufInv[i]
		}
		cursor = math.Max(cursor, p.hi)
		if p.kind == atomPiece {
			lt := cumState{d.cumMass[i], d.cumM1[i], d.cumM2[i]}
			le := cumState{d.cumMass[i+1], d.cumM1[i+1], d.cumM2[i+1]}
			w := q.srptWait(p.lo, lt, le)
			resp += p.mass * w
			slow += p.mass * w / p.lo
			continue
		}
		at := func(x float64) cumState {
			m, m1, m2 := p.partial(x)
			return cumState{d.cumMass[i] + m, d.cumM1[i] + m1, d.cumM2[i] + m2}
		}
		parts := []struct {
			f   func(float64) float64
			tol float64
			dst *float64
		}{
			{func(x float64) float64 { s := at(x); return q.srptWait(x, s, s) * p.density(x) }, tolResp, &resp},
			{func(x float64) float64 { s := at(x); return q.srptWait(x, s, s) * p.density(x) / x }, tolSlow, &slow},
			{func(t float64) float64 { s := at(t); return (1 - s.mass) * q.rhoInv(s.m1) }, tolResp, &resp},
			{func(t float64) float64 {
				return (d.sufInv[i+1] + p.invFrom(t)) * q.rhoInv(at(t).m1)
			}, tolSlow, &slow},
		}
		for k, part := range parts {
			v, err := integrate(part.f, p.lo, p.hi, part.tol, q.relTol)
			if err != nil {
				return 0, 0, fmt.Errorf("piece %d [%g, %g] B, part %d: %w", i, p.lo, p.hi, k, err)
			}
			*part.dst += v
		}
	}
	return resp, slow, nil
}

// lasMeans returns E[T] (bytes of service time) and E[T(X)/X] under LAS.
func (q *MG1) lasMeans() (resp, slow float64, err error) {
	d := q.dist
	n := len(d.pieces)
	tolResp, tolSlow := q.relTol*d.Mean()/float64(n), q.relTol/float64(n)
	for i := range d.pieces {
		p := &d.pieces[i]
		if p.kind == atomPiece {
			t := q.las(p.lo, cumState{d.cumMass[i+1], d.cumM1[i+1], d.cumM2[i+1]})
			resp += p.mass * t
			slow += p.mass * t / p.lo
			continue
		}
		tx := func(x float64) float64 {
			m, m1, m2 := p.partial(x)
			return q.las(x, cumState{d.cumMass[i] + m, d.cumM1[i] + m1, d.cumM2[i] + m2}) * p.density(x)
		}
		v, err := integrate(tx, p.lo, p.hi, tolResp, q.relTol)
		if err != nil {
			return 0, 0, fmt.Errorf("piece %d [%g, %g] B: %w", i, p.lo, p.hi, err)
		}
		resp += v
		v, err = integrate(func(x float64) float64 { return tx(x) / x }, p.lo, p.hi, tolSlow, q.relTol)
		if err != nil {
			return 0, 0, fmt.Errorf("piece %d [%g, %g] B: %w", i, p.lo, p.hi, err)
		}
		slow += v
	}
	return resp, slow, nil
}
