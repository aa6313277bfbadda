package storm_test

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/sched/schedtest"
	"github.com/dcsim/dcsim/sched/storm"
)

func stormWith(v storm.Variant, mutate func(*storm.Params)) func(*rnic.Host) rnic.Scheduler {
	p := storm.DefaultParamsFor(v)
	if mutate != nil {
		mutate(&p)
	}
	return storm.New(p, storm.Env{})
}

func fair(*rnic.Host) rnic.Scheduler { return baselines.NewFair(3) }

// strictSwitch serves every switch class by strict priority, as STORM
// experiments do (docs/model.md §6.7: switch discipline strict).
func strictSwitch(f *fabric.Config) { f.Strict = 0xff }

// docs/model.md §11.2: 64 KiB and 16 MB start together on one 100 Gbps link.
// Fluid, the 64 KiB message finishes at S/C = 5.24 us under SRPT and 2S/C
// = 10.49 us under processor sharing. Here the two go from host 0 to hosts
// 1 and 2 (one QP each), so the sender's NIC is the only shared resource,
// and the 64 KiB message's FCT is compared with its FCT alone under the
// same scheduler (which includes the RTT and, for storm, the grant).
//
// The packet-level equivalents are exact: the 16 MB message is posted
// first and its first packet is already on the wire when the 64 KiB one
// arrives, so a size-aware scheduler delays the small message by at most
// that one packet (1048 B = 83.84 ns); sharing packet by packet delays it
// by its own serialization (66 packets, 68,704 B on the wire = 5.496 us),
// i.e. the fluid 2x on the transmission part of its FCT. Tolerance: one
// packet for the first, 2% for the second.
func TestMicroSmallBeforeLarge(t *testing.T) {
	const small, large = 64 << 10, 16_000_000
	const onePacket = 1048 * 80 * engine.Picosecond
	const smallWire = (65*1048 + 536 + 48) * 80 * engine.Picosecond
	cases := []struct {
		name   string
		new    func(*rnic.Host) rnic.Scheduler
		sizeOK bool // size-aware: the small message goes first
	}{
		{"fair", fair, false},
		{"pias", baselines.NewPIAS(baselines.DefaultPIASParams()), false}, // equal bytes sent: both share each level
		{"srpt", baselines.NewSRPT(baselines.DefaultSRPTParams()), true},
		{"storm", stormWith(storm.Full, nil), true},                                                       // 64 KiB > 1 BDP (52 KB): needs a grant
		{"storm-bdp-102500", stormWith(storm.Full, func(p *storm.Params) { p.BDPBytes = 102_500 }), true}, // 64 KiB is P_small
		{"storm-sender", stormWith(storm.SenderOnly, nil), true},
		{"storm-sw", stormWith(storm.Software, nil), false}, // both P_low, round robin
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			solo := schedtest.NewRig(t, schedtest.Config{Hosts: 3, Fabric: strictSwitch}, c.new)
			alone := solo.PostAt(0, 0, 1, small, 0)
			if !solo.Run(engine.Second) {
				t.Fatal(solo.Stuck())
			}
			both := schedtest.NewRig(t, schedtest.Config{Hosts: 3, Fabric: strictSwitch}, c.new)
			big := both.PostAt(0, 0, 2, large, 0)
			m := both.PostAt(0, 0, 1, small, 0)
			if !both.Run(engine.Second) {
				t.Fatal(both.Stuck())
			}
			extra := m.FCT() - alone.FCT()
			t.Logf("64 KiB: solo %v, beside 16 MB %v (%.3fx, +%v); 16 MB %v",
				alone.FCT(), m.FCT(), float64(m.FCT())/float64(alone.FCT()), extra, big.FCT())
			if c.sizeOK && (extra < 0 || extra > onePacket) {
				t.Errorf("64 KiB FCT %v beside 16 MB, solo %v: delayed %v, want 0..%v (one packet)", m.FCT(), alone.FCT(), extra, onePacket)
			}
			if d := float64(extra-smallWire) / float64(smallWire); !c.sizeOK && (d < -0.02 || d > 0.02) {
				t.Errorf("64 KiB FCT %v beside 16 MB, solo %v: delayed %v, want its own serialization %v within 2%%", m.FCT(), alone.FCT(), extra, smallWire)
			}
		})
	}
}

// The backlog signal (docs/model.md §6.6). Host 0 has two per-pair QPs: A
// to host 1 with ten transactions queued (distinct TxnIDs, so they are ten
// transactions, not one group), B to host 2 with one transaction slightly
// smaller than each of A's. SRPT sees only the head-of-line remaining
// size, so B (smaller) goes first and A's first transaction waits for all
// of B. STORM ranks backlog before size: A's queued transactions stand for
// blocked dependent work, so A is served first and B waits.
//
// Two sizes: all transactions within 1 BDP (every packet P_small; only
// the urgency order decides), and all beyond it (A's first BDP goes at
// P_backlog, B's at P_low, and the receivers' grants keep those classes).
func TestBacklogFirst(t *testing.T) {
	for _, sz := range []struct {
		name string
		a, b int64
	}{
		{"within-bdp", 40_000, 30_000},
		{"beyond-bdp", 200_000, 150_000},
	} {
		for _, c := range []struct {
			name      string
			new       func(*rnic.Host) rnic.Scheduler
			aFirstWin bool // A's first transaction finishes before B
		}{
			{"srpt", baselines.NewSRPT(baselines.DefaultSRPTParams()), false},
			{"storm", stormWith(storm.Full, nil), true},
			{"storm-sender", stormWith(storm.SenderOnly, nil), true},
		} {
			t.Run(sz.name+"/"+c.name, func(t *testing.T) {
				r := schedtest.NewRig(t, schedtest.Config{Hosts: 3, Mapping: rnic.Mapping{Pool: 1}, Fabric: strictSwitch}, c.new)
				var a []*rnic.Message
				for i := 0; i < 10; i++ {
					a = append(a, r.PostAt(0, 0, 1, sz.a, int64(i+1)))
				}
				b := r.PostAt(0, 0, 2, sz.b, 100)
				if !r.Run(engine.Second) {
					t.Fatal(r.Stuck())
				}
				before := 0 // A's transactions finished before B
				for _, m := range a {
					if m.Finished < b.Finished {
						before++
					}
				}
				t.Logf("B finished at %v, after %d of A's 10 transactions; A's first at %v, A's last at %v",
					b.Finished, before, a[0].Finished, a[9].Finished)
				if got := a[0].Finished < b.Finished; got != c.aFirstWin {
					t.Errorf("A's first transaction (%v) before B (%v): got %v, want %v", a[0].Finished, b.Finished, got, c.aFirstWin)
				}
				if c.aFirstWin && before < 5 {
					t.Errorf("B finished after %d of A's transactions, want >= 5 (A is served first)", before)
				}
				if !c.aFirstWin && before != 0 {
					t.Errorf("B finished after %d of A's transactions, want 0 (SRPT serves the smaller B first)", before)
				}
			})
		}
	}
}

// The in-order guard (docs/model.md §6.7 and §11.2: "zero NACKs caused by
// reordering"). Four senders, one per-pair QP each, post to host 0
// alternating transactions of 120 KB and 20 KB, so every QP changes class
// at each transaction boundary (P_backlog or P_low, then P_small) while
// its earlier packets still queue at the congested strict-priority port
// to host 0. Without a guard the promoted packets overtake those queued
// earlier and the receiver NACKs; with stall or inherit no packet
// overtakes another of its QP: zero NACKs in a lossless fabric.
func TestInOrderGuard(t *testing.T) {
	for _, c := range []struct {
		v     storm.Variant
		guard string
	}{
		{storm.Full, storm.GuardOff},
		{storm.Full, storm.GuardStall},
		{storm.Full, storm.GuardInherit},
		{storm.SenderOnly, storm.GuardOff},
		{storm.SenderOnly, storm.GuardStall},
		{storm.Software, storm.GuardOff},
		{storm.Software, storm.GuardStall},
	} {
		t.Run(string(c.v)+"/"+c.guard, func(t *testing.T) {
			r := schedtest.NewRig(t, schedtest.Config{Hosts: 5, Mapping: rnic.Mapping{Pool: 1}, Fabric: strictSwitch},
				stormWith(c.v, func(p *storm.Params) { p.Guard = c.guard }))
			id := int64(0)
			for s := 1; s <= 4; s++ {
				for i := 0; i < 6; i++ {
					size := int64(120_000)
					if i%2 == 1 {
						size = 20_000
					}
					id++
					r.PostAt(0, s, 0, size, id)
				}
			}
			if !r.Run(engine.Second) {
				t.Fatal(r.Stuck())
			}
			if err := r.Cluster.CheckDrained(); err != nil {
				t.Fatal(err)
			}
			st := storm.Total(r.Cluster.Hosts)
			nacks := r.Cluster.Counters.Nacks
			t.Logf("%d NACKs, %d guard stalls, %d packets in an inherited class, %d out-of-order arrivals",
				nacks, st.GuardStalls, st.GuardInherited, r.Cluster.Counters.OutOfOrderData)
			switch c.guard {
			case storm.GuardOff:
				if nacks == 0 {
					t.Errorf("no guard: got 0 NACKs, want > 0 (the case must reorder, or it tests nothing)")
				}
			case storm.GuardStall:
				if nacks != 0 || st.GuardStalls == 0 {
					t.Errorf("guard stall: got %d NACKs and %d stalls, want 0 NACKs and > 0 stalls", nacks, st.GuardStalls)
				}
			case storm.GuardInherit:
				if nacks != 0 || st.GuardInherited == 0 {
					t.Errorf("guard inherit: got %d NACKs and %d inherited packets, want 0 and > 0", nacks, st.GuardInherited)
				}
			}
		})
	}
}

// grantWatch records grants reaching the sender's NIC and the sender's
// first data packet beyond the first BDP.
type grantWatch struct {
	fabric.NopObserver
	arrived     []engine.Time
	firstBeyond engine.Time
	bdp         int64
}

func (w *grantWatch) Deliver(now engine.Time, _ *fabric.Port, p *fabric.Packet) {
	if p.Kind == fabric.Grant {
		w.arrived = append(w.arrived, now)
	}
}

func (w *grantWatch) Transmit(now engine.Time, _ *fabric.Port, p *fabric.Packet) {
	if p.Kind == fabric.Data && p.Seq >= w.bdp && w.firstBeyond == 0 {
		w.firstBeyond = now
	}
}

// grantTx records grants leaving the receiver's NIC.
type grantTx struct {
	fabric.NopObserver
	sent []engine.Time
}

func (g *grantTx) Transmit(now engine.Time, _ *fabric.Port, p *fabric.Packet) {
	if p.Kind == fabric.Grant {
		g.sent = append(g.sent, now)
	}
}

// Grants are packets: they leave the receiver's NIC, cross the switch in
// class 0 and reach the sender one one-way delay later (two links of 1 us
// plus 60 B of serialization each: 2.0096 us, more under queueing), and
// no byte beyond the first BDP leaves before the grant is there. With the
// topology's BDP (52 KB) the grant arrives while the first BDP is still
// going out; with bdp_bytes = 10 KB the sender waits for it, and its next
// packet leaves the instant it arrives.
func TestGrantsCrossTheFabric(t *testing.T) {
	for _, c := range []struct {
		name string
		bdp  int64
		wait bool
	}{{"topology-bdp", 0, false}, {"bdp-10KB", 10_000, true}} {
		t.Run(c.name, func(t *testing.T) {
			r := schedtest.NewRig(t, schedtest.Config{Hosts: 2, Fabric: strictSwitch},
				stormWith(storm.Full, func(p *storm.Params) { p.BDPBytes = c.bdp }))
			w := &grantWatch{bdp: r.BDP}
			if c.bdp > 0 {
				w.bdp = c.bdp
			}
			tx := &grantTx{}
			r.Net.HostPorts[1].Observer = tx     // receiver NIC's egress
			r.Net.HostPorts[0].Observer = w      // sender NIC's egress: its data
			r.Net.HostPorts[0].Peer.Observer = w // switch port towards the sender: grant arrivals
			m := r.PostAt(0, 0, 1, 1_000_000, 0)
			if !r.Run(engine.Second) {
				t.Fatal(r.Stuck())
			}
			if len(tx.sent) != 1 || len(w.arrived) != 1 {
				t.Fatalf("grants sent %d, arrived %d, want 1 and 1 (one remainder grant)", len(tx.sent), len(w.arrived))
			}
			oneWay := 2 * (engine.Microsecond + 60*80*engine.Picosecond)
			lat := w.arrived[0] - tx.sent[0]
			if lat < oneWay || lat > oneWay+engine.Microsecond {
				t.Errorf("grant took %v from receiver to sender, want >= the one-way delay %v (and < +1 us)", lat, oneWay)
			}
			st := storm.Total(r.Cluster.Hosts)
			// The sender's latency counts from the grant's SentAt, when the
			// receiver queued it, so it is at least the wire-to-wire time.
			if st.GrantLatencyMin < lat || st.GrantsSent != 1 || st.GrantsReceived != 1 {
				t.Errorf("stats: %+v, want 1 grant sent and received with latency >= %v", st, lat)
			}
			if w.firstBeyond < w.arrived[0] {
				t.Errorf("first byte beyond the first BDP left at %v, before the grant arrived at %v", w.firstBeyond, w.arrived[0])
			}
			if c.wait && w.firstBeyond != w.arrived[0] {
				t.Errorf("first byte beyond the first BDP left at %v, want the grant's arrival %v (the QP was waiting)", w.firstBeyond, w.arrived[0])
			}
			t.Logf("grant sent %v, arrived %v (%v); first byte beyond %d B at %v; fct %v",
				tx.sent[0], w.arrived[0], lat, w.bdp, w.firstBeyond, m.FCT())
		})
	}
}

// When a transaction's class is decided (docs/model.md §6.7 variants). One
// per-pair QP gets three 200 KB transactions at once, and a fourth QP a
// 20 KB one. storm and storm-sender decide when a transaction becomes the
// head of line, from the backlog then: the first is HOL as soon as it is
// posted (its first packet leaves at once) with nothing behind it, so
// P_low; the second becomes HOL with one behind it, P_backlog; the third
// with none, P_low. storm-sw decides at posting, from the transactions
// already queued (0, 1, 2 ahead): P_low, P_backlog, P_backlog, and never
// revises. The 20 KB transaction is P_small everywhere. priorities = 2
// merges P_backlog into P_small; priorities = 1 sends everything in P_low.
func TestTaggingTime(t *testing.T) {
	for _, c := range []struct {
		name   string
		v      storm.Variant
		mutate func(*storm.Params)
		want   []int8 // first-packet class of 200 KB, 200 KB, 200 KB, 20 KB
	}{
		{"storm", storm.Full, nil, []int8{3, 2, 3, 1}},
		{"storm-sender", storm.SenderOnly, nil, []int8{3, 2, 3, 1}},
		{"storm-sw", storm.Software, nil, []int8{3, 2, 2, 1}},
		{"storm-2-priorities", storm.Full, func(p *storm.Params) { p.Priorities = 2 }, []int8{3, 1, 3, 1}},
		{"storm-1-priority", storm.Full, func(p *storm.Params) { p.Priorities = 1 }, []int8{3, 3, 3, 3}},
		{"storm-classes-4-5-6", storm.Full, func(p *storm.Params) { p.PSmall, p.PBacklog, p.PLow = 4, 5, 6 }, []int8{6, 5, 6, 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := schedtest.NewRig(t, schedtest.Config{Hosts: 3, Mapping: rnic.Mapping{Pool: 1}, Fabric: strictSwitch},
				stormWith(c.v, c.mutate))
			var ms []*rnic.Message
			for i := 0; i < 3; i++ {
				ms = append(ms, r.PostAt(0, 0, 1, 200_000, int64(i+1)))
			}
			ms = append(ms, r.PostAt(0, 0, 2, 20_000, 9))
			if !r.Run(engine.Second) {
				t.Fatal(r.Stuck())
			}
			for i, m := range ms {
				if m.FirstClass != c.want[i] {
					t.Errorf("transaction %d (%d B): first packet in class %d, want %d", i, m.Size, m.FirstClass, c.want[i])
				}
			}
		})
	}
}

// storm-sw's sw_decision_delay: a message reaches the NIC that long after
// it is posted, so a lone message's FCT grows by exactly the delay.
func TestSoftwareDecisionDelay(t *testing.T) {
	var fct []engine.Time
	for _, d := range []engine.Time{0, 5 * engine.Microsecond} {
		r := schedtest.NewRig(t, schedtest.Config{Hosts: 2}, stormWith(storm.Software, func(p *storm.Params) { p.SWDecisionDelay = d }))
		m := r.PostAt(0, 0, 1, 100_000, 0)
		if !r.Run(engine.Second) {
			t.Fatal(r.Stuck())
		}
		fct = append(fct, m.FCT())
	}
	if got, want := fct[1]-fct[0], 5*engine.Microsecond; got != want {
		t.Errorf("fct with 5 us delay %v, without %v: difference %v, want %v", fct[1], fct[0], got, want)
	}
}

// Transactions (docs/model.md §6.6: "grouped by a shared identifier;
// fallback is a short temporal grouping rule"). On one per-pair QP, with a
// 1 us window, 100 KB messages are posted at (time, TxnID):
//
//	(0, 7) (0.5us, 7) (0.6us, 0) (1.0us, 0) (3us, 0) (3.2us, 8) (3.4us, 8) (100us, 8)
//
// auto: {7,7} {0,0} {0} {8,8} {8}: ids decide, zeros group in time, and
// the last 8 is a new transaction because the earlier 8s were fully sent
// by then (the 700 KB before it take about 59 us). id: {7,7} {0} {0} {0}
// {8,8} {8}. temporal (ids ignored): {7,7,0,0} {0,8,8} {8}. none: 8.
func TestGrouping(t *testing.T) {
	posts := []struct {
		at engine.Time
		id int64
	}{{0, 7}, {500, 7}, {600, 0}, {1000, 0}, {3000, 0}, {3200, 8}, {3400, 8}, {100000, 8}}
	for _, c := range []struct {
		grouping string
		want     int64
	}{{storm.GroupAuto, 5}, {storm.GroupID, 6}, {storm.GroupTemporal, 3}, {storm.GroupNone, 8}} {
		t.Run(c.grouping, func(t *testing.T) {
			r := schedtest.NewRig(t, schedtest.Config{Hosts: 2, Mapping: rnic.Mapping{Pool: 1}},
				stormWith(storm.Full, func(p *storm.Params) { p.Grouping = c.grouping }))
			for _, p := range posts {
				r.PostAt(p.at*engine.Nanosecond, 0, 1, 100_000, p.id)
			}
			if !r.Run(engine.Second) {
				t.Fatal(r.Stuck())
			}
			st := storm.Total(r.Cluster.Hosts)
			if st.Transactions != c.want || st.Transactions+st.GroupedMessages != int64(len(posts)) {
				t.Errorf("got %d transactions (+%d grouped messages), want %d of %d messages",
					st.Transactions, st.GroupedMessages, c.want, len(posts))
			}
		})
	}
}
