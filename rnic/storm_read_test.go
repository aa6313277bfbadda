package rnic_test

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/storm"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// stormRig is verbRig (2-host star, 100 Gbps, 1 us links, line rate,
// BDP 52,000 B) under full STORM with its defaults.
func stormRig(t *testing.T) *rig {
	t.Helper()
	return verbRig(t, lineRateSpec(), func(h *rnic.Host) rnic.Scheduler {
		return storm.New(storm.DefaultParams(), storm.Env{})(h)
	}, nil)
}

// A READ's responder context under STORM is ranked like any QP of its
// host. B sends 30 kB to A from t = 0 (packet j leaves at j x 83.84 ns, in
// P_small: below one BDP); A's READ of 3000 B reaches B at 2010.24 ns,
// during B's packet 23. The response, also P_small, has 3000 B left
// against the SEND's 6000 B, so urgency order (remaining bytes ascending)
// sends its 3 packets first, at 2012.16, 2096.00 and 2179.84 ns, then the
// SEND's last 6; the READ completes 2 serialisations and 2 us after its
// last packet left, the SEND its ACK later.
func TestStormReadResponseRanked(t *testing.T) {
	r := stormRig(t)
	log := &sentLog{}
	r.c.Observer = log
	send := r.post(0, r.c.NewMessage(1, 0, 30_000))
	read := r.c.NewMessage(0, 1, 3000)
	read.Verb = rocev2.Read
	r.post(0, read)
	r.drain(t)
	var order []bool // B's data packets: responder or not
	var resp []engine.Time
	for i := range log.at {
		if log.op[i] == rocev2.ReadRequest {
			continue
		}
		order = append(order, log.responder[i])
		if log.responder[i] {
			resp = append(resp, log.at[i])
		}
	}
	if len(order) != 33 {
		t.Fatalf("B sent %d data packets, want 33 (30 SEND, 3 response)", len(order))
	}
	for i, isResp := range order {
		if want := i >= 24 && i < 27; isResp != want {
			t.Errorf("B's packet %d: responder %v, want %v (the response after the SEND's packet 23)", i, isResp, want)
		}
	}
	first := 24 * ser(1048)
	want := []engine.Time{first, first + ser(1048), first + 2*ser(1048)}
	if len(resp) != 3 || resp[0] != want[0] || resp[1] != want[1] || resp[2] != want[2] {
		t.Errorf("response sent at %v, want %v", resp, want)
	}
	if w := want[2] + 2*ser(1048) + 2*engine.Microsecond; !read.Done || read.Finished != w {
		t.Errorf("READ done %v at %v, want %v", read.Done, read.Finished, w)
	}
	// The SEND's last packet leaves at 32 x 83.84 ns: 33 packets' slots.
	if w := 33*ser(1048) + ser(1048) + 2*engine.Microsecond + 2*(ser(60)+engine.Microsecond); !send.Done || send.Finished != w {
		t.Errorf("SEND done %v at %v, want %v", send.Done, send.Finished, w)
	}
}

// A READ response larger than a BDP goes through STORM's receiver: its
// first BDP announces itself at A, whose receiver grants the rest to B's
// responder context. It is scheduled exactly as a SEND of the same size
// from B, posted when the READ request arrives at B (2 x (64 B + 1 us)):
// its last packet arrives when that SEND's does (the SEND's FCT less its
// last ACK's two hops), with the same grants, packets and bytes.
func TestStormReadResponseGranted(t *testing.T) {
	const size = 200_000
	atB := 2 * (ser(64) + engine.Microsecond)

	rs := stormRig(t)
	send := rs.post(atB, rs.c.NewMessage(1, 0, size))
	rs.drain(t)
	sendGrants := storm.Counters(rs.c.Hosts)

	rr := stormRig(t)
	read := rr.c.NewMessage(0, 1, size)
	read.Verb = rocev2.Read
	rr.post(0, read)
	rr.drain(t)
	readGrants := storm.Counters(rr.c.Hosts)

	if !send.Done || !read.Done {
		t.Fatalf("SEND done %v, READ done %v", send.Done, read.Done)
	}
	if w := send.Finished - 2*(ser(60)+engine.Microsecond); read.Finished != w {
		t.Errorf("READ done at %v, want %v (the SEND's last packet's arrival)", read.Finished, w)
	}
	if g := readGrants["storm.grants_sent"]; g == 0 || g != sendGrants["storm.grants_sent"] {
		t.Errorf("grants: READ %d, SEND %d; want equal and more than 0", g, sendGrants["storm.grants_sent"])
	}
	ks, kr := rs.c.Counters, rr.c.Counters
	// The READ adds its request (one packet, no payload) to the SEND's.
	if kr.DataPackets != ks.DataPackets+1 || kr.PayloadSent != ks.PayloadSent || kr.Retransmitted != 0 {
		t.Errorf("READ: %d data packets, %d B sent, %d B resent; want %d, %d, 0",
			kr.DataPackets, kr.PayloadSent, kr.Retransmitted, ks.DataPackets+1, ks.PayloadSent)
	}
}

// A READ of 200 kB and a SEND of 10 kB behind it on one pooled QP: the
// READ request occupies one unit of the QP's stream, so STORM sees a
// one-unit transaction (P_small, class 1, no announcement: 64 B on the
// wire) and the SEND after it starts at offset 1 (P_small too). Both
// complete, the SEND first acknowledged but completed after the READ, in
// posting order.
func TestStormReadThenSendOnOneQP(t *testing.T) {
	r := verbRig(t, lineRateSpec(), func(h *rnic.Host) rnic.Scheduler {
		return storm.New(storm.DefaultParams(), storm.Env{})(h)
	}, func(c *rnic.Config) { c.Mapping = rnic.Mapping{Pool: 1} })
	log := &sentLog{}
	r.c.Observer = log
	read := r.c.NewMessage(0, 1, 200_000)
	read.Verb = rocev2.Read
	r.post(0, read)
	send := r.post(0, r.c.NewMessage(0, 1, 10_000))
	r.drain(t)
	if !read.Done || !send.Done || send.Finished < read.Finished {
		t.Fatalf("READ done %v at %v, SEND done %v at %v; want both, the SEND not before the READ", read.Done, read.Finished, send.Done, send.Finished)
	}
	if log.op[0] != rocev2.ReadRequest || log.size[0] != 64 || read.FirstClass != 1 || send.FirstClass != 1 {
		t.Errorf("first packet %v of %d B; READ class %d, SEND class %d; want a 64 B READ request, classes 1 and 1",
			log.op[0], log.size[0], read.FirstClass, send.FirstClass)
	}
	if st := storm.Counters(r.c.Hosts); st["storm.announced"] != 1 || st["storm.grants_sent"] != 1 {
		t.Errorf("announced %d, grants %d; want 1 and 1 (the response only)", st["storm.announced"], st["storm.grants_sent"])
	}
}
