// Command isolation runs the ARN+AFI experiment (docs/studies/arn-afi.md; docs/model.md §10): the built-in scenario
// arn-afi (a fat-tree with a uniform background and a hot spot from 200
// to 400 us) under each scheme, and writes the network efficiency and
// the non-hot-spot throughput per 10 us bin to a CSV, a summary per run
// (non-hot-spot throughput before, during and after the hot spot, the
// recovery time during it and, recovery_after_stop_us, the time after it
// stops until the background's delivered Gbps is back within 10% of
// before over a 50 us window) to another, and a plot of efficiency
// against time.
//
//	go run ./examples/isolation run examples/results/isolation [--set k=v]...
//	go run ./examples/isolation plot examples/results/isolation.csv examples/isolation.png
//
// run takes -k (fat-tree radix, 12 by default), -hot (H10, H25, H10-4,
// H25-4, comma-separated), -schemes (comma-separated), -seed, -threads
// (the parallel engine, docs/parallel.md; 0: sequential) and
// -credit-view (switch.isolation.credit_view for the schemes with
// isolation only; the parallel engine needs delayed). -set applies to
// every scheme.
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

// schemes maps a scheme name to its --set overrides (docs/studies/arn-afi.md's
// table says what each is).
var schemes = map[string][]string{
	"1q":            {},
	"ar":            {"switch.routing.kind=adaptive"},
	"arn-afi":       {"switch.routing.kind=adaptive", "switch.isolation={}"},
	"arn-afi-gap0":  {"switch.routing.kind=adaptive", "switch.isolation={}", "switch.isolation.adapt_gap=0s"},
	"afc-no-arn":    {"switch.routing.kind=adaptive", "switch.isolation={}", "switch.isolation.arn=false"},
	"afi":           {"switch.routing.kind=adaptive", "switch.isolation={}", "switch.isolation.arn=false", "switch.isolation.afi=true"},
	"afi-gap0":      {"switch.routing.kind=adaptive", "switch.isolation={}", "switch.isolation.arn=false", "switch.isolation.afi=true", "switch.isolation.adapt_gap=0s"},
	"arn-afi-ecmp":  {"switch.isolation={}"},
	"ideal":         {"switch.routing.kind=adaptive", "switch.isolation={}", "switch.isolation.adapt_gap=0s", "switch.isolation.crt=0s", "switch.isolation.hcd_th=0.05"},
	"no-hotspot-ar": {"switch.routing.kind=adaptive"},
	"ar-dbbm":       {"switch.routing.kind=adaptive", "switch.queueing={scheme: dbbm}"},
	"ar-vftree":     {"switch.routing.kind=adaptive", "switch.queueing={scheme: vftree}"},
	"ar-flow2sl":    {"switch.routing.kind=adaptive", "switch.queueing={scheme: flow2sl}"},
}

// hotSpots are the paper's patterns.
var hotSpots = map[string][]string{
	"H10":   {"workload.hotspot.fraction=0.1", "workload.hotspot.trees=1"},
	"H25":   {"workload.hotspot.fraction=0.25", "workload.hotspot.trees=1"},
	"H10-4": {"workload.hotspot.fraction=0.1", "workload.hotspot.trees=4"},
	"H25-4": {"workload.hotspot.fraction=0.25", "workload.hotspot.trees=4"},
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runCmd(os.Args[2:])
	case "traces":
		err = traceCmd(os.Args[2:])
	case "plot":
		if len(os.Args) != 4 {
			usage()
		}
		err = plotCmd(os.Args[2], os.Args[3])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "isolation:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: isolation run OUTPREFIX [-k 12] [-hot H10,...] [-schemes 1q,ar,arn-afi] [-seed 1] [-threads 0] [-credit-view live|delayed] [-set k=v]...\n       isolation plot IN.csv OUT.png\n       isolation traces OUT.csv [-apps ptrans,inception-v3] [-schemes 1q,ar,afi,arn-afi] [-seed 1] [-set k=v]...")
	os.Exit(2)
}

type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, " ") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

func runCmd(args []string) error {
	if len(args) < 1 || strings.HasPrefix(args[0], "-") {
		usage() // the output prefix comes first
	}
	prefix := args[0]
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	k := fs.Int("k", 12, "fat-tree radix")
	hot := fs.String("hot", "H10", "hot-spot patterns")
	names := fs.String("schemes", "1q,ar,arn-afi", "schemes")
	seed := fs.Int("seed", 1, "seed")
	threads := fs.Int("threads", 0, "threads of the parallel engine (0: sequential)")
	view := fs.String("credit-view", "", "switch.isolation.credit_view of the schemes with isolation (delayed on the parallel engine)")
	var sets setFlags
	fs.Var(&sets, "set", "extra --set for every run")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	series, err := os.Create(prefix + ".csv")
	if err != nil {
		return err
	}
	defer series.Close()
	summary, err := os.Create(prefix + "-summary.csv")
	if err != nil {
		return err
	}
	defer summary.Close()
	sw, mw := csv.NewWriter(series), csv.NewWriter(summary)
	sw.Write([]string{"k", "hotspot", "scheme", "time_us", "efficiency", "other_delivered_gbps", "hotspot_delivered_gbps", "other_goodput_gbps", "other_injected_gbps"})
	mw.Write([]string{"k", "hotspot", "scheme", "goodput_before_gbps", "goodput_during_gbps", "goodput_after_gbps",
		"efficiency_before", "efficiency_during", "recovery_us", "nacks", "retransmitted_bytes", "arn_generated", "afc_adapted_packets", "other_delivered_before_gbps", "recovery_after_stop_us"})
	for _, h := range strings.Split(*hot, ",") {
		for _, name := range strings.Split(*names, ",") {
			over, ok := schemes[name]
			if !ok {
				return fmt.Errorf("unknown scheme %q", name)
			}
			hs, ok := hotSpots[h]
			if !ok {
				return fmt.Errorf("unknown hot spot %q", h)
			}
			all := append([]string{fmt.Sprintf("topology.k=%d", *k), fmt.Sprintf("seed=%d", *seed)}, hs...)
			if name == "no-hotspot-ar" {
				all = append(all, "workload.hotspot.start=100ms", "workload.hotspot.stop=200ms") // after the run: background alone
			}
			all = append(all, over...)
			if *view != "" && slices.Contains(over, "switch.isolation={}") {
				all = append(all, "switch.isolation.credit_view="+*view)
			}
			all = append(all, sets...)
			r, err := runOne(all, *threads)
			if err != nil {
				return fmt.Errorf("%s %s: %v", h, name, err)
			}
			for _, b := range r.bins {
				sw.Write([]string{strconv.Itoa(*k), h, name, f(b.t), f(b.eff), f(b.other), f(b.hot), f(b.good), f(b.otherIn)})
			}
			s := r.summarise()
			mw.Write([]string{strconv.Itoa(*k), h, name, f(s.before), f(s.during), f(s.after), f(s.effBefore), f(s.effDuring),
				f(s.recovery), strconv.FormatInt(r.nacks, 10), strconv.FormatInt(r.counters["retransmitted_bytes"], 10), strconv.FormatInt(r.counters["arn_generated"], 10),
				strconv.FormatInt(r.counters["afc_adapted_packets"], 10), f(s.bgBefore), f(s.recoveryStop)})
			fmt.Fprintf(os.Stderr, "k=%d %s %-12s background goodput before %.0f during %.0f after %.0f Gbps, efficiency %.3f -> %.3f, recovery %.0f us (after the stop %.0f us), %d NACKs, %d B resent\n",
				*k, h, name, s.before, s.during, s.after, s.effBefore, s.effDuring, s.recovery, s.recoveryStop, r.nacks, r.counters["retransmitted_bytes"])
		}
	}
	sw.Flush()
	mw.Flush()
	if err := sw.Error(); err != nil {
		return err
	}
	return mw.Error()
}

func f(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// bin is one 10 us interval: efficiency, delivered Gbps to other hosts
// and to the hot spots (both counting resent data again), and the
// goodput of background flows to other hosts, the bytes of those that
// finished in the bin.
type bin struct{ t, eff, other, hot, good, otherIn float64 }

type result struct {
	bins        []bin
	start, stop float64 // hot spot, us
	end         float64 // end of arrivals (the scenario's duration), us
	nacks       int64
	counters    map[string]int64
}

func runOne(sets []string, threads int) (*result, error) {
	s, err := wiring.Catalog().Load("arn-afi", sets)
	if err != nil {
		return nil, err
	}
	sim, err := wiring.BuildWith(s, wiring.BuildOptions{Threads: threads})
	if err != nil {
		return nil, err
	}
	res := sim.Run(wiring.Options{})
	byT := map[int64]*bin{}
	for _, r := range res.Samples {
		b := byT[r.TimeNs]
		if b == nil {
			b = &bin{t: float64(r.TimeNs) / 1000}
			byT[r.TimeNs] = b
		}
		switch r.Component + "/" + r.Metric {
		case "network/efficiency":
			b.eff = r.Value
		case "other/delivered_gbps":
			b.other = r.Value
		case "other/injected_gbps":
			b.otherIn = r.Value
		case "hotspot/delivered_gbps":
			b.hot = r.Value
		}
	}
	hot := map[int32]bool{}
	for _, h := range sim.HotSpots() {
		hot[int32(h)] = true
	}
	for _, fl := range res.Flows {
		if fl.Generator != "cloud" || hot[fl.Dst] || fl.FinishNs == nil {
			continue
		}
		t := (*fl.FinishNs + 9999) / 10000 * 10000 // the bin ending at or after the finish
		if b := byT[t]; b != nil {
			b.good += float64(fl.SizeBytes) * 8 / 10000 // bytes per 10 us -> Gbps
		}
	}
	out := &result{nacks: res.Run.NACKs, counters: res.Run.Counters}
	for _, b := range byT {
		out.bins = append(out.bins, *b)
	}
	sort.Slice(out.bins, func(i, j int) bool { return out.bins[i].t < out.bins[j].t })
	hp := s.Workload.Params.(*scenario.HotSpotParams)
	out.start, out.stop = float64(hp.Start)/1e6, float64(hp.Stop)/1e6
	out.end = float64(s.Duration) / 1e6
	if hp.Start >= s.Duration { // no hot spot: summarise over the built-in's window
		out.start, out.stop = 200, 400
	}
	return out, nil
}

type summary struct {
	before, during, after, effBefore, effDuring, recovery float64
	bgBefore, recoveryStop                                float64
}

// summarise averages the background goodput to non-hot-spot hosts over
// the 100 us before
// the hot spot, while it lasts, and over the 100 us after it ends (up to
// the end of arrivals), and finds the recovery time: from the hot spot's
// start to the first bin from which on, until it ends, the background's
// delivered Gbps to other hosts (resent data included) stays at 90% or
// more of the goodput's mean before (-1 if it never does; 0 if it never
// fell). The two sides differ: a bin's goodput (the bytes of the flows
// that finished in it) is too lumpy per 10 us to test alone, and the
// delivered Gbps counts resends, so under many NACKs the criterion is met
// early (delivered was 1-37% above goodput before the hot spot in the
// seeds summary). It is kept as the published CSVs computed it; read
// goodput_during_gbps for the goodput itself. recoveryStop is the time from the hot spot's stop to the
// start of the first 50 us window in which the background's delivered
// Gbps to other hosts (resent data included) is within 10% of its mean
// over the 100 us before the hot spot (bgBefore), -1 if none before the
// end of arrivals.
func (r *result) summarise() summary {
	var s summary
	mean := func(lo, hi float64, pick func(b bin) float64) float64 {
		var sum float64
		var n int
		for _, b := range r.bins {
			if b.t > lo && b.t <= hi {
				sum += pick(b)
				n++
			}
		}
		if n == 0 {
			return 0
		}
		return sum / float64(n)
	}
	other := func(b bin) float64 { return b.good }
	eff := func(b bin) float64 { return b.eff }
	s.before = mean(r.start-100, r.start, other)
	s.during = mean(r.start, r.stop, other)
	s.after = mean(r.stop, r.stop+100, other)
	s.effBefore = mean(r.start-100, r.start, eff)
	s.effDuring = mean(r.start, r.stop, eff)
	s.recovery = -1
	for i := len(r.bins) - 1; i >= 0; i-- {
		b := r.bins[i]
		if b.t <= r.start || b.t > r.stop {
			continue
		}
		if b.other < 0.9*s.before {
			break
		}
		s.recovery = b.t - 10 - r.start // the bin's start
	}
	// The background's efficiency is its delivered Gbps over what it
	// offers, the mean delivered before the hot spot (its offered load is
	// constant): delivered / injected on host links would hide a tree,
	// since PFC pauses the background's senders and their injection falls
	// with their delivery.
	bgOther := func(b bin) float64 { return b.other }
	s.bgBefore = mean(r.start-100, r.start, bgOther)
	// The first 50 us window (five bins) starting at or after the stop
	// whose delivered mean is within 10% of bgBefore; one 10 us bin
	// varies by 30% on a k = 4 tree.
	s.recoveryStop = -1
	const w = 5
	for i := range r.bins {
		lo := r.bins[i].t - 10
		if lo < r.stop || i+w > len(r.bins) || r.bins[i+w-1].t > r.end {
			continue
		}
		var d float64
		for _, b := range r.bins[i : i+w] {
			d += b.other
		}
		if d/w >= 0.9*s.bgBefore {
			s.recoveryStop = lo - r.stop
			break
		}
	}
	return s
}
