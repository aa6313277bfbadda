package rnic_test

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// spray is a test-only router that sprays a QP's data packets over the
// equal-cost next hops: packets with an even index (Seq/1000) take the
// hop with the longest wire, odd ones the shortest; control packets take
// the shortest. Packets of one QP then arrive out of order.
type spray struct{}

func (spray) Route(sw *fabric.Switch, p *fabric.Packet, _ int) int {
	hops := sw.Routes(p.Dst)
	lo, hi := hops[0], hops[0]
	for _, h := range hops {
		if sw.Ports[h].Delay < sw.Ports[lo].Delay {
			lo = h
		}
		if sw.Ports[h].Delay > sw.Ports[hi].Delay {
			hi = h
		}
	}
	if p.Kind == fabric.Data && (p.Seq/1000)%2 == 0 {
		return int(hi)
	}
	return int(lo)
}

// sprayRig is two hosts on two leaves joined by two spines at 100 Gbps,
// every wire 1 us except leaf0-spine1 (3 us), with the spraying router:
// host 0's even packets arrive at host 1 2 us after the odd ones.
func sprayRig(t *testing.T, selective bool, mapping rnic.Mapping) *rig {
	t.Helper()
	return twoPathRig(t, spray{}, 2*engine.Microsecond, nil, func(c *rnic.Config) {
		c.Selective, c.Mapping = selective, mapping
	})
}

// twoPathRig is two hosts on two leaves joined by two spines at 100 Gbps,
// every wire 1 us except leaf0-spine1, which is 1 us + extra, routed by
// router; fabricCfg and nicCfg (if not nil) change the fabric's and the
// NICs' configuration (line rate, fair sharing, per-flow QPs, MTU 1000,
// go-back-N) last.
func twoPathRig(t *testing.T, router fabric.Router, extra engine.Time, fabricCfg func(*fabric.Config), nicCfg func(*rnic.Config)) *rig {
	t.Helper()
	topo, err := fabric.SpineLeaf(fabric.SpineLeafConfig{Leaves: 2, HostsPerLeaf: 1, Spines: 2,
		HostLink: 100 * engine.Gbps, FabricLink: 100 * engine.Gbps, Delay: engine.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	leaf0, spine1 := 2, 5
	for i, l := range topo.Links {
		if l.A == leaf0 && l.B == spine1 {
			topo.Links[i].Delay += extra
		}
	}
	fcfg := fabric.DefaultConfig()
	fcfg.Router = router
	if fabricCfg != nil {
		fabricCfg(&fcfg)
	}
	sim := engine.NewSim(1)
	net, err := fabric.Build(sim, topo, fcfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{sim: sim, net: net}
	cfg := rnic.Config{MTU: 1000, Headers: rocev2.ReferenceHeaders, DataClass: 3, AckInterval: 1,
		NackInterval: 500 * engine.Microsecond, RTO: 5 * engine.Millisecond,
		Mapping: rnic.Mapping{PerFlow: true}, CC: lineRateSpec()}
	cfg.CCEnv.LineRate = 100 * engine.Gbps
	if nicCfg != nil {
		nicCfg(&cfg)
	}
	r.c, err = rnic.NewCluster(net, cfg, func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(3) })
	if err != nil {
		t.Fatal(err)
	}
	r.c.OnComplete = func(m *rnic.Message) { r.done = append(r.done, m) }
	return r
}

// Two packets, the first on the slow path: it arrives second. Selective
// repeat holds the second, NACKs it with its range, the requester resends
// the first once (a spurious resend: it was only late) and the ACK of
// 2000, sent when the original first packet arrives (4 serialisations of
// 1048 B and 6 us), completes the message 4 serialisations of 60 B and
// 4 us later. Go-back-N discards the second packet and resends both.
func TestSelectiveRepeatReordered(t *testing.T) {
	var fct [2]engine.Time
	for i, sel := range []bool{false, true} {
		r := sprayRig(t, sel, rnic.Mapping{PerFlow: true})
		m := r.postAt(0, 0, 1, 2000)
		r.drain(t)
		// In both modes the resent first packet arrives after the per-flow
		// receive state ended: a duplicate, not payload.
		if k := r.c.Counters; !m.Done || k.PayloadInOrder != 2000 || k.DuplicateData != 1 || k.OutOfOrderData != 1 {
			t.Fatalf("selective %v: done %v, %d B in order, %d duplicates, %d out of order; want done, 2000 B, 1, 1",
				sel, m.Done, k.PayloadInOrder, k.DuplicateData, k.OutOfOrderData)
		}
		fct[i] = m.FCT()
		k := r.c.Counters
		wantRetx := map[bool]int64{false: 2000, true: 1000}[sel]
		if k.Retransmitted != wantRetx || k.Nacks != 1 || k.RTOs != 0 {
			t.Errorf("selective %v: %d B retransmitted, %d NACKs, %d RTOs; want %d, 1, 0", sel, k.Retransmitted, k.Nacks, k.RTOs, wantRetx)
		}
	}
	if want := 4*ser(1048) + 6*engine.Microsecond + 4*(ser(60)+engine.Microsecond); fct[1] != want {
		t.Errorf("selective repeat: fct %v, want %v", fct[1], want)
	}
	if fct[0] <= fct[1] {
		t.Errorf("go-back-N fct %v, want longer than selective repeat's %v", fct[0], fct[1])
	}
}

// A 1 MB message sprayed packet by packet: every packet after the first
// arrives out of order relative to its predecessor. Both receivers deliver
// every byte; selective repeat resends far less.
func TestSelectiveRepeatSprayed(t *testing.T) {
	var retx [2]int64
	for i, sel := range []bool{false, true} {
		r := sprayRig(t, sel, rnic.Mapping{PerFlow: true})
		m := r.postAt(0, 0, 1, 1_000_000)
		r.drain(t)
		if !m.Done || r.c.Counters.PayloadInOrder < 1_000_000 {
			t.Fatalf("selective %v: done %v, %d B in order", sel, m.Done, r.c.Counters.PayloadInOrder)
		}
		retx[i] = r.c.Counters.Retransmitted
		t.Logf("selective %v: fct %v, %d B retransmitted, %d NACKs, %d RTOs", sel, m.FCT(), retx[i], r.c.Counters.Nacks, r.c.Counters.RTOs)
	}
	if retx[1] >= retx[0] {
		t.Errorf("retransmitted: selective repeat %d B, go-back-N %d B; want less under selective repeat", retx[1], retx[0])
	}
}

// READs, WRITEs and an ATOMIC on one pooled QP under selective repeat
// with spraying: all complete, in posting order, with the ATOMIC's value.
func TestSelectiveRepeatVerbs(t *testing.T) {
	r := sprayRig(t, true, rnic.Mapping{Pool: 1})
	var order []int64
	var ms []*rnic.Message
	for i, v := range []rocev2.Verb{rocev2.Write, rocev2.Read, rocev2.FetchAdd, rocev2.Send, rocev2.Read} {
		m := r.c.NewMessage(0, 1, int64(5000+1000*i))
		m.Verb = v
		m.Ext = &rnic.Ext{Operand: 3, OnDone: func(m *rnic.Message) { order = append(order, m.ID) }}
		ms = append(ms, r.post(0, m))
	}
	r.drain(t)
	for i, m := range ms {
		if !m.Done || len(order) <= i || order[i] != m.ID {
			t.Fatalf("completion order %v, want the posting order of %d WQEs", order, len(ms))
		}
	}
	if ms[2].Ext.Result != 0 || r.c.Hosts[1].Word(0) != 3 {
		t.Errorf("FETCH_ADD: result %d, word %d; want 0 and 3", ms[2].Ext.Result, r.c.Hosts[1].Word(0))
	}
}
