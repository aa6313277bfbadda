package simai

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/dcsim/dcsim/engine"
)

func newRun(t testing.TB, w *Workload, cfg RunConfig) *Run {
	t.Helper()
	r, err := NewRun(w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func runIdeal(t testing.TB, r *Run, tt func(Transfer) engine.Time) engine.Time {
	t.Helper()
	end, err := RunIdeal(r, tt)
	if err != nil {
		t.Fatal(err)
	}
	return end
}

func zeroCost(Transfer) engine.Time { return 0 }

// active mirrors the rule of NewRun: a collective runs when it names an
// op, has bytes and its group has at least two ranks; MICRO runs only the
// weight-gradient column.
func active(w *Workload, l Layout, i int, p Phase) bool {
	c := w.Lines[i].Stage(p).Comm
	return c.Active() && l.Size(c.Group) >= 2 && (w.Policy != PolicyMicro || p == WG)
}

// zeroNetTime is docs/model.md §7.5's iteration time when every collective
// completes the moment it is issued: forward adds fwd_ns and, where the
// forward collective runs, update_ns; backward adds ig_ns (+ update_ns
// after a running ig collective) and wg_ns; a running wg collective ends
// update_ns after it is issued, in the background; the pass ends when
// everything has.
func zeroNetTime(w *Workload, l Layout) engine.Time {
	var t, bg engine.Time
	n := len(w.Lines)
	if w.Policy == PolicyMicro {
		for i, ln := range w.Lines {
			t += ln.Fwd.Compute + ln.IG.Compute + ln.WG.Compute
			if active(w, l, i, WG) {
				t += ln.Update
			}
		}
		return t
	}
	for i, ln := range w.Lines {
		t += ln.Fwd.Compute
		if active(w, l, i, Fwd) {
			t += ln.Update
		}
	}
	for i := n - 1; i >= 0; i-- {
		ln := &w.Lines[i]
		t += ln.IG.Compute
		if active(w, l, i, IG) {
			t += ln.Update
		}
		t += ln.WG.Compute
		if active(w, l, i, WG) {
			bg = max(bg, t+ln.Update)
		}
	}
	return max(t, bg)
}

// TestCollectiveOnIdealNetwork checks the ring formulas of docs/model.md §7.6
// exactly: on a network where every transfer takes bytes*8/B + latency,
// independently of the others, a ring collective of S bytes over n hosts
// takes steps * (send latency + (S/(n*C))*8/B + latency).
func TestCollectiveOnIdealNetwork(t *testing.T) {
	// B = 100 Gbps: one byte takes 80 ps (docs/model.md §1).
	const lat = 2 * engine.Microsecond
	net := func(tr Transfer) engine.Time { return engine.Time(tr.Bytes)*80*engine.Picosecond + lat }
	tests := []struct {
		op       string
		n, c     int
		steps    int
		flowsPer int // flows a rank sends per step
	}{
		{"allreduce", 2, 1, 2, 1}, {"allreduce", 4, 1, 6, 1}, {"allreduce", 8, 1, 14, 1}, {"allreduce", 16, 1, 30, 1},
		{"allreduce", 8, 2, 14, 2},
		{"reduce-scatter", 4, 1, 3, 1}, {"reduce-scatter", 16, 1, 15, 1},
		{"all-gather", 4, 1, 3, 1}, {"all-gather", 16, 1, 15, 1}, {"all-gather", 8, 4, 7, 4},
		{"all-to-all", 4, 1, 1, 3}, {"all-to-all", 16, 1, 1, 15},
	}
	const s = 16 * engine.MiB
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/n%d/c%d", tt.op, tt.n, tt.c), func(t *testing.T) {
			w, err := Microbench(tt.op, s, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			cfg := DefaultRunConfig()
			cfg.Channels = tt.c
			r := newRun(t, w, cfg)
			end := runIdeal(t, r, net)
			flow := s / int64(tt.n*tt.c)
			want := engine.Time(tt.steps) * (DefaultSendLatency + engine.Time(flow)*80*engine.Picosecond + lat)
			if end != want {
				t.Errorf("got %v, want %v", end, want)
			}
			it := r.Iterations()
			if len(it) != 1 || it[0].Duration != want || it[0].Compute != 0 || it[0].ExposedComm != want {
				t.Errorf("got iterations %+v, want one of %v with no compute", it, want)
			}
			cs := r.Collectives()
			if len(cs) != 1 || cs[0].Issued != 0 || cs[0].Start != DefaultSendLatency || cs[0].End != want || cs[0].Bytes != s || cs[0].Group != "dp0" {
				t.Errorf("got collectives %+v, want one from 0 (first post %v) to %v on dp0", cs, DefaultSendLatency, want)
			}
			if net, nv := r.Transfers(); net != tt.n*tt.steps*tt.flowsPer || nv != 0 {
				t.Errorf("got %d network and %d NVLink transfers, want %d and 0", net, nv, tt.n*tt.steps*tt.flowsPer)
			}
		})
	}
}

// TestBusBandwidth: with no latencies a ring all-reduce keeps every link
// busy, so its bus bandwidth is the link rate (NCCL's definition).
func TestBusBandwidth(t *testing.T) {
	// All-to-all is left out: on the contention-free ideal network a rank's
	// n-1 sends overlap, which its single NIC could not do.
	for _, op := range []string{"allreduce", "reducescatter", "allgather"} {
		for _, n := range []int{2, 4, 8} {
			w, _ := Microbench(op, 64*engine.MiB, n)
			cfg := DefaultRunConfig()
			cfg.SendLatency = 0
			d := runIdeal(t, newRun(t, w, cfg), LinkTime(100*engine.Gbps, 0))
			o, _ := ParseOp(op)
			if got := BusBandwidth(o, 64*engine.MiB, n, d); got < 100*(1-1e-9) || got > 100*(1+1e-9) {
				t.Errorf("%s n=%d: got bus bandwidth %v Gbps, want 100", op, n, got)
			}
		}
	}
	// Definitions: algbw = S/t; busbw = algbw * 2(n-1)/n or (n-1)/n.
	if got := AlgBandwidth(1e9/8, engine.Second); got != 1 {
		t.Errorf("AlgBandwidth: got %v Gbps, want 1", got)
	}
	if got := BusBandwidth(OpAllReduce, 1e9/8, 4, engine.Second); got != 1.5 {
		t.Errorf("BusBandwidth allreduce n=4: got %v, want 1.5", got)
	}
	if got := BusBandwidth(OpAllGather, 1e9/8, 4, engine.Second); got != 0.75 {
		t.Errorf("BusBandwidth allgather n=4: got %v, want 0.75", got)
	}
}

func TestMicrobenchErrors(t *testing.T) {
	for _, c := range []struct {
		op    string
		bytes int64
		n     int
		want  string
	}{
		{"broadcast", 1, 2, "op: unknown collective"}, {"none", 1, 2, "op: a micro-benchmark needs a collective"},
		{"allreduce", 0, 2, "bytes: must be >= 1, got 0"}, {"allreduce", 1, 1, "gpus: a collective needs >= 2 GPUs, got 1"},
	} {
		if _, err := Microbench(c.op, c.bytes, c.n); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Microbench(%s, %d, %d): got %v, want %q", c.op, c.bytes, c.n, err, c.want)
		}
	}
}

// TestExecutorMatchesExpand: the transfers the executor posts for one
// collective are exactly Expand's flows.
func TestExecutorMatchesExpand(t *testing.T) {
	for _, op := range []string{"allreduce", "reducescatter", "allgather", "alltoall"} {
		w, _ := Microbench(op, 1000003, 4)
		cfg := DefaultRunConfig()
		cfg.Channels = 3
		r := newRun(t, w, cfg)
		type key struct {
			src, dst, step, ch int
			bytes              int64
		}
		var got, want []key
		runIdeal(t, r, func(tr Transfer) engine.Time {
			var step, ch int
			tail := tr.Tag[strings.LastIndex(tr.Tag, "/")+1:]
			if _, err := fmt.Sscanf(tail, "s%dc%d", &step, &ch); err != nil {
				t.Fatalf("tag %q: %v", tr.Tag, err)
			}
			if tr.Src != tr.SrcGPU || tr.Dst != tr.DstGPU {
				t.Errorf("one GPU per host: got hosts %d->%d for GPUs %d->%d", tr.Src, tr.Dst, tr.SrcGPU, tr.DstGPU)
			}
			got = append(got, key{tr.SrcGPU, tr.DstGPU, step, ch, tr.Bytes})
			return engine.Microsecond
		})
		o, _ := ParseOp(op)
		for _, f := range r.Layout().Expand(o, 1000003, r.Layout().Group(GroupDP, 0), 3) {
			want = append(want, key{f.Src, f.Dst, f.Step, f.Channel, f.Bytes})
		}
		cmpKey := func(a, b key) int {
			return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
		}
		slices.SortFunc(got, cmpKey)
		slices.SortFunc(want, cmpKey)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(key{})); diff != "" {
			t.Errorf("%s: posted transfers differ from Expand (-want +got):\n%s", op, diff)
		}
	}
}

func TestTags(t *testing.T) {
	w := mustShipped(t, microFile)
	r := newRun(t, w, DefaultRunConfig())
	var tags []string
	runIdeal(t, r, func(tr Transfer) engine.Time {
		if len(tags) < 2 {
			tags = append(tags, tr.Tag)
		}
		return engine.Microsecond
	})
	want := []string{"i0/L0/embedding_layer.fwd/tp0/s0", "i0/L0/embedding_layer.fwd/tp0/s0"}
	if !slices.Equal(tags, want) {
		t.Errorf("got tags %q, want %q", tags, want)
	}
}

// TestZeroCostNetwork: with free transfers and no send latency the
// iteration time is the compute-only time of docs/model.md §7.5 (compute plus
// the update delays of the collectives on the critical path).
func TestZeroCostNetwork(t *testing.T) {
	tests := []struct {
		file      string
		gpus, per int
	}{
		{gptFile, 16, 1}, {gptFile, 16, 8}, {llamaFile, 8, 1}, {microFile, 8, 1}, {microFile, 8, 8},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d/%d", tt.file, tt.gpus, tt.per), func(t *testing.T) {
			w := mustShipped(t, tt.file)
			cfg := DefaultRunConfig()
			cfg.GPUs, cfg.GPUsPerHost, cfg.Iterations, cfg.SendLatency = tt.gpus, tt.per, 3, 0
			// NVLink transfers cannot be free: at 2^62 bit/s each takes a few
			// ps, rounded up, and the few thousand on an iteration's
			// critical path stay below tol.
			cfg.NVLinkRate = 1 << 62
			tol := engine.Time(0)
			if tt.per > 1 {
				tol = engine.Microsecond
			}
			r := newRun(t, w, cfg)
			end := runIdeal(t, r, zeroCost)
			want := zeroNetTime(w, r.Layout())
			if end < 3*want || end > 3*(want+tol) {
				t.Errorf("got end %v, want 3 x %v (+%v)", end, want, tol)
			}
			for i, it := range r.Iterations() {
				if it.Iteration != i || it.Duration < want || it.Duration > want+tol || it.Compute != w.Compute() {
					t.Errorf("iteration %d: got %+v, want duration %v (+%v), compute %v", i, it, want, tol, w.Compute())
				}
				if i > 0 && it.Start != r.Iterations()[i-1].End {
					t.Errorf("iteration %d starts at %v, want the previous end %v", i, it.Start, r.Iterations()[i-1].End)
				}
			}
		})
	}
}

// TestOverlap checks the blocking and non-blocking rules on a two-line
// workload over 2 GPUs (DP 2) whose weight-gradient all-reduce takes
// D = 2 steps x (6us + 10us).
func TestOverlap(t *testing.T) {
	const us = engine.Microsecond
	const d = 2 * (DefaultSendLatency + 10*us)
	mk := func(wgLine int) *Workload {
		w := &Workload{Policy: PolicyTransformer, TP: 1, EP: 1, PP: 1, VPP: 1, GA: 1, AllGPUs: 2, Lines: []Line{
			{Name: "a", Fwd: Stage{Compute: 10 * us}, IG: Stage{Compute: 5 * us}, WG: Stage{Compute: 3 * us}},
			{Name: "b", Fwd: Stage{Compute: 20 * us}, IG: Stage{Compute: 50 * us}, WG: Stage{Compute: 7 * us}},
		}}
		w.Lines[wgLine].WG.Comm = Comm{Op: OpAllReduce, Group: GroupDP, Bytes: 1}
		return w
	}
	// The all-reduce of 1 B moves 1-B flows; the network charges 10us each.
	net := func(Transfer) engine.Time { return 10 * us }
	tests := []struct {
		name   string
		line   int
		want   engine.Time
		issued engine.Time
	}{
		// Issued after line a's wg compute, the very end of the backward
		// pass: fully exposed.
		{"exposed", 0, 95*us + d, 95 * us},
		// Issued after line b's wg compute at 87us; only 8us of backward
		// remain to hide it.
		{"overlapped", 1, 87*us + d, 87 * us},
	}
	for _, tt := range tests {
		r := newRun(t, mk(tt.line), DefaultRunConfig())
		if end := runIdeal(t, r, net); end != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, end, tt.want)
		}
		it := r.Iterations()[0]
		if it.Compute != 95*us || it.ExposedComm != tt.want-95*us {
			t.Errorf("%s: got compute %v exposed %v, want 95us and %v", tt.name, it.Compute, it.ExposedComm, tt.want-95*us)
		}
		if c := r.Collectives()[0]; c.Issued != tt.issued || c.End != tt.want || c.Name != w0(tt.line)+".wg" {
			t.Errorf("%s: got collective %+v, want issued %v end %v", tt.name, c, tt.issued, tt.want)
		}
	}
}

func w0(line int) string { return []string{"a", "b"}[line] }

// TestMicroAllReduceFile checks the full semantics on SimAI's example: two
// blocking forward all-reduces over TP 8, each followed by the 1 ns update.
func TestMicroAllReduceFile(t *testing.T) {
	const rate = 100 * engine.Gbps
	w := mustShipped(t, microFile)
	r := newRun(t, w, DefaultRunConfig())
	end := runIdeal(t, r, LinkTime(rate, 0))
	ar := func(s int64) engine.Time { return 14 * (DefaultSendLatency + rate.TxTime(s/8)) }
	ns := engine.Nanosecond
	want := 556000*ns + ar(16*engine.MiB) + ns + 556000*ns + ar(64*engine.MiB) + ns + 4*ns
	if end != want {
		t.Errorf("got %v, want %v", end, want)
	}
}

// TestNVLink: a TP 8 all-reduce inside one 8-GPU server never touches the
// network and takes 14 steps of send latency + (S/8) at the NVLink rate.
func TestNVLink(t *testing.T) {
	w, _ := Microbench("allreduce", 8*engine.MiB, 8)
	cfg := DefaultRunConfig()
	cfg.GPUsPerHost, cfg.Channels = 8, 1 // one ring forced (SimAI would run 8)
	r := newRun(t, w, cfg)
	end := runIdeal(t, r, func(Transfer) engine.Time {
		t.Fatal("intra-host transfer posted to the network")
		return 0
	})
	if want := 14 * (DefaultSendLatency + DefaultNVLinkRate.TxTime(engine.MiB)); end != want {
		t.Errorf("got %v, want %v", end, want)
	}
	if net, nv := r.Transfers(); net != 0 || nv != 8*14 {
		t.Errorf("got %d network and %d NVLink transfers, want 0 and 112", net, nv)
	}
	// With two channels each GPU sends two half-size flows per step over
	// its one NVLink port, which serialises them; a channel's next step
	// may start while the other channel's flow still occupies the port,
	// hiding part of the send latency. So a step takes at least the send
	// latency plus one half-size flow, and the whole no longer than with
	// one channel.
	cfg.Channels = 2
	r = newRun(t, w, cfg)
	end2 := runIdeal(t, r, zeroCost)
	if lo := 14 * (DefaultSendLatency + DefaultNVLinkRate.TxTime(engine.MiB/2)); end2 < lo || end2 > end {
		t.Errorf("two channels: got %v, want in [%v, %v]", end2, lo, end)
	}
	if _, nv := r.Transfers(); nv != 2*8*14 {
		t.Errorf("two channels: got %d NVLink transfers, want 224", nv)
	}
	// 16 GPUs on 2 servers, TP 16: hosts exchange over the network.
	w, _ = Microbench("allreduce", 16*engine.MiB, 16)
	cfg.GPUsPerHost, cfg.Channels = 8, 1
	r = newRun(t, w, cfg)
	var hosts [][2]int
	runIdeal(t, r, func(tr Transfer) engine.Time {
		hosts = append(hosts, [2]int{tr.Src, tr.Dst})
		return 0
	})
	net, nv := r.Transfers()
	if net != 2*30 || nv != 14*30 {
		t.Errorf("TP 16 over 2 servers: got %d network and %d NVLink transfers, want 60 and 420", net, nv)
	}
	for _, h := range hosts {
		if h[0] == h[1] || h[0] > 1 || h[1] > 1 {
			t.Errorf("got network transfer between hosts %v, want 0<->1", h)
		}
	}
}

func TestExpertGroups(t *testing.T) {
	w := &Workload{Policy: PolicyTransformer, TP: 1, EP: 2, PP: 1, VPP: 1, GA: 1, Lines: []Line{{
		Name: "moe", Fwd: Stage{Compute: engine.Microsecond, Comm: Comm{Op: OpAllToAll, Group: GroupEP, Bytes: 1 << 20}},
		IG: Stage{Comm: Comm{Op: OpAllToAll, Group: GroupEP, Bytes: 1 << 20}},
		WG: Stage{Comm: Comm{Op: OpReduceScatter, Group: GroupDPEP, Bytes: 1 << 20}}, Update: 100 * engine.Nanosecond}}}
	cfg := DefaultRunConfig()
	cfg.GPUs = 8
	r := newRun(t, w, cfg)
	runIdeal(t, r, LinkTime(100*engine.Gbps, engine.Microsecond))
	got := map[string]int{}
	for _, c := range r.Collectives() {
		got[c.Name+" "+c.Group]++
	}
	want := map[string]int{}
	for i := 0; i < 4; i++ {
		want[fmt.Sprintf("moe.fwd ep%d", i)]++
		want[fmt.Sprintf("moe.ig ep%d", i)]++
	}
	want["moe.wg dpep0"], want["moe.wg dpep1"] = 1, 1
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("collectives (-want +got):\n%s", diff)
	}
}

// TestMicroPolicy: MICRO lines run one after another, each a blocking
// collective over every GPU.
func TestMicroPolicy(t *testing.T) {
	src := "MICRO\n2\nm\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLREDUCE\t4096\t1\nm\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLGATHER\t8192\t1\n"
	w, err := Parse("micro.txt", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultRunConfig()
	cfg.GPUs = 4
	r := newRun(t, w, cfg)
	const rate = 100 * engine.Gbps
	end := runIdeal(t, r, LinkTime(rate, 0))
	ns := engine.Nanosecond
	want := 3*ns + 6*(DefaultSendLatency+rate.TxTime(1024)) + ns + 3*ns + 3*(DefaultSendLatency+rate.TxTime(2048)) + ns
	if end != want {
		t.Errorf("got %v, want %v", end, want)
	}
	if cs := r.Collectives(); len(cs) != 2 || cs[0].Group != "world" || cs[1].Op != OpAllGather {
		t.Errorf("got collectives %+v, want an all-reduce then an all-gather on world", cs)
	}
}

// TestShippedGPT13B runs the GPT-13B file on 16 GPUs (TP 8, DP 2) over an
// ideal 100 Gbps network and checks what does not depend on the network.
func TestShippedGPT13B(t *testing.T) {
	w := mustShipped(t, gptFile)
	cfg := DefaultRunConfig()
	cfg.GPUs = 16
	r := newRun(t, w, cfg)
	end := runIdeal(t, r, LinkTime(100*engine.Gbps, 2*engine.Microsecond))
	it := r.Iterations()
	const compute = (74_645_010 + 73_471_011 + 60_080_012) * engine.Nanosecond
	if len(it) != 1 || it[0].Compute != compute || it[0].End != end || it[0].Duration < zeroNetTime(w, r.Layout()) {
		t.Errorf("got %+v, want compute %v and end %v", it, compute, end)
	}
	byGroup := map[string]int{}
	for _, c := range r.Collectives() {
		byGroup[c.Group[:2]]++
	}
	// Per TP group: 81+1+1+3+4 forward (the BROADCAST runs nothing) and
	// 81+1 input-gradient collectives; one DP reduce-scatter per DP group.
	// All are 14-step all-reduces except the 7-step forward all-gather; the
	// DP reduce-scatter over 2 ranks is one step.
	if want := map[string]int{"tp": 2 * (90 + 82), "dp": 8}; !cmp.Equal(byGroup, want) {
		t.Errorf("got collectives per kind %v, want %v", byGroup, want)
	}
	net, nv := r.Transfers()
	if want := 2*8*(171*14+7) + 8*2*1; net != want || nv != 0 {
		t.Errorf("got %d network transfers (%d NVLink), want %d", net, nv, want)
	}
	t.Logf("GPT-13B TP8 DP2, ideal 100G + 2us: iteration %v (compute %v, exposed %v), %d transfers", it[0].Duration, it[0].Compute, it[0].ExposedComm, net)
}

func TestDeterminism(t *testing.T) {
	w := mustShipped(t, llamaFile)
	run := func() (string, []IterationStat, []CollectiveStat) {
		cfg := DefaultRunConfig()
		cfg.GPUs, cfg.Iterations, cfg.Channels = 8, 2, 2
		r := newRun(t, w, cfg)
		var b strings.Builder
		runIdeal(t, r, func(tr Transfer) engine.Time {
			fmt.Fprintf(&b, "%d %d %d %d %s\n", tr.ID, tr.Src, tr.Dst, tr.Bytes, tr.Tag)
			return engine.Time(tr.ID%7+1) * engine.Microsecond
		})
		return b.String(), r.Iterations(), r.Collectives()
	}
	log1, it1, c1 := run()
	log2, it2, c2 := run()
	if log1 != log2 || !cmp.Equal(it1, it2) || !cmp.Equal(c1, c2) {
		t.Errorf("two identical runs differ")
	}
}

func TestNewRunErrors(t *testing.T) {
	w := mustShipped(t, gptFile)
	tests := []struct {
		name   string
		mutate func(c *RunConfig)
		want   string
	}{
		{"no gpus", func(c *RunConfig) {}, "gpus: not set and the workload " + gptFile + " has no all_gpus"},
		{"not multiple", func(c *RunConfig) { c.GPUs = 12 }, gptFile + ": gpus: 12 is not a multiple of tp 8 x pp 1"},
		{"per host", func(c *RunConfig) { c.GPUs, c.GPUsPerHost = 16, 0 }, gptFile + ": gpus_per_host: must be >= 1, got 0"},
		{"iterations", func(c *RunConfig) { c.GPUs, c.Iterations = 16, 0 }, "iterations: must be >= 1, got 0"},
		{"channels", func(c *RunConfig) { c.GPUs, c.Channels = 16, -1 }, "channels: must be >= 0 (0 = per group), got -1"},
		{"protocol", func(c *RunConfig) { c.GPUs, c.Protocol = 16, 3 }, "protocol: protocol(3)"},
		{"latency", func(c *RunConfig) { c.GPUs, c.SendLatency = 16, -1 }, "send_latency: must be >= 0, got -1ps"},
		{"nvlink", func(c *RunConfig) { c.GPUs, c.NVLinkRate = 16, 0 }, "nvlink_rate: must be > 0, got 0bps"},
		{"comm scale", func(c *RunConfig) { c.GPUs, c.CommScale = 16, 0 }, "comm_scale: must be in (0, 1e6], got 0"},
		{"compute scale", func(c *RunConfig) { c.GPUs, c.ComputeScale = 16, -1 }, "compute_scale: must be in (0, 1e6], got -1"},
	}
	for _, tt := range tests {
		cfg := DefaultRunConfig()
		tt.mutate(&cfg)
		_, err := NewRun(w, cfg)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestScale(t *testing.T) {
	w := mustShipped(t, microFile)
	cfg := DefaultRunConfig()
	cfg.CommScale, cfg.ComputeScale, cfg.SendLatency = 0.5, 2, 0
	r := newRun(t, w, cfg)
	const rate = 100 * engine.Gbps
	end := runIdeal(t, r, LinkTime(rate, 0))
	ns := engine.Nanosecond
	ar := func(s int64) engine.Time { return 14 * rate.TxTime(s/8) }
	want := 2*556000*ns + ar(8*engine.MiB) + ns + 2*556000*ns + ar(32*engine.MiB) + ns + 8*ns
	if end != want {
		t.Errorf("got %v, want %v", end, want)
	}
	if c := r.Collectives()[0]; c.Bytes != 8*engine.MiB {
		t.Errorf("got scaled size %d, want %d", c.Bytes, 8*engine.MiB)
	}
}

func TestPanics(t *testing.T) {
	w, _ := Microbench("allreduce", 1000, 2)
	r := newRun(t, w, DefaultRunConfig())
	expectPanic := func(name string, f func()) {
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	expectPanic("wake before start", func() { r.Wake(0, 0) })
	r.Start(0)
	expectPanic("start twice", func() { r.Start(0) })
	expectPanic("unknown transfer", func() { r.Done(0, 99) })
	expectPanic("bad token", func() { r.Wake(0, 3) })
}

// TestProperties runs random small workloads on random layouts over an
// ideal network and checks the invariants: every rank finishes, no
// iteration is shorter than its compute or than the zero-cost oracle, and
// the executor moves exactly the flows Expand describes.
func TestProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tp := rapid.SampledFrom([]int{1, 2, 4}).Draw(t, "tp")
		ep := rapid.SampledFrom([]int{1, 2}).Draw(t, "ep")
		dp := ep * rapid.SampledFrom([]int{1, 2}).Draw(t, "dpPerEP")
		perHost := 1
		if tp*dp%2 == 0 {
			perHost = rapid.SampledFrom([]int{1, 2}).Draw(t, "perHost")
		}
		w := &Workload{Policy: PolicyTransformer, TP: tp, EP: ep, PP: 1, VPP: 1, GA: 1, AllGPUs: tp * dp}
		if rapid.Bool().Draw(t, "micro") {
			w = &Workload{Policy: PolicyMicro, TP: 1, EP: 1, PP: 1, VPP: 1, GA: 1, AllGPUs: tp * dp}
		}
		n := rapid.IntRange(0, 5).Draw(t, "lines")
		for i := 0; i < n; i++ {
			l := Line{Name: fmt.Sprintf("l%d", i), Dep: -1, Update: engine.Time(rapid.IntRange(0, 200).Draw(t, "upd")) * engine.Nanosecond}
			for p := Fwd; p <= WG; p++ {
				s := l.Stage(p)
				s.Compute = engine.Time(rapid.IntRange(0, 50).Draw(t, "compute")) * engine.Microsecond
				op := Op(rapid.IntRange(0, int(OpAllReduceAllToAll)).Draw(t, "op"))
				if op == OpNone {
					continue
				}
				groups := []GroupKind{defaultGroup(w.Policy, p), GroupEP, GroupDPEP}
				s.Comm = Comm{Op: op, Group: rapid.SampledFrom(groups).Draw(t, "group"), Bytes: int64(rapid.IntRange(0, 100000).Draw(t, "bytes"))}
			}
			w.Lines = append(w.Lines, l)
		}
		cfg := DefaultRunConfig()
		cfg.GPUsPerHost = perHost
		cfg.Channels = rapid.IntRange(1, 2).Draw(t, "channels")
		cfg.Iterations = rapid.IntRange(1, 2).Draw(t, "iterations")
		cfg.SendLatency = engine.Time(rapid.IntRange(0, 6).Draw(t, "sendLat")) * engine.Microsecond
		r, err := NewRun(w, cfg)
		if err != nil {
			t.Fatal(err)
		}
		rate := engine.Rate(rapid.IntRange(1, 400).Draw(t, "gbps")) * engine.Gbps
		if _, err := RunIdeal(r, LinkTime(rate, engine.Microsecond)); err != nil {
			t.Fatal(err)
		}
		its := r.Iterations()
		if len(its) != cfg.Iterations {
			t.Fatalf("got %d iterations, want %d", len(its), cfg.Iterations)
		}
		floor := zeroNetTime(w, r.Layout())
		for _, it := range its {
			if it.Duration < it.Compute || it.ExposedComm < 0 || it.Compute != w.Compute() {
				t.Fatalf("iteration %+v below its compute %v", it, w.Compute())
			}
			if perHost == 1 && it.Duration < floor {
				t.Fatalf("iteration %+v below the zero-cost time %v", it, floor)
			}
		}
		l := r.Layout()
		want := 0
		for i := range w.Lines {
			for p := Fwd; p <= WG; p++ {
				if !active(w, l, i, p) {
					continue
				}
				c := w.Lines[i].Stage(p).Comm
				for _, g := range l.Groups(c.Group) {
					want += len(l.Expand(c.Op, w.Lines[i].CommBytes(p), g, cfg.Channels))
				}
			}
		}
		if net, nv := r.Transfers(); net+nv != want*cfg.Iterations {
			t.Fatalf("got %d+%d transfers, want %d x %d", net, nv, want, cfg.Iterations)
		}
	})
}
