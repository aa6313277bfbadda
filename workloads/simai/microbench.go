package simai

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
)

// Microbench returns a one-line workload that runs one collective of bytes
// over n GPUs and nothing else: TP 1, all_gpus n, no compute, no update
// delay, the collective in the weight-gradient column (so it spans the
// data-parallel group of all n GPUs and is not subject to the forward
// minimum of 4096 B). Its iteration time is the collective's time, from
// the first rank issuing it (send latency included) to the last flow
// delivered. op is parsed by ParseOp ("allreduce", "reduce-scatter",
// "all-gather", "all-to-all", ...).
func Microbench(op string, bytes int64, n int) (*Workload, error) {
	o, err := ParseOp(op)
	if err != nil {
		return nil, fmt.Errorf("op: %w", err)
	}
	if o == OpNone {
		return nil, fmt.Errorf("op: a micro-benchmark needs a collective")
	}
	if bytes < 1 {
		return nil, fmt.Errorf("bytes: must be >= 1, got %d", bytes)
	}
	if n < 2 {
		return nil, fmt.Errorf("gpus: a collective needs >= 2 GPUs, got %d", n)
	}
	name := fmt.Sprintf("micro-%s-%s-%d", o, engine.FormatSize(bytes), n)
	return &Workload{
		Name: name, Policy: PolicyTransformer, TP: 1, EP: 1, PP: 1, VPP: 1, GA: 1, AllGPUs: n, FullHeader: true,
		Lines: []Line{{Name: "micro_" + o.String(), Dep: -1, WG: Stage{Comm: Comm{Op: o, Group: GroupDP, Bytes: bytes}}}},
	}, nil
}

// AlgBandwidth is NCCL's algorithm bandwidth in Gbps (10^9 bit/s): bytes
// moved by the collective (S) over its duration.
func AlgBandwidth(bytes int64, d engine.Time) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) * 8 / d.Seconds() / 1e9
}

// BusBandwidth is NCCL's bus bandwidth in Gbps: the algorithm bandwidth
// times 2(n-1)/n for all-reduce and (n-1)/n for reduce-scatter, all-gather
// and all-to-all. It is comparable to the link rate: a ring all-reduce
// that keeps every link busy reaches the link rate.
func BusBandwidth(op Op, bytes int64, n int, d engine.Time) float64 {
	if n < 1 {
		return 0
	}
	alg := AlgBandwidth(bytes, d)
	switch op {
	case OpAllReduce, OpAllReduceAllToAll:
		return alg * 2 * float64(n-1) / float64(n)
	case OpAllGather, OpReduceScatter, OpAllToAll:
		return alg * float64(n-1) / float64(n)
	}
	return 0
}
