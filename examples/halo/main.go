// Command halo runs the write-then-atomic experiment of
// docs/studies/one-sided.md: the halo exchange (workloads/halo) of 16 ranks
// on a 2x2x4 grid over a 4-leaf, 4-spine fabric whose leaf-spine wires
// take 1 us + s*spread through spine s, so the 4 paths between two leaves
// differ by up to 6*spread; per-packet spraying (or per-packet adaptive
// routing) reorders a QP's packets.
// For each spread, responder mode and seed it records the fraction of
// batches that publish their tail before their data, the particles read
// before they were visible and the publish latency; then it plots the
// violation fraction against the standard deviation of the path delay.
//
//	nice -n 5 go run ./examples/halo examples/results/halo.csv examples/halo.png
package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/cc/none"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/examples/internal/figure"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/transport/rocev2"
	"github.com/dcsim/dcsim/workloads/halo"
)

// mode is a responder (and requester) configuration.
type mode struct {
	name     string
	spray    bool
	adaptive bool // per-packet adaptive routing instead of spraying
	set      func(*rnic.Config)
}

var modes = []mode{
	{"inorder (ECMP)", false, false, func(*rnic.Config) {}},
	{"ooo-eager", true, false, func(c *rnic.Config) { c.Selective, c.Atomics = true, rnic.AtomicEager }},
	{"ooo-ordered", true, false, func(c *rnic.Config) { c.Selective, c.Atomics = true, rnic.AtomicDeferred }},
	{"ooo-eager + implicit fence", true, false, func(c *rnic.Config) {
		c.Selective, c.Atomics, c.ImplicitFence = true, rnic.AtomicEager, true
	}},
	{"ooo-eager, adaptive routing", false, true, func(c *rnic.Config) { c.Selective, c.Atomics = true, rnic.AtomicEager }},
}

var spreads = []engine.Time{0, 50 * engine.Nanosecond, 100 * engine.Nanosecond, 200 * engine.Nanosecond,
	400 * engine.Nanosecond, 800 * engine.Nanosecond, 1600 * engine.Nanosecond, 3200 * engine.Nanosecond}

const seeds = 3

type result struct {
	batches, violations, stale, particles int64
	meanNs, p99Ns                         float64
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: halo OUT.csv OUT.png")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "halo:", err)
		os.Exit(1)
	}
}

// pathStdDev is the standard deviation of the one-way path delay between
// two leaves over the 4 spines: 2 wires of 1 us + s*spread, s = 0..3.
func pathStdDev(spread engine.Time) float64 {
	return 2 * float64(spread.Nanoseconds()) * math.Sqrt(1.25)
}

func run(csvPath, pngPath string) error {
	f, err := os.Create(csvPath)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"mode", "spread_ns", "path_delay_sd_ns", "seed", "batches", "violations", "violation_fraction",
		"stale_particles", "particles", "mean_publish_ns", "p99_publish_ns"})
	viol, stale, lat := map[string]plotter.XYs{}, map[string]plotter.XYs{}, map[string]plotter.XYs{}
	for _, m := range modes {
		for _, sp := range spreads {
			var frac, st, mean float64
			for seed := uint64(1); seed <= seeds; seed++ {
				r, err := one(m, sp, seed)
				if err != nil {
					return fmt.Errorf("%s, spread %v, seed %d: %v", m.name, sp, seed, err)
				}
				vf := float64(r.violations) / float64(r.batches)
				frac += vf / seeds
				st += 1e4 * float64(r.stale) / float64(r.particles) / seeds
				mean += r.meanNs / seeds
				w.Write([]string{m.name, strconv.FormatInt(sp.Nanoseconds(), 10), fmt.Sprintf("%.1f", pathStdDev(sp)),
					strconv.FormatUint(seed, 10), strconv.FormatInt(r.batches, 10), strconv.FormatInt(r.violations, 10),
					fmt.Sprintf("%.4f", vf), strconv.FormatInt(r.stale, 10), strconv.FormatInt(r.particles, 10),
					fmt.Sprintf("%.0f", r.meanNs), fmt.Sprintf("%.0f", r.p99Ns)})
			}
			x := pathStdDev(sp)
			viol[m.name] = append(viol[m.name], plotter.XY{X: x, Y: frac})
			stale[m.name] = append(stale[m.name], plotter.XY{X: x, Y: st})
			lat[m.name] = append(lat[m.name], plotter.XY{X: x, Y: mean / 1000})
			fmt.Printf("%-28s spread %5v: violation fraction %.4f (mean of %d seeds)\n", m.name, sp, frac, seeds)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	panels := []*plot.Plot{
		panel("batches with the tail visible before their data", "fraction of batches", viol),
		panel("particles read before they were visible", "per 10,000 particles", stale),
		panel("publish latency (first WRITE posted to tail visible)", "mean, us", lat),
	}
	return figure.SavePNG(pngPath, 16*vg.Inch, 4.5*vg.Inch, [][]*plot.Plot{panels})
}

// panel plots one metric against the path-delay spread, a line per mode.
func panel(title, unit string, lines map[string]plotter.XYs) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "std. dev. of the inter-leaf path delay (ns)"
	p.Y.Label.Text = unit
	p.Legend.Top, p.Legend.Left = true, false
	p.Legend.YOffs = -vg.Inch / 2 // below the saturated ooo-eager line
	p.Add(plotter.NewGrid())
	for i, m := range modes {
		l, pts, err := plotter.NewLinePoints(lines[m.name])
		if err != nil {
			continue
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(m.name, l, pts)
	}
	return p
}

// one runs the exchange once.
func one(m mode, spread engine.Time, seed uint64) (result, error) {
	topo, err := fabric.SpineLeaf(fabric.SpineLeafConfig{Leaves: 4, HostsPerLeaf: 4, Spines: 4,
		HostLink: 100 * engine.Gbps, FabricLink: 100 * engine.Gbps, Delay: engine.Microsecond})
	if err != nil {
		return result{}, err
	}
	spine0 := topo.Hosts + 4
	for i, l := range topo.Links {
		if s := max(l.A, l.B); s >= spine0 {
			topo.Links[i].Delay += engine.Time(s-spine0) * spread
		}
	}
	sim := engine.NewSim(seed)
	fcfg := fabric.DefaultConfig()
	switch {
	case m.spray:
		fcfg.Router = fabric.Spray{Rand: sim.Rand("spray").Uint32}
	case m.adaptive: // per packet: the least occupied up port, ties by the flow hash
		fcfg.Router = &fabric.Adaptive{Salt: sim.Rand("ecmp").Uint32()}
	default:
		fcfg.Router = fabric.ECMP{Salt: sim.Rand("ecmp").Uint32()}
	}
	net, err := fabric.Build(sim, topo, fcfg)
	if err != nil {
		return result{}, err
	}
	cfg := rnic.Config{MTU: 1000, Headers: rocev2.ReferenceHeaders, DataClass: 3, AckInterval: 1,
		NackInterval: 500 * engine.Microsecond, RTO: 5 * engine.Millisecond,
		Mapping: rnic.Mapping{Pool: 1}, CC: none.Spec(none.Params{}),
		CCEnv: cc.Env{LineRate: 100 * engine.Gbps, MinRate: engine.Gbps, MTU: 1000}}
	m.set(&cfg)
	c, err := rnic.NewCluster(net, cfg, func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(3) })
	if err != nil {
		return result{}, err
	}
	g := halo.Grid{X: 2, Y: 2, Z: 4}
	hosts := make([]int, g.Ranks())
	for i := range hosts {
		hosts[i] = i
	}
	x, err := halo.New(c, halo.Config{Grid: g, Hosts: hosts, ParticleBytes: 128, RingCapacity: 4096, Batch: 64,
		Particles: 2048, PollInterval: engine.Microsecond})
	if err != nil {
		return result{}, err
	}
	x.Start()
	if !sim.Run(engine.Second) || !x.Done() {
		return result{}, fmt.Errorf("not done after 1 s")
	}
	if err := x.Check(); err != nil {
		return result{}, err
	}
	if err := c.CheckDrained(); err != nil {
		return result{}, err
	}
	k := x.Counters
	lat := make([]float64, 0, len(x.Batches))
	sum := 0.0
	for _, b := range x.Batches {
		l := float64(b.PublishLatency().Nanoseconds())
		lat = append(lat, l)
		sum += l
	}
	slices.Sort(lat)
	return result{batches: k.Batches, violations: k.Violations, stale: k.Stale, particles: k.Sent,
		meanNs: sum / float64(len(lat)), p99Ns: lat[len(lat)*99/100]}, nil
}
