package storm

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/schedtest"
)

// grantLog records grants as the receiver's NIC puts them on the wire.
type grantLog struct {
	fabric.NopObserver
	to    []int32 // sender host of each grant
	class []uint8
}

func (g *grantLog) Transmit(_ engine.Time, _ *fabric.Port, p *fabric.Packet) {
	if p.Kind == fabric.Grant {
		g.to = append(g.to, p.Dst)
		g.class = append(g.class, decodeGrant(p.Arg).class)
	}
}

// The receiver's active set as published (docs/model.md §6.7, the literal
// reading: no preemption, updates or releases): one slot for candidates
// with backlog, one for those without; a free slot goes at once to the
// most urgent candidate of its kind (backlog desc, then remaining asc).
//
// Host 1 announces a 1 MB transaction first and takes the other slot.
// At 1 us host 2 (800 KB) and host 3 (600 KB) announce and wait; host 4
// announces the first of two 1 MB transactions (backlog 1) and takes the
// backlog slot at once. When host 1 finishes, host 3 (less remaining) is
// granted before host 2. Checked at every instant: no slot over its size,
// and no candidate waiting while its kind has a free slot.
func TestActiveSet(t *testing.T) {
	r := schedtest.NewRig(t, schedtest.Config{Hosts: 5, Mapping: rnic.Mapping{Pool: 1},
		Fabric: func(f *fabric.Config) { f.Strict = 0xff }}, New(DefaultParams().Literal(), Env{}))
	log := &grantLog{}
	r.Net.HostPorts[0].Observer = log
	r.PostAt(0, 1, 0, 1_000_000, 1)
	r.PostAt(engine.Microsecond, 2, 0, 800_000, 2)
	r.PostAt(engine.Microsecond, 3, 0, 600_000, 3)
	r.PostAt(engine.Microsecond, 4, 0, 1_000_000, 4)
	r.PostAt(engine.Microsecond, 4, 0, 1_000_000, 5)
	rx := &r.Cluster.Hosts[0].Scheduler().(*Scheduler).rx
	for {
		at := r.Sim.NextEventTime()
		if at == engine.Never {
			break
		}
		r.Sim.Run(at)
		for k := range rx.occ {
			if n := len(rx.occ[k]); n > rx.slots[k] {
				t.Fatalf("at %v: slot kind %d has %d occupants, size %d", at, k, n, rx.slots[k])
			}
			if len(rx.occ[k]) < rx.slots[k] && rx.cand[k].len() > 0 {
				t.Fatalf("at %v: slot kind %d has room but %d candidates wait", at, k, rx.cand[k].len())
			}
		}
	}
	if len(r.Done) != len(r.Posted) {
		t.Fatal(r.Stuck())
	}
	t.Logf("grants to hosts %v in classes %v", log.to, log.class)
	want := []int32{1, 4, 3}
	for i, h := range want {
		if i >= len(log.to) || log.to[i] != h {
			t.Fatalf("grants went to hosts %v, want %v first", log.to, want)
		}
	}
	if log.class[0] != 3 || log.class[1] != 2 {
		t.Errorf("first grants in classes %v, want 3 (P_low, other slot) then 2 (P_backlog)", log.class[:2])
	}
	var i2, i3 int
	for i, h := range log.to {
		switch h {
		case 2:
			i2 = i
		case 3:
			i3 = i
		}
	}
	if i3 > i2 {
		t.Errorf("host 3 (600 KB) granted after host 2 (800 KB): order %v", log.to)
	}
	if got := len(rx.txns); got != 0 {
		t.Errorf("receiver still tracks %d transactions after the run", got)
	}
}

// Preemption: with preempt on, a more urgent candidate takes the slot of
// a less urgent occupant, whose grant is revoked; without it, it waits.
func TestPreempt(t *testing.T) {
	for _, preempt := range []bool{false, true} {
		p := DefaultParams().Literal()
		p.Preempt = preempt
		p.GrantGranularity = GrantChunk // so that revocation can stop the occupant early
		r := schedtest.NewRig(t, schedtest.Config{Hosts: 3, Mapping: rnic.Mapping{Pool: 1}}, New(p, Env{}))
		long := r.PostAt(0, 1, 0, 4_000_000, 1)
		short := r.PostAt(20*engine.Microsecond, 2, 0, 200_000, 2)
		if !r.Run(engine.Second) {
			t.Fatal(r.Stuck())
		}
		st := Total(r.Cluster.Hosts)
		t.Logf("preempt %v: long fct %v, short fct %v, %d revocations", preempt, long.FCT(), short.FCT(), st.GrantsRevoked)
		if preempt && (st.GrantsRevoked == 0 || short.Finished > long.Finished) {
			t.Errorf("preempt: %d revocations, short finished %v, long %v; want > 0 and short first", st.GrantsRevoked, short.Finished, long.Finished)
		}
		if !preempt && (st.GrantsRevoked != 0 || short.Finished < long.Finished) {
			t.Errorf("no preempt: %d revocations, short finished %v, long %v; want 0 and long first", st.GrantsRevoked, short.Finished, long.Finished)
		}
	}
}

// ctlEvent is one grant, revocation or backlog update as a NIC put it on
// the wire.
type ctlEvent struct {
	what     string // "grant", "revoke" or "update"
	from, to int32
	class    uint8 // grant: the class granted
	backlog  int   // update: the backlog announced
}

// ctlLog records every STORM control packet that any host port transmits,
// in transmission order, with the time it went.
type ctlLog struct {
	fabric.NopObserver
	ev []ctlEvent
	at []engine.Time
	pk []fabric.Packet
}

func (l *ctlLog) Transmit(now engine.Time, _ *fabric.Port, p *fabric.Packet) {
	var e ctlEvent
	switch p.Kind {
	case fabric.Grant:
		g := decodeGrant(p.Arg)
		e = ctlEvent{what: "grant", from: p.Src, to: p.Dst, class: g.class}
		if g.revoke {
			e = ctlEvent{what: "revoke", from: p.Src, to: p.Dst}
		}
	case fabric.Control:
		e = ctlEvent{what: "update", from: p.Src, to: p.Dst, backlog: decodeAnnounce(p.Arg).backlog}
	default:
		return
	}
	l.ev = append(l.ev, e)
	l.at = append(l.at, now)
	l.pk = append(l.pk, *p)
}

func logControl(r *schedtest.Rig) *ctlLog {
	l := &ctlLog{}
	for _, hp := range r.Net.HostPorts {
		hp.Observer = l
	}
	return l
}

func checkEvents(t *testing.T, l *ctlLog, want []ctlEvent) {
	t.Helper()
	for i, e := range l.ev {
		t.Logf("%d at %v: %+v", i, l.at[i], e)
	}
	if len(l.ev) != len(want) {
		t.Fatalf("got %d control packets %+v, want %d %+v", len(l.ev), l.ev, len(want), want)
	}
	for i := range want {
		if l.ev[i] != want[i] {
			t.Errorf("control packet %d: got %+v, want %+v", i, l.ev[i], want[i])
		}
	}
}

// On the rig (100 Gbps, 1 us links, 1000 B payloads in 1048 B frames:
// 83.84 ns each, RTT 4.16 us, BDP 52 KB) a data packet sent at t reaches
// the receiver at t + 2 x (1 us + 83.84 ns) = t + 2,167,680 ps; a 60 B
// control packet sent at t at t + 2 x (1 us + 4.8 ns), plus at most one data
// frame (83.84 ns) if the switch port is busy.
const (
	rigFrame = 83_840 * engine.Picosecond
	rigHop   = engine.Microsecond + rigFrame
	rigCtl   = 2 * (engine.Microsecond + 4_800*engine.Picosecond)
)

// Backlog updates (doc: Receiver gap-fills). Host 1 sends 1 MB to host 0
// at 0 and takes the no-backlog slot. Host 2 announces 500 KB at 1 us
// with nothing behind it, sends its first BDP (52 frames, until 5.36 us)
// and waits for that slot. At 8 us host 2 posts a 10 KB transaction
// behind it on the same QP. With updates it tells the receiver at once
// (its port is idle), and the receiver moves it to the backlog slot and
// grants it in P_backlog when the update arrives. In the literal reading the receiver
// never learns (the waiting transaction sends no data) and grants host 2
// only when host 1's last byte arrives, in P_low.
func TestBacklogUpdate(t *testing.T) {
	for _, updates := range []bool{true, false} {
		p := DefaultParams().Literal()
		p.BacklogUpdates = updates
		r := schedtest.NewRig(t, schedtest.Config{Hosts: 3, Mapping: rnic.Mapping{Pool: 1}}, New(p, Env{}))
		l := logControl(r)
		a := r.PostAt(0, 1, 0, 1_000_000, 1)
		r.PostAt(engine.Microsecond, 2, 0, 500_000, 2)
		r.PostAt(8*engine.Microsecond, 2, 0, 10_000, 3)
		if !r.Run(engine.Second) {
			t.Fatal(r.Stuck())
		}
		if !updates {
			checkEvents(t, l, []ctlEvent{{what: "grant", from: 0, to: 1, class: 3}, {what: "grant", from: 0, to: 2, class: 3}})
			if l.at[1] < a.Finished-rigHop-engine.Microsecond {
				t.Errorf("literal: host 2 granted at %v, before host 1's last byte (its ACK returned at %v)", l.at[1], a.Finished)
			}
			continue
		}
		checkEvents(t, l, []ctlEvent{
			{what: "grant", from: 0, to: 1, class: 3},
			{what: "update", from: 2, to: 0, backlog: 1},
			{what: "grant", from: 0, to: 2, class: 2},
		})
		if want := 2 * rigHop; l.at[0] != want {
			t.Errorf("first grant at %v, want %v (host 1's first packet arrives)", l.at[0], want)
		}
		if want := 8 * engine.Microsecond; l.at[1] != want {
			t.Errorf("update at %v, want %v (the post)", l.at[1], want)
		}
		if lo := l.at[1] + rigCtl; l.at[2] < lo || l.at[2] > lo+rigFrame {
			t.Errorf("grant to host 2 at %v, want %v..%v (when the update arrives)", l.at[2], lo, lo+rigFrame)
		}
		if st := Total(r.Cluster.Hosts); st.BacklogUpdates != 1 || st.UpdatesStale != 0 {
			t.Errorf("%d updates (%d stale), want 1 (0)", st.BacklogUpdates, st.UpdatesStale)
		}
	}
}

// Continuous ranking (preempt). Host 1's 1 MB holds the slot; host 2's
// 300 KB announces at 10 us + 2,167,680 ps, when 120 of host 1's packets
// have arrived (its packets arrive every frame from 2,167,680 ps: the
// first BDP runs into the grant without a gap). The newcomer has less
// remaining, so host 1's grant is revoked at exactly 120,000 B and host 2
// granted (one 60 B frame later, behind the revocation); host 1 is granted
// its remainder again when host 2's last byte arrives.
func TestRevokeAtBytesReceived(t *testing.T) {
	p := DefaultParams().Literal()
	p.Preempt = true
	r := schedtest.NewRig(t, schedtest.Config{Hosts: 3, Mapping: rnic.Mapping{Pool: 1}}, New(p, Env{}))
	l := logControl(r)
	long := r.PostAt(0, 1, 0, 1_000_000, 1)
	short := r.PostAt(10*engine.Microsecond, 2, 0, 300_000, 2)
	if !r.Run(engine.Second) {
		t.Fatal(r.Stuck())
	}
	checkEvents(t, l, []ctlEvent{
		{what: "grant", from: 0, to: 1, class: 3},
		{what: "revoke", from: 0, to: 1},
		{what: "grant", from: 0, to: 2, class: 3},
		{what: "grant", from: 0, to: 1, class: 3},
	})
	for i, want := range []int64{1_000_000, 120_000, 300_000, 1_000_000} {
		if got := l.pk[i].Seq; got != want {
			t.Errorf("control packet %d grants up to %d, want %d", i, got, want)
		}
	}
	if d := l.at[2] - l.at[1]; d != 4_800*engine.Picosecond {
		t.Errorf("grant to host 2 %v after the revocation, want 4.8 ns (one 60 B frame)", d)
	}
	if short.Finished > long.Finished || l.at[3] > short.Finished {
		t.Errorf("short finished %v, long %v, long re-granted %v: want short first, re-grant before its ACK returns",
			short.Finished, long.Finished, l.at[3])
	}
	if st := Total(r.Cluster.Hosts); st.GrantsRevoked != 1 || st.GrantsReleased != 0 {
		t.Errorf("%d revocations, %d releases; want 1, 0", st.GrantsRevoked, st.GrantsReleased)
	}
}

// Release of an idle occupant (the counterpart of pHost's token expiry).
// Host 1 sends 2 MB to host 0 from 0 and is granted; at 3 us it posts
// 400 KB to host 2 on another QP, which its urgency order (less remaining)
// sends first, so host 1 sends host 0 nothing more until that is done: its
// last packet for host 0 left at frame 35 (2,934,400 ps) and arrived at
// 5,102,080 ps. Host 3's 1 MB waits for the slot from 7,167,680 ps. Two
// RTTs (8.32 us) after that last arrival, at 13,422,080 ps, host 0
// releases host 1 at the 36,000 B received and grants host 3; host 1 is
// parked for two RTTs and granted again when host 3's last byte arrives.
func TestReleaseIdleOccupant(t *testing.T) {
	for _, release := range []float64{2, 0} {
		p := DefaultParams().Literal()
		p.ReleaseAfterRTTs = release
		r := schedtest.NewRig(t, schedtest.Config{Hosts: 4, Mapping: rnic.Mapping{Pool: 1}}, New(p, Env{}))
		l := logControl(r)
		r.PostAt(0, 1, 0, 2_000_000, 1)
		r.PostAt(3*engine.Microsecond, 1, 2, 400_000, 2)
		b := r.PostAt(5*engine.Microsecond, 3, 0, 1_000_000, 3)
		if !r.Run(engine.Second) {
			t.Fatal(r.Stuck())
		}
		if release == 0 {
			checkEvents(t, l, []ctlEvent{
				{what: "grant", from: 0, to: 1, class: 3},
				{what: "grant", from: 2, to: 1, class: 3},
				{what: "grant", from: 0, to: 3, class: 3},
			})
			continue
		}
		checkEvents(t, l, []ctlEvent{
			{what: "grant", from: 0, to: 1, class: 3},
			{what: "grant", from: 2, to: 1, class: 3},
			{what: "revoke", from: 0, to: 1},
			{what: "grant", from: 0, to: 3, class: 3},
			{what: "grant", from: 0, to: 1, class: 3},
		})
		lastArrival := 35*rigFrame + 2*rigHop
		if want := lastArrival + 2*r.RTT; l.at[2] != want {
			t.Errorf("release at %v, want %v (last arrival %v + 2 RTT)", l.at[2], want, lastArrival)
		}
		if got := l.pk[2].Seq; got != 36_000 {
			t.Errorf("released at %d B, want 36000 (36 packets received)", got)
		}
		if l.at[4] > b.Finished {
			t.Errorf("host 1 re-granted at %v, after host 3's message finished (%v)", l.at[4], b.Finished)
		}
		if st := Total(r.Cluster.Hosts); st.GrantsReleased != 1 || st.GrantsRevoked != 1 {
			t.Errorf("%d releases, %d revocations; want 1, 1", st.GrantsReleased, st.GrantsRevoked)
		}
	}
}
