package fabric

// switchDraws is where a network's switches take their random draws:
// RED's marking decisions, and whatever else the source counts. Build
// picks one for the network: the seed's "ecn" stream (streamDraws), or,
// under compat: hpcc-ns3, the reference's generator (Config.NS3Rand),
// which takes a stream for every packet in RED's range and every PFC
// frame. The default's pass and pfcFrame do nothing, so the switch path
// reads the same under both and tests no profile.
type switchDraws interface {
	// red is a uniform draw in [0, 1) for a packet RED judges.
	red() float64
	// redPass is told of a packet dequeued with its class queue in
	// RED's marking range (above kmin, at most kmax) that RED does not
	// judge: not data, or not ECN-capable.
	redPass()
	// pfcFrame is told of every PFC frame a switch sends.
	pfcFrame()
}

// streamDraws draws RED's decisions from a seeded stream and counts
// nothing else.
type streamDraws func() float64

func (f streamDraws) red() float64 { return f() }
func (streamDraws) redPass()       {}
func (streamDraws) pfcFrame()      {}
