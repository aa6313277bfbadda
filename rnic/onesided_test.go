package rnic_test

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// firstSent is when the first data packet of opcode op left host 0's NIC.
func (o *sentLog) firstSent(op rocev2.Opcode) engine.Time {
	for i, x := range o.op {
		if x == op && !o.responder[i] {
			return o.at[i]
		}
	}
	return -1
}

// writeThenAdd posts at time 0 a 1000 B WRITE and a FETCH_ADD of 64 on
// the word at 8, host 0 to host 1: the publish pattern.
func (r *rig) writeThenAdd() (w, faa *rnic.Message) {
	w = r.c.NewMessage(0, 1, 1000)
	w.Verb = rocev2.Write
	r.post(0, w)
	faa = r.c.NewMessage(0, 1, 8)
	faa.Verb, faa.Ext = rocev2.FetchAdd, &rnic.Ext{Addr: 8, Operand: 64}
	r.post(0, faa)
	return w, faa
}

// IBV_SEND_FENCE waits for a prior READ, not for a prior WRITE: a fenced
// WRITE after a READ of 3000 B leaves when the READ completes (then the
// 60 B ACK of the READ's last response packet, queued just before, goes
// first); a fenced WRITE after a WRITE leaves right behind it.
func TestSendFence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first rocev2.Verb
	}{{"after READ", rocev2.Read}, {"after WRITE", rocev2.Write}} {
		r := verbRig(t, lineRateSpec(), nil, func(c *rnic.Config) { c.Mapping = rnic.Mapping{Pool: 1} })
		log := &sentLog{}
		r.c.Observer = log
		first := r.c.NewMessage(0, 1, 3000)
		first.Verb = tc.first
		r.post(0, first)
		w := r.c.NewMessage(0, 1, 1000)
		w.Verb = rocev2.Write
		rnic.SendFence(w)
		r.post(0, w)
		r.drain(t)
		got := log.firstSent(rocev2.WriteOnly)
		want := 3 * ser(1048) // behind the first WRITE's 3 packets
		if tc.first == rocev2.Read {
			want = first.Finished + ser(60)
		}
		if got != want {
			t.Errorf("fenced WRITE %s: sent at %v, want %v", tc.name, got, want)
		}
	}
}

// The implicit fence (Config.ImplicitFence) holds a FETCH_ADD until the
// 1000 B WRITE before it is acknowledged: it leaves when the WRITE's ACK
// arrives (2 hops of 1048 B, 2 of 60 B, 4 us) and completes one ATOMIC
// round trip later. Unfenced, it leaves behind the WRITE, waits at the
// switch for the WRITE's serialisation, and its ATOMIC ACK follows the
// WRITE's ACK: the fence costs one RTT (4 us) and 2 serialisations of
// 60 B and one of 76 B.
func TestImplicitFence(t *testing.T) {
	var done [2]engine.Time
	for i, fence := range []bool{false, true} {
		r := verbRig(t, lineRateSpec(), nil, func(c *rnic.Config) {
			c.Mapping, c.ImplicitFence = rnic.Mapping{Pool: 1}, fence
		})
		log := &sentLog{}
		r.c.Observer = log
		_, faa := r.writeThenAdd()
		r.drain(t)
		writeAcked := 2*(ser(1048)+engine.Microsecond) + 2*(ser(60)+engine.Microsecond)
		wantSent := ser(1048)
		wantDone := 2*ser(1048) + ser(76) + 2*engine.Microsecond + 2*(ser(60)+engine.Microsecond)
		if fence {
			wantSent = writeAcked
			wantDone = writeAcked + 2*(ser(76)+engine.Microsecond) + 2*(ser(60)+engine.Microsecond)
		}
		if got := log.firstSent(rocev2.FetchAddRequest); got != wantSent {
			t.Errorf("fence %v: FETCH_ADD sent at %v, want %v", fence, got, wantSent)
		}
		if !faa.Done || faa.Finished != wantDone || faa.Ext.Result != 0 || r.c.Hosts[1].Word(8) != 64 {
			t.Errorf("fence %v: FETCH_ADD done %v at %v, result %d, word %d; want done at %v, 0, 64",
				fence, faa.Done, faa.Finished, faa.Ext.Result, r.c.Hosts[1].Word(8), wantDone)
		}
		done[i] = faa.Finished
	}
	// The cost: the WRITE's ACK's way back, then the ATOMIC's round trip,
	// less what the unfenced ATOMIC waited behind the WRITE.
	if got, want := done[1]-done[0], 2*ser(60)+ser(76)+4*engine.Microsecond; got != want {
		t.Errorf("implicit fence cost %v, want %v", got, want)
	}
}

// The responder modes on the spraying rig (sprayRig: a WRITE's packet at
// offset 0 takes the 3 us spine, the FETCH_ADD at offset 1000 the 1 us
// one, so the ATOMIC overtakes the WRITE by 2 us less its own
// serialisations): go-back-N and selective repeat with resent ATOMICs
// execute it after the WRITE's data is placed; ooo-ordered executes it
// when the WRITE arrives (the same instant); ooo-eager executes it on
// arrival, before the data: the ordering violation of docs/model.md §9.3.
func TestResponderAtomicModes(t *testing.T) {
	writeAt := 4*ser(1048) + 6*engine.Microsecond
	faaAt := ser(1048) + 4*ser(76) + 4*engine.Microsecond
	for _, tc := range []struct {
		name      string
		selective bool
		mode      rnic.AtomicOrder
		exact     engine.Time // when the ATOMIC executes; -1: some time after the WRITE
	}{
		{"inorder", false, rnic.AtomicResend, -1},
		{"selective resend", true, rnic.AtomicResend, -1},
		{"ooo-ordered", true, rnic.AtomicDeferred, writeAt},
		{"ooo-eager", true, rnic.AtomicEager, faaAt},
	} {
		r := twoPathRig(t, spray{}, 2*engine.Microsecond, nil, func(c *rnic.Config) {
			c.Selective, c.Mapping, c.Atomics = tc.selective, rnic.Mapping{Pool: 1}, tc.mode
		})
		var placed, executed []engine.Time
		r.c.OnPlace = func(now engine.Time, _ *rnic.Host, _ *fabric.Packet) { placed = append(placed, now) }
		r.c.OnAtomic = func(now engine.Time, at *rnic.Host, m *rnic.Message) uint64 {
			executed = append(executed, now)
			return at.Atomic(m)
		}
		w, faa := r.writeThenAdd()
		r.drain(t)
		if len(placed) != 1 || placed[0] != writeAt || len(executed) != 1 {
			t.Fatalf("%s: WRITE placed at %v, ATOMIC executed at %v; want placed once at %v, executed once", tc.name, placed, executed, writeAt)
		}
		switch {
		case tc.exact >= 0 && executed[0] != tc.exact:
			t.Errorf("%s: ATOMIC executed at %v, want %v", tc.name, executed[0], tc.exact)
		case tc.exact < 0 && executed[0] <= writeAt:
			t.Errorf("%s: ATOMIC executed at %v, want after the WRITE's placement at %v", tc.name, executed[0], writeAt)
		}
		if !w.Done || !faa.Done || faa.Finished < w.Finished || faa.Ext.Result != 0 || r.c.Hosts[1].Word(8) != 64 {
			t.Errorf("%s: WRITE done %v, FETCH_ADD done %v (at %v, %v), result %d, word %d; want both done in order, 0, 64",
				tc.name, w.Done, faa.Done, w.Finished, faa.Finished, faa.Ext.Result, r.c.Hosts[1].Word(8))
		}
	}
}

// dropAtomicAck is a test-only router that drops the first ATOMIC ACK: it
// goes in class 3, which the lossy fabric's one-byte queue limit rejects,
// while every other packet travels in class 0, which switches do not
// admit against the buffer (as reorderOne does).
type dropAtomicAck struct{ dropped bool }

func (d *dropAtomicAck) Route(sw *fabric.Switch, p *fabric.Packet, _ int) int {
	hop := int(sw.Routes(p.Dst)[0])
	if rocev2.Opcode(p.Op) == rocev2.AtomicAck && !d.dropped {
		d.dropped = true
		p.Class = 3
		return hop
	}
	p.Class = 0
	return hop
}

// A FETCH_ADD whose ATOMIC ACK is lost is resent at the timeout; the
// responder, which executed it, does not execute it again and sends its
// ATOMIC ACK again with the original value (InfiniBand's replay), so the
// WQE completes with its result, under either receiver. The selective
// receiver answered the duplicate with a plain ACK, which moved the
// acknowledged point past the ATOMIC but could not complete it: the WQE
// was never done.
func TestLostAtomicAckIsReplayed(t *testing.T) {
	for _, selective := range []bool{false, true} {
		r := twoPathRig(t, &dropAtomicAck{}, 0, func(f *fabric.Config) { f.PFC, f.LossyQueueLimit = false, 1 },
			func(c *rnic.Config) { c.Selective, c.Mapping = selective, rnic.Mapping{Pool: 1} })
		faa := r.c.NewMessage(0, 1, 8)
		faa.Verb, faa.Ext = rocev2.FetchAdd, &rnic.Ext{Addr: 8, Operand: 64}
		r.post(0, faa)
		if !r.sim.Run(engine.Second) {
			t.Fatalf("selective %v: events still pending at 1 s", selective)
		}
		if !faa.Done || faa.Ext.Result != 0 || r.c.Hosts[1].Word(8) != 64 || r.c.Counters.RTOs != 1 {
			t.Errorf("selective %v: FETCH_ADD done %v, result %d, word %d, %d RTOs; want done, 0, 64 (executed once), 1 RTO",
				selective, faa.Done, faa.Ext.Result, r.c.Hosts[1].Word(8), r.c.Counters.RTOs)
		}
	}
}
