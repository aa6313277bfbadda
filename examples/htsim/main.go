// Command htsim writes the inputs of the htsim side-by-side (docs/performance.md,
// "Side by side with htsim") and reads dcsim's result back:
//
//	go run ./examples/htsim gen DIR [N]    # DIR/permN.cm (htsim) and DIR/permN.csv (dcsim flow list), N = 128 by default
//	go run ./examples/htsim delivered RUN  # data packets delivered in order, from RUN/run.parquet
//
// The workload is BenchmarkDeepQueues's: each of the 128 hosts of a k = 8
// fat-tree sends one 125 MB flow at time 0 to another, by a fixed random
// derangement (math/rand/v2 PCG seeded 1, 0; the same as cmd/dcsim's
// permutation helper). perm128.cm is htsim's connection-matrix format
// (sim/datacenter/connection_matrix.cpp ConnectionMatrix::load: "Nodes N",
// "Connections C", then "src->dst id I start 0 size BYTES" per flow).
// examples/htsim/run.sh runs both simulators on them.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/analysis"
)

const (
	flowBytes = 125_000_000
	mtu       = 1000 // payload bytes per data packet in both simulators' runs
)

func main() {
	gen4 := len(os.Args) == 4 && os.Args[1] == "gen"
	if !gen4 && (len(os.Args) != 3 || (os.Args[1] != "gen" && os.Args[1] != "delivered")) {
		fmt.Fprintln(os.Stderr, "usage: htsim gen DIR [HOSTS] | htsim delivered RUNDIR")
		os.Exit(2)
	}
	var err error
	if os.Args[1] == "gen" {
		n := 128
		if gen4 {
			if n, err = strconv.Atoi(os.Args[3]); err != nil || n < 2 || n > 1<<20 {
				fmt.Fprintf(os.Stderr, "htsim: HOSTS %q: want an integer in [2, 2^20]\n", os.Args[3])
				os.Exit(2)
			}
		}
		err = gen(os.Args[2], n)
	} else {
		err = delivered(os.Args[2])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "htsim:", err)
		os.Exit(1)
	}
}

// derangement is a random permutation of 0..n-1 with no fixed point: the
// first of rng's permutations that has none.
func derangement(n int) []int {
	rng := rand.New(rand.NewPCG(1, 0))
	for {
		perm := rng.Perm(n)
		ok := true
		for i, p := range perm {
			ok = ok && i != p
		}
		if ok {
			return perm
		}
	}
}

func gen(dir string, hosts int) error {
	perm := derangement(hosts)
	var cm, csv strings.Builder
	fmt.Fprintf(&cm, "Nodes %d\nConnections %d\n", hosts, hosts)
	csv.WriteString("src,dst,size_bytes,start_ns\n")
	for i, p := range perm {
		fmt.Fprintf(&cm, "%d->%d id %d start 0 size %d\n", i, p, i+1, flowBytes)
		fmt.Fprintf(&csv, "%d,%d,%d,0\n", i, p, flowBytes)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := filepath.Join(dir, fmt.Sprintf("perm%d", hosts))
	if err := os.WriteFile(name+".cm", []byte(cm.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(name+".csv", []byte(csv.String()), 0o644)
}

// delivered prints the run's in-order payload in data packets of mtu
// bytes: what htsim's sinks acknowledge cumulatively.
func delivered(dir string) error {
	r, _, err := analysis.ReadRun(filepath.Join(dir, "run.parquet"))
	if err != nil {
		return err
	}
	fmt.Println(r.Counters["payload_in_order"]/mtu, r.Counters["data_packets"], r.SimTimeNs)
	return nil
}
