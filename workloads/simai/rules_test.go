package simai

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// Tests of SimAI's rules (doc.go "Rules taken from SimAI"), each with the
// exact flow schedule it implies.

// TestChannelsPerGroup: SimAI gives a group one ring per rank it has on a
// server (MockNcclGroup::gen_local_ring), so LLaMA-7B's DP groups (TP 2,
// 8 GPUs per server) get 4 rings and GPT-13B's (TP 8) one.
func TestChannelsPerGroup(t *testing.T) {
	tests := []struct {
		gpus, perHost, tp int
		kind              GroupKind
		want              int
	}{
		{128, 8, 2, GroupTP, 2}, // LLaMA-7B: TP pair inside a server
		{128, 8, 2, GroupDP, 4}, // LLaMA-7B: 4 DP ranks per server
		{128, 8, 8, GroupTP, 8}, // GPT-13B: a whole server
		{128, 8, 8, GroupDP, 1}, // GPT-13B: one DP rank per server
		{128, 1, 2, GroupDP, 1}, // one GPU per host
		{16, 4, 8, GroupTP, 4},  // TP 8 across two 4-GPU servers
		{16, 4, 8, GroupDP, 1},
	}
	for _, tt := range tests {
		l, err := NewLayout(tt.gpus, tt.perHost, tt.tp, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < l.Count(tt.kind); i++ {
			if got := l.Channels(l.Group(tt.kind, i)); got != tt.want {
				t.Errorf("%d GPUs, %d per host, TP %d, %v group %d: got %d channels, want %d",
					tt.gpus, tt.perHost, tt.tp, tt.kind, i, got, tt.want)
			}
		}
	}
}

// TestChannelsFlowSchedule: 8 GPUs, 4 per host, TP 2. DP group 0 is ranks
// {0, 2, 4, 6}, two per host, so SimAI runs 2 rings: ring 0 is 0 2 4 6,
// ring 1 has each host's ranks rotated, 2 0 6 4 (genringchannels chains
// them host to host). A reduce-scatter of 8000 B moves S/(n*C) = 1000 B
// per flow, 3 steps per ring; the network carries only the host-crossing
// hops 2->4, 6->0 (ring 0) and 0->6, 4->2 (ring 1), each step after the
// sender received the previous step on its ring.
func TestChannelsFlowSchedule(t *testing.T) {
	w := &Workload{Policy: PolicyTransformer, TP: 2, EP: 1, PP: 1, VPP: 1, GA: 1, AllGPUs: 8, Lines: []Line{
		{Name: "a", WG: Stage{Comm: Comm{Op: OpReduceScatter, Group: GroupDP, Bytes: 8000}}},
	}}
	cfg := DefaultRunConfig()
	cfg.GPUsPerHost = 4
	type flow struct{ src, dst, step, ch, bytes int }
	var got []flow
	r := newRun(t, w, cfg)
	// Every network transfer takes 10us, NVLink its own time.
	end, err := RunIdeal(r, func(tr Transfer) engine.Time {
		var step, ch int
		tail := tr.Tag[strings.LastIndex(tr.Tag, "/")+1:]
		if _, err := fmt.Sscanf(tail, "s%dc%d", &step, &ch); err != nil {
			t.Fatalf("tag %q: %v", tr.Tag, err)
		}
		if strings.Contains(tr.Tag, "/dp0/") {
			got = append(got, flow{tr.SrcGPU, tr.DstGPU, step, ch, int(tr.Bytes)})
		}
		return 10 * engine.Microsecond
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []flow{}
	for step := 0; step < 3; step++ {
		want = append(want, flow{2, 4, step, 0, 1000}, flow{6, 0, step, 0, 1000}, flow{0, 6, step, 1, 1000}, flow{4, 2, step, 1, 1000})
	}
	key := func(a, b flow) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }
	slices.SortFunc(got, key)
	slices.SortFunc(want, key)
	if !slices.Equal(got, want) {
		t.Errorf("network flows:\ngot  %v\nwant %v", got, want)
	}
	if net, nv := r.Transfers(); net != 24 || nv != 24 {
		t.Errorf("got %d network and %d NVLink transfers (both DP groups), want 24 and 24", net, nv)
	}
	// Each step waits only for the receive of the previous one on its
	// ring. The critical path alternates hops: 6->0 over the network
	// (step 0, 6us + 10us), 0->2 over NVLink (step 1, 6us + 1000 B at
	// 2400 Gbps), 2->4 over the network (step 2, 6us + 10us).
	if want := 3*DefaultSendLatency + 20*engine.Microsecond + DefaultNVLinkRate.TxTime(1000); end != want {
		t.Errorf("got end %v, want %v", end, want)
	}
	// Forcing one channel gives one ring of 2000 B flows.
	cfg.Channels = 1
	r = newRun(t, w, cfg)
	var sizes []int64
	runIdeal(t, r, func(tr Transfer) engine.Time { sizes = append(sizes, tr.Bytes); return 0 })
	if len(sizes) != 12 || sizes[0] != 2000 {
		t.Errorf("force 1 channel: got network flows %v, want six of 2000 B per DP group", sizes)
	}
}

// dpQueueWorkload is 2 GPUs (DP 2, one per host) whose three lines each
// end their backward pass with a DP reduce-scatter of 2 B (one 1-B flow
// each way, one step), 1us of wg compute apart.
func dpQueueWorkload(tpIG bool) *Workload {
	us := engine.Microsecond
	w := &Workload{Policy: PolicyTransformer, TP: 1, EP: 1, PP: 1, VPP: 1, GA: 1, AllGPUs: 2}
	for i := 0; i < 3; i++ {
		w.Lines = append(w.Lines, Line{Name: string(rune('a' + i)), WG: Stage{Compute: us, Comm: Comm{Op: OpReduceScatter, Group: GroupDP, Bytes: 2}}})
	}
	if tpIG {
		w.TP, w.AllGPUs = 2, 4
		w.Lines[0].IG = Stage{Compute: 50 * us, Comm: Comm{Op: OpAllGather, Group: GroupTP, Bytes: 2}}
	}
	return w
}

// TestOneCollectivePerDimension: SimAI runs one stream per queue and
// dimension (Sys::SchedulerUnit, queue_threshold 1) and inserts a new
// stream ahead of the older waiting ones (LIFO priorities,
// Sys::insert_stream). Backward runs c, b, a: c's reduce-scatter starts at
// 1us (posted at 7us, delivered at 107us with 100us per transfer); b (2us)
// and a (3us) wait; at 107us the newest, a, starts, then b at 213us; the
// pass ends at 319us. With OverlapDP all three start when issued.
func TestOneCollectivePerDimension(t *testing.T) {
	us := engine.Microsecond
	net := func(Transfer) engine.Time { return 100 * us }
	tests := []struct {
		name    string
		overlap bool
		issued  map[string]engine.Time
		end     engine.Time
	}{
		{"simai", false, map[string]engine.Time{"c.wg": 1 * us, "a.wg": 107 * us, "b.wg": 213 * us}, 319 * us},
		{"overlap", true, map[string]engine.Time{"c.wg": 1 * us, "b.wg": 2 * us, "a.wg": 3 * us}, 109 * us},
	}
	for _, tt := range tests {
		cfg := DefaultRunConfig()
		cfg.OverlapDP = tt.overlap
		r := newRun(t, dpQueueWorkload(false), cfg)
		if end := runIdeal(t, r, net); end != tt.end {
			t.Errorf("%s: got end %v, want %v", tt.name, end, tt.end)
		}
		var order []string
		for _, c := range r.Collectives() {
			order = append(order, c.Name)
			if c.Issued != tt.issued[c.Name] || c.Start != c.Issued+DefaultSendLatency || c.End != c.Start+100*us {
				t.Errorf("%s: %s issued %v start %v end %v, want issued %v, start +6us, end +100us",
					tt.name, c.Name, c.Issued, c.Start, c.End, tt.issued[c.Name])
			}
		}
		if !tt.overlap && !slices.Equal(order, []string{"c.wg", "a.wg", "b.wg"}) {
			t.Errorf("%s: got completion order %v, want c a b (newest first)", tt.name, order)
		}
		if !tt.overlap {
			// At most one DP collective in flight per rank: the intervals
			// [Issued, End] do not overlap.
			cs := r.Collectives()
			for i := 1; i < len(cs); i++ {
				if cs[i].Issued < cs[i-1].End {
					t.Errorf("%s: %s issued at %v before %s ended at %v", tt.name, cs[i].Name, cs[i].Issued, cs[i-1].Name, cs[i-1].End)
				}
			}
		}
	}
}

// TestDimensionsAreIndependent: the model dimension (fwd and ig columns)
// has its own queue, so line a's blocking TP all-gather runs while c's DP
// reduce-scatter is still in flight.
func TestDimensionsAreIndependent(t *testing.T) {
	us := engine.Microsecond
	r := newRun(t, dpQueueWorkload(true), DefaultRunConfig())
	runIdeal(t, r, func(Transfer) engine.Time { return 100 * us })
	var dp, tp *CollectiveStat
	for i := range r.Collectives() {
		c := &r.Collectives()[i]
		switch {
		case c.Name == "c.wg" && dp == nil:
			dp = c
		case c.Name == "a.ig" && tp == nil:
			tp = c
		}
	}
	if dp == nil || tp == nil {
		t.Fatalf("got collectives %+v, want c.wg and a.ig", r.Collectives())
	}
	// c.wg issued at 1us, runs to 107us; a.ig issued at 2us+50us = 52us.
	if tp.Issued != 52*us || tp.Issued >= dp.End {
		t.Errorf("got TP all-gather issued %v (DP reduce-scatter %v..%v), want 52us, inside it", tp.Issued, dp.Issued, dp.End)
	}
}

// TestCompletionSemantics: SimAI releases a flow's sender when its last
// packet is serialised (entry.h send_finish) and its receiver when the
// last ACK reaches the sender (qp_finish). On 2 GPUs a blocking TP
// all-gather of 4096 B is one 2048-B flow each way; rank 0's part ends
// when its own flow is serialised (Sent at 10us) and the flow to it is
// acknowledged (Done at 20us), before its own flow's ACK (30us), and its
// next compute (5us) is then scheduled.
func TestCompletionSemantics(t *testing.T) {
	us := engine.Microsecond
	w := &Workload{Policy: PolicyTransformer, TP: 2, EP: 1, PP: 1, VPP: 1, GA: 1, AllGPUs: 2, Lines: []Line{
		{Name: "a", Fwd: Stage{Comm: Comm{Op: OpAllGather, Group: GroupTP, Bytes: 4096}}},
		{Name: "b", Fwd: Stage{Compute: 5 * us}},
	}}
	r := newRun(t, w, DefaultRunConfig())
	acts := r.Start(0)
	var ids [2]int // by sender rank
	for _, a := range acts {
		if a.Kind != Post || a.At != DefaultSendLatency || a.Transfer.Bytes != 2048 {
			t.Fatalf("got action %+v, want two posts of 2048 B at 6us", a)
		}
		ids[a.Transfer.SrcGPU] = a.Transfer.ID
	}
	if got := r.Sent(10*us, ids[0]); len(got) != 0 {
		t.Errorf("Sent alone: got actions %+v, want none (rank 0 has not received)", got)
	}
	got := r.Done(20*us, ids[1])
	if len(got) != 1 || got[0].Kind != Wake || got[0].At != 25*us || got[0].Token != 0<<2|tokRank {
		t.Errorf("rank 0 complete at 20us: got actions %+v, want rank 0's 5us compute to end at 25us", got)
	}
	got = r.Done(30*us, ids[0])
	if len(got) != 1 || got[0].Kind != Wake || got[0].At != 35*us || got[0].Token != 1<<2|tokRank {
		t.Errorf("rank 1 complete at 30us: got actions %+v, want rank 1's compute to end at 35us", got)
	}
	if c := r.Collectives(); len(c) != 1 || c[0].End != 30*us {
		t.Errorf("got collectives %+v, want one ending at 30us", c)
	}
	defer func() {
		if recover() == nil {
			t.Error("Sent twice: got no panic")
		}
	}()
	r.Sent(40*us, ids[0])
}

// TestSendLatencyTable: SimAI 1.7's Ring row, in ns (entry.h SendFlow):
// NVLink 7200 / 15900 / 11800, network 9300 / 18000 / 22400 for LL /
// LL128 / Simple. A 2-GPU all-reduce over the network (2 steps) with the
// table and Simple waits 22.4us before each step.
func TestSendLatencyTable(t *testing.T) {
	ns := engine.Nanosecond
	want := map[[2]int]engine.Time{
		{int(ProtoLL), 1}: 7200 * ns, {int(ProtoLL128), 1}: 15900 * ns, {int(ProtoSimple), 1}: 11800 * ns,
		{int(ProtoLL), 0}: 9300 * ns, {int(ProtoLL128), 0}: 18000 * ns, {int(ProtoSimple), 0}: 22400 * ns,
	}
	for k, v := range want {
		if got := SendLatencyFor(Protocol(k[0]), k[1] == 1); got != v {
			t.Errorf("%v same host %v: got %v, want %v", Protocol(k[0]), k[1] == 1, got, v)
		}
	}
	w, _ := Microbench("allreduce", 2000, 2)
	cfg := DefaultRunConfig()
	cfg.SendLatencyTable = true
	r := newRun(t, w, cfg)
	if end := runIdeal(t, r, func(Transfer) engine.Time { return engine.Microsecond }); end != 2*(22400*ns+engine.Microsecond) {
		t.Errorf("got %v, want 2 x (22.4us + 1us)", end)
	}
	for _, s := range []string{"ll", "ll128", "simple"} {
		if p, err := ParseProtocol(s); err != nil || p.String() != s {
			t.Errorf("ParseProtocol(%q) = %v, %v", s, p, err)
		}
	}
	if _, err := ParseProtocol("LL"); err == nil {
		t.Error(`ParseProtocol("LL"): got no error`)
	}
}

// TestQueueFollowsPeers: rank 0's part of c ends at 1.01us (its flow is
// serialised at once, rank 1's flow to it arrives after 10ns), before b
// and a are issued, so it starts b when b is issued at 2us. Rank 1's part
// ends at 6us (rank 0's flow takes 5us), when b and a both wait: SimAI's
// newest-first would pick a, and the two ranks would wait for each other
// for ever. dcsim's rank 1 follows rank 0 into b, then runs a.
func TestQueueFollowsPeers(t *testing.T) {
	us, ns := engine.Microsecond, engine.Nanosecond
	cfg := DefaultRunConfig()
	cfg.SendLatency = 0
	r := newRun(t, dpQueueWorkload(false), cfg)
	end, err := runIdealSent(r, func(Transfer) engine.Time { return ns }, func(tr Transfer) engine.Time {
		if tr.SrcGPU == 0 {
			return 5 * us
		}
		return 10 * ns
	})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range r.Collectives() {
		order = append(order, c.Name)
	}
	if !slices.Equal(order, []string{"c.wg", "b.wg", "a.wg"}) {
		t.Errorf("got completion order %v, want c b a", order)
	}
	// c: 1us..6us. b: rank 0 starts at 2us (its flow arrives at 7us),
	// rank 1 at 6us (arrives 6.01us); rank 0 is done at 6.01us, rank 1 at
	// 7us. a: rank 0 starts at 6.01us (its flow arrives at 11.01us), rank 1
	// at 7us; the last part ends at 11.01us.
	if want := 11*us + 10*ns; end != want {
		t.Errorf("got end %v, want %v", end, want)
	}
}

// TestQueuesNeverStall: generated MoE and bucketed-gradient workloads,
// whose ranks join TP, EP, DP and DP_EP groups, run to the end on an ideal
// network whose transfer times differ by sender (so ranks drift apart and
// release their queues at different moments), with and without the
// serialisation release. Compute is scaled down so that weight-gradient
// collectives are issued close together: with SimAI's per-rank choice
// alone, "dense buckets" stalls.
func TestQueuesNeverStall(t *testing.T) {
	m := mustModel(t, "mixtral-8x7b")
	m.Layers = 2
	dense := mustModel(t, "llama-7b")
	dense.Layers = 2
	for _, tc := range []struct {
		name string
		m    Model
		p    Parallelism
	}{
		{"moe", m, Parallelism{TP: 2, DP: 4, EP: 2}},
		{"moe buckets", m, Parallelism{TP: 2, DP: 4, EP: 2, OverlapGradReduce: true}},
		{"dense buckets", dense, Parallelism{TP: 2, DP: 4, OverlapGradReduce: true}},
	} {
		w, err := Generate(tc.m, tc.p, GPUs()[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, sent := range []bool{false, true} {
			cfg := DefaultRunConfig()
			cfg.GPUsPerHost = 2
			cfg.CommScale, cfg.ComputeScale = 0.001, 1e-4 // issues close together
			r := newRun(t, w, cfg)
			net := func(tr Transfer) engine.Time { return engine.Time(1+(tr.SrcGPU*7)%5) * engine.Microsecond }
			var sentTime func(Transfer) engine.Time
			if sent {
				sentTime = func(Transfer) engine.Time { return 500 * engine.Nanosecond }
			}
			if _, err := runIdealSent(r, sentTime, net); err != nil {
				t.Errorf("%s, sent %v: %v", tc.name, sent, err)
			}
		}
	}
}
