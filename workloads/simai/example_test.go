package simai_test

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/workloads/simai"
)

// Run SimAI's microAllReduce example (two TP-8 all-reduces of 16 MiB and
// 64 MiB) on 8 hosts over an ideal 100 Gbps network with 2us of latency
// per transfer. A scenario drives the same Run over the simulated network
// instead: it posts every Post action as an RDMA message and calls Done
// when the message completes, and schedules every Wake action.
func Example() {
	w, err := simai.Shipped("microAllReduce.txt")
	if err != nil {
		panic(err)
	}
	r, err := simai.NewRun(w, simai.DefaultRunConfig()) // 8 GPUs from all_gpus, one per host
	if err != nil {
		panic(err)
	}
	if _, err := simai.RunIdeal(r, simai.LinkTime(100*engine.Gbps, 2*engine.Microsecond)); err != nil {
		panic(err)
	}
	ms := func(t engine.Time) string { return fmt.Sprintf("%.3fms", t.Seconds()*1e3) }
	it := r.Iterations()[0]
	fmt.Printf("iteration %s: compute %s, exposed communication %s\n", ms(it.Duration), ms(it.Compute), ms(it.ExposedComm))
	for _, c := range r.Collectives() {
		fmt.Printf("%s %s on %s: %s in %s\n", c.Name, c.Op, c.Group, engine.FormatSize(c.Bytes), ms(c.End-c.Issued))
	}
	// Output:
	// iteration 13.080ms: compute 1.112ms, exposed communication 11.968ms
	// embedding_layer.fwd allreduce on tp0: 16MiB in 2.461ms
	// embedding_layer.fwd allreduce on tp0: 64MiB in 9.507ms
}

// Bus bandwidth of a 64 MiB ring all-reduce over 16 hosts on the same
// ideal network, as NCCL's tests report it.
func ExampleBusBandwidth() {
	w, _ := simai.Microbench("allreduce", 64*engine.MiB, 16)
	r, _ := simai.NewRun(w, simai.DefaultRunConfig())
	d, _ := simai.RunIdeal(r, simai.LinkTime(100*engine.Gbps, 2*engine.Microsecond))
	fmt.Printf("%.3fms, bus bandwidth %.1f Gbps\n", d.Seconds()*1e3, simai.BusBandwidth(simai.OpAllReduce, 64*engine.MiB, 16, d))
	// Output:
	// 10.306ms, bus bandwidth 97.7 Gbps
}
