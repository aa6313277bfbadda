package storm_test

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/schedtest"
	"github.com/dcsim/dcsim/sched/storm"
)

// A sender with a per-pair QP posts three 200 KB transactions to one
// receiver. Each is larger than 1 BDP (52 KB on this star), so after its
// first BDP the receiver grants the rest. The first and the last go at
// P_low (nothing queued behind them when they became the head of line),
// the second at P_backlog; each class change waits for the previous
// class's packets to be acknowledged (two guard stalls). The first
// transaction's first packet told the receiver "nothing queued behind";
// the posts that follow at the same instant send it one backlog update
// (60 B of control ahead of the data: 4.8 ns at 100 Gbps).
func Example() {
	p := storm.DefaultParams() // the full scheduler, "storm"
	r := schedtest.NewRig(nil, schedtest.Config{Hosts: 2, Mapping: rnic.Mapping{Pool: 1}},
		storm.New(p, storm.Env{}))
	for id := int64(1); id <= 3; id++ {
		r.PostAt(0, 0, 1, 200_000, id)
	}
	r.Run(engine.Second)
	for _, m := range r.Done {
		fmt.Printf("transaction %d: class %d, fct %.3f us\n", m.TxnID, m.FirstClass, float64(m.FCT())/float64(engine.Microsecond))
	}
	c := storm.Counters(r.Cluster.Hosts)
	fmt.Println("grants:", c["storm.grants_sent"], "guard stalls:", c["storm.guard_stalls"])
	// Output:
	// transaction 1: class 3, fct 20.866 us
	// transaction 2: class 2, fct 41.728 us
	// transaction 3: class 3, fct 62.589 us
	// grants: 3 guard stalls: 2
}
