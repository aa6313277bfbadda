package fabric

// NS3Rand is the reference model's source of ECN draws, for scenario
// compat: hpcc-ns3. ns-3 draws every marking decision from a fresh
// UniformVariable(0, 1) (switch-mmu.cc SwitchMmu::ShouldSendCN), and each
// new random variable takes the next stream of ns-3.17's MRG32k3a generator
// (random-variable.cc RandomVariableBase::GetStream,
// RngSeedManager::GetNextStreamIndex; rng-stream.cc RngStream). So the
// k-th variable created in the run yields the first output of stream k at
// substream RngRun: the generator seeded with RngSeed in all six state
// words, advanced by k*2^127 and RngRun*2^76 steps. Streams are also taken
// by the variables the scenario creates while it is set up and by each PFC
// frame's IP identification (qbb-net-device.cc SendPfc); Skip accounts for
// those. The arithmetic is the reference's own, in float64 (exact on these
// integers), so the draws are bit-identical.
type NS3Rand struct {
	state    [6]float64 // stream Next will draw from, before the substream advance
	sub1     mat3       // A1^(RngRun*2^76) mod m1
	sub2     mat3       // A2^(RngRun*2^76) mod m2
	stream1  mat3       // A1^(2^127): the next stream
	stream2  mat3
	Streams  uint64 // streams taken so far
	runIndex uint64
}

type mat3 [3][3]float64

const (
	rngM1    = 4294967087.0
	rngM2    = 4294944443.0
	rngNorm  = 1.0 / (rngM1 + 1.0)
	rngA12   = 1403580.0
	rngA13n  = 810728.0
	rngA21   = 527612.0
	rngA23n  = 1370589.0
	rngTwo17 = 131072.0
	rngTwo53 = 9007199254740992.0
)

var (
	rngA1p0 = mat3{{0, 1, 0}, {0, 0, 1}, {-810728.0, 1403580.0, 0}}
	rngA2p0 = mat3{{0, 1, 0}, {0, 0, 1}, {-1370589.0, 0, 527612.0}}
)

// multModM is (a*s + c) mod m as rng-stream.cc MultModM computes it.
func multModM(a, s, c, m float64) float64 {
	v := a*s + c
	if v >= rngTwo53 || v <= -rngTwo53 {
		a1 := float64(int32(a / rngTwo17))
		a -= a1 * rngTwo17
		v = a1 * s
		a1 = float64(int32(v / m))
		v -= a1 * m
		v = v*rngTwo17 + a*s + c
	}
	a1 := float64(int32(v / m))
	if v -= a1 * m; v < 0 {
		return v + m
	}
	return v
}

// matVec is rng-stream.cc MatVecModM: A*s mod m.
func matVec(a *mat3, s []float64, m float64) {
	var x [3]float64
	for i := range x {
		x[i] = multModM(a[i][0], s[0], 0, m)
		x[i] = multModM(a[i][1], s[1], x[i], m)
		x[i] = multModM(a[i][2], s[2], x[i], m)
	}
	copy(s, x[:])
}

// matMat is rng-stream.cc MatMatModM: A*B mod m.
func matMat(a, b *mat3, m float64) mat3 {
	var w mat3
	for i := 0; i < 3; i++ {
		v := []float64{b[0][i], b[1][i], b[2][i]}
		matVec(a, v, m)
		for j := 0; j < 3; j++ {
			w[j][i] = v[j]
		}
	}
	return w
}

// twoPow is A^(2^e) mod m (rng-stream.cc MatTwoPowModM).
func twoPow(a mat3, m float64, e int) mat3 {
	for i := 0; i < e; i++ {
		a = matMat(&a, &a, m)
	}
	return a
}

// NewNS3Rand is the generator of a run with RngSeed seed and RngRun run
// (ns-3's defaults are 1 and 1), before any stream is taken.
func NewNS3Rand(seed uint32, run uint64) *NS3Rand {
	r := &NS3Rand{runIndex: run}
	for i := range r.state {
		r.state[i] = float64(seed)
	}
	r.stream1, r.stream2 = twoPow(rngA1p0, rngM1, 127), twoPow(rngA2p0, rngM2, 127)
	// RngStream::AdvanceNthBy(run, 76): one power of two per set bit, from
	// the top bit down; powers of one matrix commute, so this is the same
	// as advancing each new stream's state by it.
	id := mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	r.sub1, r.sub2 = id, id
	for b := 63; b >= 0; b-- {
		if run>>uint(b)&1 != 0 {
			p1, p2 := twoPow(rngA1p0, rngM1, 76+b), twoPow(rngA2p0, rngM2, 76+b)
			r.sub1, r.sub2 = matMat(&p1, &r.sub1, rngM1), matMat(&p2, &r.sub2, rngM2)
		}
	}
	return r
}

// Skip takes n streams without drawing from them.
func (r *NS3Rand) Skip(n uint64) {
	for ; n > 0; n-- {
		r.next()
	}
}

func (r *NS3Rand) next() {
	matVec(&r.stream1, r.state[:3], rngM1)
	matVec(&r.stream2, r.state[3:], rngM2)
	r.Streams++
}

// Float64 takes the next stream and returns its first RandU01 output.
func (r *NS3Rand) Float64() float64 {
	var s [6]float64
	s = r.state
	matVec(&r.sub1, s[:3], rngM1)
	matVec(&r.sub2, s[3:], rngM2)
	r.next()
	return randU01(&s)
}

// randU01 is rng-stream.cc RngStream::RandU01.
func randU01(s *[6]float64) float64 {
	p1 := rngA12*s[1] - rngA13n*s[0]
	k := float64(int32(p1 / rngM1))
	if p1 -= k * rngM1; p1 < 0 {
		p1 += rngM1
	}
	s[0], s[1], s[2] = s[1], s[2], p1
	p2 := rngA21*s[5] - rngA23n*s[3]
	k = float64(int32(p2 / rngM2))
	if p2 -= k * rngM2; p2 < 0 {
		p2 += rngM2
	}
	s[3], s[4], s[5] = s[4], s[5], p2
	if p1 > p2 {
		return (p1 - p2) * rngNorm
	}
	return (p1 - p2 + rngM1) * rngNorm
}

// NS3Rand is a switchDraws: each RED decision takes a stream, and so do
// each packet ns-3 draws for without dcsim judging it (ShouldSendCN runs
// for every packet of a data class) and each PFC frame (QbbNetDevice::
// SendPfc's UniformVariable for the IP id).
func (r *NS3Rand) red() float64 { return r.Float64() }
func (r *NS3Rand) redPass()     { r.Skip(1) }
func (r *NS3Rand) pfcFrame()    { r.Skip(1) }
