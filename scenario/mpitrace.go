package scenario

import "github.com/dcsim/dcsim/engine"

// MPITrace is the workload kind of the reconstructed MPI traces of the
// ARN+AFI paper (docs/model.md §10.2, "Traces"): PTRANS and Inception-v3.
const MPITrace = "mpitrace"

// MPITraceParams are the fields of an mpitrace workload (workloads/mpitrace,
// whose doc.go argues every default): app ptrans or inception-v3, rank r
// on the r-th of workload.hosts, from start.
type MPITraceParams struct {
	App        string   `yaml:"app"`
	Iterations int      `yaml:"iterations"`
	Start      Duration `yaml:"start"`
	// PTRANS: a p x q process grid, an n x n matrix of doubles in nb x nb
	// blocks; the local update after each transpose streams 24 B per
	// local element at memory_rate.
	P          int  `yaml:"p"`
	Q          int  `yaml:"q"`
	N          int  `yaml:"n"`
	NB         int  `yaml:"nb"`
	MemoryRate Rate `yaml:"memory_rate"`
	// Inception-v3: ranks GPUs, params fp32 gradients allreduced in
	// buckets of bucket bytes, a step of step_time of which
	// forward_fraction is the forward pass.
	Ranks           int      `yaml:"ranks"`
	Params          int64    `yaml:"params"`
	Bucket          Size     `yaml:"bucket"`
	StepTime        Duration `yaml:"step_time"`
	ForwardFraction float64  `yaml:"forward_fraction"`
}

// MPITrace apps.
const (
	AppPTRANS    = "ptrans"
	AppInception = "inception-v3"
)

func defaultMPITrace() *MPITraceParams {
	return &MPITraceParams{App: AppPTRANS, Iterations: 5, P: 4, Q: 4, N: 4608, NB: 128, MemoryRate: Rate(800 * engine.Gbps),
		Ranks: 16, Params: 23_851_784, Bucket: 25 << 20, StepTime: Duration(451 * engine.Millisecond), ForwardFraction: 1.0 / 3}
}

// Bounds on the work an mpitrace workload causes before its first event,
// so that no value can ask for a runaway loop or allocation: the program
// is built whole (PTRANS visits every block pair once; Inception-v3 holds
// one phase per ring step and bucket) and the executor keeps a counter per
// rank, iteration and phase. The defaults are far inside them (PTRANS:
// 36 x 36 blocks, 16 ranks, 5 iterations; Inception-v3: 16 ranks x 120
// phases).
const (
	mpitraceMaxRanks  = 1 << 12 // the n x n byte matrix of PTRANS: 128 MiB
	mpitraceMaxOrder  = 1 << 20 // matrix order: no block or total overflows int64
	mpitraceMaxBlocks = 1 << 24 // (n/nb)^2 block visits
	mpitraceMaxPhases = 1 << 22 // phases of all ranks, one iteration
	mpitraceMaxCounts = 1 << 26 // ranks x phases x iterations receive counters
	mpitraceMaxParams = 1 << 40 // gradients: params x 4 B stays exact
)

func (p *MPITraceParams) validate(at WorkloadCheck) *FieldError {
	prefix := at.Prefix + "mpitrace."
	if fe := atLeast(prefix+"iterations", p.Iterations, 1); fe != nil {
		return fe
	}
	if fe := nonNegativeTime(prefix+"start", p.Start, false); fe != nil {
		return fe
	}
	var ranks int
	switch p.App {
	case AppPTRANS:
		for _, f := range []struct {
			name string
			v    int
		}{{"p", p.P}, {"q", p.Q}, {"nb", p.NB}} {
			if fe := atLeast(prefix+f.name, f.v, 1); fe != nil {
				return fe
			}
		}
		switch {
		case p.P == 1 && p.Q == 1: // not p.P*p.Q < 2: the product of two huge sides wraps
			return fieldErr(prefix+"p", "a %d x %d grid has fewer than 2 processes", p.P, p.Q)
		case p.N < p.NB:
			return fieldErr(prefix+"n", "%d is below nb (%d)", p.N, p.NB)
		case p.MemoryRate <= 0:
			return fieldErr(prefix+"memory_rate", "must be positive, got %v", p.MemoryRate)
		}
		ranks = p.P * p.Q
	case AppInception:
		switch {
		case p.Ranks < 2:
			return fieldErr(prefix+"ranks", "must be at least 2, got %d", p.Ranks)
		case p.Params < 1:
			return fieldErr(prefix+"params", "must be at least 1, got %d", p.Params)
		case p.Bucket < 1:
			return fieldErr(prefix+"bucket", "must be at least 1 B, got %d", int64(p.Bucket))
		case !(p.ForwardFraction >= 0 && p.ForwardFraction <= 1):
			return fieldErr(prefix+"forward_fraction", "%v is not in [0, 1]", p.ForwardFraction)
		}
		if fe := nonNegativeTime(prefix+"step_time", p.StepTime, false); fe != nil {
			return fe
		}
		ranks = p.Ranks
	default:
		return fieldErr(prefix+"app", "%q is not one of %s, %s", p.App, AppPTRANS, AppInception)
	}
	if fe := p.bounded(prefix); fe != nil {
		return fe
	}
	if at.Known && ranks > len(at.Hosts) {
		return fieldErr(prefix+"app", "%s needs %d ranks, workload.hosts has %d hosts", p.App, ranks, len(at.Hosts))
	}
	return nil
}

// bounded checks the mpitrace bounds above, once validate's lower bounds
// and the app name hold.
func (p *MPITraceParams) bounded(prefix string) *FieldError {
	var ranks, phases int64
	if p.App == AppPTRANS {
		// Each side first: a product of two huge sides can wrap into range.
		if p.P > mpitraceMaxRanks || p.Q > mpitraceMaxRanks || p.P*p.Q > mpitraceMaxRanks {
			return fieldErr(prefix+"p", "a %d x %d grid has more than %d processes", p.P, p.Q, mpitraceMaxRanks)
		}
		if p.N > mpitraceMaxOrder {
			return fieldErr(prefix+"n", "%d is above the limit of %d", p.N, mpitraceMaxOrder)
		}
		if b := int64((p.N + p.NB - 1) / p.NB); b*b > mpitraceMaxBlocks {
			return fieldErr(prefix+"nb", "%d x %d blocks (n %d / nb %d) are more than the limit of %d", b, b, p.N, p.NB, mpitraceMaxBlocks)
		}
		ranks, phases = int64(p.P*p.Q), 1
	} else {
		if p.Ranks > mpitraceMaxRanks {
			return fieldErr(prefix+"ranks", "%d is above the limit of %d", p.Ranks, mpitraceMaxRanks)
		}
		if p.Params > mpitraceMaxParams {
			return fieldErr(prefix+"params", "%d is above the limit of %d", p.Params, int64(mpitraceMaxParams))
		}
		buckets := (p.Params*4 + int64(p.Bucket) - 1) / int64(p.Bucket)
		ranks = int64(p.Ranks)
		per := mpitraceMaxPhases / (ranks * 2 * (ranks - 1))
		if per == 0 {
			return fieldErr(prefix+"ranks", "%d ranks make %d ring steps per bucket, more than the limit of %d",
				p.Ranks, ranks*2*(ranks-1), mpitraceMaxPhases)
		}
		if buckets > per {
			return fieldErr(prefix+"bucket", "%d buckets of %d ranks make more than %d ring steps (at most %d buckets)",
				buckets, p.Ranks, mpitraceMaxPhases, per)
		}
		phases = buckets * 2 * (ranks - 1)
	}
	if int64(p.Iterations) > mpitraceMaxCounts/(ranks*phases) {
		return fieldErr(prefix+"iterations", "%d iterations of %d ranks x %d phases are more than the limit of %d",
			p.Iterations, ranks, phases, mpitraceMaxCounts)
	}
	return nil
}
