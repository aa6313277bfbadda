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

// The receiver's active set as published (REFERENCE.md 6.7, the literal
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
