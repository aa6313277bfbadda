package wiring

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/analysis"
)

// The built-in halo scenario and its variants (docs/model.md §11.2's
// write-then-FAA row): zero violations in order, with ooo-ordered and with
// the implicit fence under spraying; violations with ooo-eager under
// spraying. Every particle sent is received, 3 operations per 64.
func TestHaloOrdering(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sets      []string
		violating bool
	}{
		{"inorder", nil, false},
		{"spray ooo-ordered", []string{"switch.routing.kind=spray", "nic.receiver=ooo-ordered"}, false},
		{"spray ooo-eager", []string{"switch.routing.kind=spray", "nic.receiver=ooo-eager"}, true},
		{"spray ooo-eager implicit fence", []string{"switch.routing.kind=spray", "nic.receiver=ooo-eager", "nic.fence=implicit"}, false},
	} {
		sim := mustBuild(t, "halo", tc.sets...)
		res := sim.Run(Options{RunID: "r"})
		if res.err != nil || !res.Drained {
			t.Fatalf("%s: error %v, drained %v", tc.name, res.err, res.Drained)
		}
		c := res.Run.Counters
		if got := c["halo.violations"] > 0; got != tc.violating {
			t.Errorf("%s: %d violations in %d batches, want violations %v", tc.name, c["halo.violations"], c["halo.batches"], tc.violating)
		}
		sent := c["halo.particles_sent"]
		if sent != 56*4096 || c["halo.particles_received"] != sent || c["halo.batches"] != 56*64 ||
			c["halo.reads"] != c["halo.batches"] || c["halo.writes"] != c["halo.batches"] || c["halo.atomics"] != c["halo.batches"] {
			t.Errorf("%s: counters %v: want 56 pairs x 4096 particles, 64 batches each of 1 READ, 1 WRITE, 1 FETCH_ADD", tc.name, c)
		}
		t.Logf("%s: %d of %d batches violate, %d particles stale", tc.name, c["halo.violations"], c["halo.batches"], c["halo.stale_particles"])
	}
}

// The implicit fence costs about one RTT of publish latency per batch:
// against the in-order run, each pair's mean latency grows by its path's
// propagation RTT (2, 4 or 6 hops of 1 us each way), within 3%: the fence
// adds the WRITE's ACK's way back and the FETCH_ADD's round trip (plus
// their serialisations, 11 ns a hop) and takes away the FETCH_ADD's wait
// behind the WRITE's packets and some queueing behind other pairs (the
// fenced run is sparser). Measured: 8,547 ns mean cost against a mean RTT
// of 8,571 ns over the 56 pairs.
func TestHaloImplicitFenceCostsAnRTT(t *testing.T) {
	hosts := map[int64][2]int{}
	mean := func(sets ...string) (map[int64]float64, *Sim) {
		sim := mustBuild(t, "halo", sets...)
		res := sim.Run(Options{RunID: "r"})
		sum, n := map[int64]float64{}, map[int64]float64{}
		for _, b := range res.Batches {
			sum[b.Pair] += float64(b.PublishLatencyNs)
			n[b.Pair]++
			hosts[b.Pair] = [2]int{int(b.Src), int(b.Dst)}
		}
		for p := range sum {
			sum[p] /= n[p]
		}
		return sum, sim
	}
	in, sim := mean()
	fenced, _ := mean("nic.fence=implicit")
	var cost, rtt float64
	for i := int64(0); i < int64(len(hosts)); i++ {
		p := hosts[i]
		r := float64(sim.Net.PathBetween(p[0], p[1]).BaseRTT(0).Nanoseconds())
		d := fenced[i] - in[i]
		if d < 0.97*r || d > 1.03*r {
			t.Errorf("pair %d (hosts %d->%d): fence cost %.0f ns, want within 3%% of its RTT %.0f ns", i, p[0], p[1], d, r)
		}
		cost += d
		rtt += r
	}
	pairs := hosts
	t.Logf("mean fence cost %.0f ns, mean RTT %.0f ns over %d pairs", cost/float64(len(pairs)), rtt/float64(len(pairs)), len(pairs))
}

// Same seed, same batches.parquet, byte for byte; its rows are the run's
// batches.
func TestHaloDeterministic(t *testing.T) {
	var files [2][]byte
	for i := range files {
		dir := t.TempDir()
		res := mustBuild(t, "halo", "switch.routing.kind=spray", "nic.receiver=ooo-eager").Run(Options{RunID: "r"})
		if err := res.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		rows, err := analysis.ReadBatches(filepath.Join(dir, analysis.BatchesFile))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rows, res.Batches) || len(rows) != 56*64 {
			t.Fatalf("batches.parquet: %d rows, want the run's %d", len(rows), len(res.Batches))
		}
		b, err := os.ReadFile(filepath.Join(dir, analysis.BatchesFile))
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !reflect.DeepEqual(files[0], files[1]) {
		t.Errorf("two runs with one seed wrote different batches.parquet")
	}
}

// An mpitrace run's headline says what the application did (ranks,
// iterations, messages, execution time = mpitrace.exec_ns), and not
// "flows 0 posted": its messages are not flows. Cut short by the drain
// limit, it says the workload did not finish, not "0 flows unfinished".
func TestMPITraceHeadline(t *testing.T) {
	sets := []string{"topology.kind=fat-tree", "topology.k=4", "cc.algorithm=none", "workload.kind=mpitrace",
		"workload.mpitrace.iterations=1", "duration=1us"}
	res := mustBuild(t, "default", sets...).Run(Options{RunID: "r"})
	c := res.Run.Counters
	want := fmt.Sprintf("mpitrace ptrans: 16 ranks, 1 iteration, %d of %d messages done (%s posted); execution time %.3f ms (",
		c["mpitrace.done"], c["mpitrace.messages"], analysis.HumanSize(c["mpitrace.bytes"]), float64(c["mpitrace.exec_ns"])/1e6)
	h := res.Headline()
	if c["mpitrace.messages"] == 0 || c["mpitrace.exec_ns"] <= 0 || !strings.Contains(h, want) || strings.Contains(h, "flows ") {
		t.Errorf("headline:\n%s\nwant a line with %q and no flows", h, want)
	}
	short := mustBuild(t, "default", append(sets, "drain_limit=100us")...).Run(Options{RunID: "r"})
	h = short.Headline()
	for _, w := range []string{"execution time unfinished: the run ended first", "note: the drain limit ended the run before the mpitrace workload finished (drain_limit 100us)"} {
		if !strings.Contains(h, w) {
			t.Errorf("cut short, headline:\n%s\nwant %q", h, w)
		}
	}
	if strings.Contains(h, "flows") {
		t.Errorf("cut short, headline:\n%s\nmentions flows", h)
	}
}
