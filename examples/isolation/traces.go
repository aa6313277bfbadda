package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

// traceScenario is the trace experiment's network, the arn-afi one (k =
// 12 fat-tree, 100 Gbps, 100 ns links, MTU 2048, no CC, 4 MiB per
// switch) without its background: the application on the even hosts
// (workload.hosts, set per app), the injected incast on the odd ones: 20%
// of them (43 senders, H10's count) each send one 1 MB message (the hot
// spot's message) to one destination at once, when the application's
// communication starts or, for Inception-v3 with -incast last, when its
// last gradient bucket is ready (incastAt). A hot spot that lasts instead
// (line rate until the application ends) leaves the destination a
// backlog 42 times the run to drain, which under 1Q holds PTRANS for
// longer than the runs can afford (5 iterations, 552 us alone, not done
// after 6 ms).
const traceScenario = `name: mpitrace-incast
topology: {kind: fat-tree, k: 12, host_link: 100Gbps, fabric_link: 100Gbps, link_delay: 100ns}
switch: {buffer: 4MiB}
nic: {mtu: 2048}
cc: {algorithm: none}
workload: {kind: mpitrace}
extra_workloads:
  - {kind: hotspot, hotspot: {fraction: 0.2, trees: 1, flow_size: 1MB, start: 0s, stop: 1ns}}
`

// traceApps are the two traces' workload settings and run lengths.
var traceApps = map[string][]string{
	// 216 processes on a 12 x 18 grid; the workload.hosts are the even
	// hosts (set below).
	"ptrans": {"workload.mpitrace.app=ptrans", "workload.mpitrace.p=12", "workload.mpitrace.q=18"},
	// 72 GPUs, one per leaf (hosts 0, 6, ..., 426).
	"inception-v3": {"workload.mpitrace.app=inception-v3", "workload.mpitrace.ranks=72"},
}

// traceCmd runs each app under each scheme with and without the incast
// and writes exec time and overhead (with / without - 1) to OUT.csv.
func traceCmd(args []string) error {
	if len(args) < 1 {
		usage()
	}
	out := args[0]
	fs := flag.NewFlagSet("traces", flag.ExitOnError)
	apps := fs.String("apps", "ptrans,inception-v3", "apps")
	names := fs.String("schemes", "1q,ar,afi,arn-afi", "schemes")
	seed := fs.Int("seed", 1, "seed")
	bucket := fs.String("incast", "last", "Inception-v3: inject the incast when the first or the last gradient bucket is ready")
	var sets setFlags
	fs.Var(&sets, "set", "extra --set for every run")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *bucket != "first" && *bucket != "last" {
		return fmt.Errorf("-incast %q: want first or last", *bucket)
	}
	fh, err := os.Create(out)
	if err != nil {
		return err
	}
	defer fh.Close()
	w := csv.NewWriter(fh)
	w.Write([]string{"app", "incast_at_bucket", "scheme", "seed", "exec_us_no_incast", "exec_us_incast", "overhead", "nacks_incast", "rto_timeouts_incast", "pfc_pauses_incast", "resent_bytes_incast", "incast_done_us"})
	for _, app := range strings.Split(*apps, ",") {
		over, ok := traceApps[app]
		if !ok {
			return fmt.Errorf("unknown app %q", app)
		}
		hosts := hostList(432, 0, 2)
		if app == "inception-v3" {
			hosts = hostList(432, 0, 6)
		}
		base := append([]string{"seed=" + strconv.Itoa(*seed), "workload.hosts=" + hosts, "extra_workloads[0].hosts=" + hostList(432, 1, 2)}, over...)
		for _, name := range strings.Split(*names, ",") {
			sch, ok := schemes[name]
			if !ok {
				return fmt.Errorf("unknown scheme %q", name)
			}
			all := append(append(append([]string(nil), base...), sch...), sets...)
			// Without the incast (it would start after the run), to the
			// application's end; then with it for that long (duration,
			// the hot spot's stop), the run cut at twice that plus 5 ms
			// if the application has not finished by then.
			quiet, err := traceRun(append(append([]string(nil), all...), "duration=1us", "drain_limit=100s",
				"extra_workloads[0].hotspot.start=1000s", "extra_workloads[0].hotspot.stop=1000s"))
			if err != nil {
				return fmt.Errorf("%s %s without the incast: %v", app, name, err)
			}
			at := incastAt(app, *bucket == "last", all)
			loud, err := traceRun(append(append([]string(nil), all...), "duration="+time(at+1), "drain_limit="+time(quiet.exec+50_000_000),
				"extra_workloads[0].hotspot.start="+time(at), "extra_workloads[0].hotspot.stop="+time(at+1)))
			if err != nil {
				return fmt.Errorf("%s %s with the incast: %v", app, name, err)
			}
			oh := -1.0
			if quiet.exec > 0 && loud.exec > 0 {
				oh = float64(loud.exec)/float64(quiet.exec) - 1
			}
			w.Write([]string{app, *bucket, name, strconv.Itoa(*seed), f(float64(quiet.exec) / 1000), f(float64(loud.exec) / 1000), f(oh),
				strconv.FormatInt(loud.nacks, 10), strconv.FormatInt(loud.rtos, 10), strconv.FormatInt(loud.pauses, 10),
				strconv.FormatInt(loud.resent, 10), f(float64(loud.incastDone) / 1000)})
			w.Flush()
			fmt.Fprintf(os.Stderr, "%s %-8s exec %.1f us alone, %.1f us with the incast: overhead %.1f%% (%d NACKs, %d RTOs, %d B resent; the incast done at %.1f us)\n",
				app, name, float64(quiet.exec)/1000, float64(loud.exec)/1000, 100*oh, loud.nacks, loud.rtos, loud.resent, float64(loud.incastDone)/1000)
		}
	}
	w.Flush()
	return w.Error()
}

// incastAt is when the incast starts, in ns: PTRANS at once (its
// communication starts then), Inception-v3 when its first gradient
// bucket is ready (its communication starts, hidden behind the rest of
// the backward pass) or, with last, its last (the backward pass ends and
// the rest of the allreduce is exposed).
func incastAt(app string, last bool, sets []string) int64 {
	if app != "inception-v3" {
		return 0
	}
	s, err := wiring.Catalog().Parse("mpitrace-incast.yaml", []byte(traceScenario), sets)
	if err != nil {
		return 0
	}
	prog, err := wiring.MPITraceProgram(s.Workload.Params.(*scenario.MPITraceParams))
	if err != nil {
		return 0
	}
	at := prog.Phases[0][0].At
	if last {
		for _, ph := range prog.Phases[0] {
			at = max(at, ph.At)
		}
	}
	return at.Nanoseconds()
}

// time is ns as a duration setting.
func time(ns int64) string { return strconv.FormatInt(ns, 10) + "ns" }

// traceResult is one run: the application's execution time, the run's
// NACKs, RTOs, PAUSE frames and resent bytes, and when the incast's last
// message finished (ns; 0 without one).
type traceResult struct{ exec, nacks, rtos, pauses, resent, incastDone int64 }

func traceRun(sets []string) (traceResult, error) {
	s, err := wiring.Catalog().Parse("mpitrace-incast.yaml", []byte(traceScenario), sets)
	if err != nil {
		return traceResult{}, err
	}
	sim, err := wiring.Build(s)
	if err != nil {
		return traceResult{}, err
	}
	res := sim.Run(wiring.Options{})
	exec := res.Run.Counters["mpitrace.exec_ns"]
	if exec < 0 {
		return traceResult{}, fmt.Errorf("the application did not finish by the end of the run (%v + drain_limit; %d of %d messages done, simulated to %v)", s.Duration, res.Run.Counters["mpitrace.done"], res.Run.Counters["mpitrace.messages"], res.Run.SimTimeNs)
	}
	r := traceResult{exec: exec, nacks: res.Run.NACKs, rtos: res.Run.RTOTimeouts, pauses: res.Run.PFCPauseFrames,
		resent: res.Run.Counters["retransmitted_bytes"]}
	for _, fl := range res.Flows {
		if fl.Generator == "hotspot" && fl.FinishNs != nil {
			r.incastDone = max(r.incastDone, *fl.FinishNs)
		}
	}
	return r, nil
}

// hostList lists from, from+step, from+2 step, ... below n.
func hostList(n, from, step int) string {
	var b strings.Builder
	for h := from; h < n; h += step {
		if h > from {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(h))
	}
	return b.String()
}
