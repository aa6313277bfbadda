package rnic_test

import (
	"testing"
	"unsafe"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// Timings on a 2-host star at 100 Gbps with 1 us links (ReferenceHeaders,
// MTU 1000): a hop costs a frame's serialisation (80 ps per byte) plus
// 1 us, and the switch stores and forwards.
const psPerByte = 80

func ser(bytes int64) engine.Time { return engine.Time(bytes * psPerByte) }

// verbRig is newRig with a chosen scheduler per host and congestion control.
func verbRig(t *testing.T, spec cc.Spec, newSched func(h *rnic.Host) rnic.Scheduler, mutate func(*rnic.Config)) *rig {
	t.Helper()
	sim := engine.NewSim(1)
	net, err := fabric.Build(sim, star(t, 2), fabric.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	rtt, bdp := net.MaxRTTBDP(1000)
	cfg := rnic.Config{MTU: 1000, Headers: rocev2.ReferenceHeaders, DataClass: 3, AckInterval: 1,
		NackInterval: 500 * engine.Microsecond, RTO: 5 * engine.Millisecond,
		Mapping: rnic.Mapping{PerFlow: true}, CC: spec,
		CCEnv: cc.Env{LineRate: net.HostPorts[0].Rate, MinRate: engine.Gbps, BaseRTT: rtt, BDP: bdp, MTU: 1000}}
	if mutate != nil {
		mutate(&cfg)
	}
	if newSched == nil {
		newSched = func(*rnic.Host) rnic.Scheduler { return baselines.NewFair(cfg.DataClass) }
	}
	r := &rig{sim: sim, net: net}
	r.c, err = rnic.NewCluster(net, cfg, newSched)
	if err != nil {
		t.Fatal(err)
	}
	r.c.OnComplete = func(m *rnic.Message) { r.done = append(r.done, m) }
	return r
}

// post queues a prepared message at time at.
func (r *rig) post(at engine.Time, m *rnic.Message) *rnic.Message {
	r.sim.At(at, &poster{r.c, m}, 0)
	return m
}

func (r *rig) drain(t *testing.T) {
	t.Helper()
	if !r.sim.Run(engine.Second) {
		t.Fatal("events still pending at 1 s")
	}
	if err := r.c.CheckDrained(); err != nil {
		t.Fatal(err)
	}
}

// sentLog records every data packet a NIC hands to its port.
type sentLog struct {
	at        []engine.Time
	responder []bool
	op        []rocev2.Opcode
	size      []uint16
}

func (o *sentLog) Sent(now engine.Time, qp *rnic.QP, p *fabric.Packet) {
	o.at = append(o.at, now)
	o.responder = append(o.responder, qp.Responder())
	o.op = append(o.op, rocev2.Opcode(p.Op))
	o.size = append(o.size, p.Size)
}
func (o *sentLog) Acked(engine.Time, *rnic.QP, *fabric.Packet)                {}
func (o *sentLog) RateChange(engine.Time, *rnic.QP, engine.Rate, engine.Rate) {}

// one runs a single message of verb v and size bytes from host 0 to host
// 1 to the end and returns it with the log of data packets sent.
func (r *rig) one(t *testing.T, v rocev2.Verb, size int64) (*rnic.Message, *sentLog) {
	t.Helper()
	log := &sentLog{}
	r.c.Observer = log
	m := r.c.NewMessage(0, 1, size)
	m.Verb = v
	r.post(0, m)
	r.drain(t)
	return m, log
}

// The READ request (48 + 16 B RETH = 64 B) reaches B after two hops; B's
// responder context sends the 3 response packets (1048 B) back to back at
// line rate; the READ completes when the last one arrives: its start at B
// plus 2 serialisations and 2 us.
func TestReadTiming(t *testing.T) {
	r := verbRig(t, lineRateSpec(), nil, nil)
	m, log := r.one(t, rocev2.Read, 3000)
	atB := 2 * (ser(64) + engine.Microsecond)
	want := atB + 2*ser(1048) + 2*ser(1048) + 2*engine.Microsecond
	if !m.Done || m.Finished != want {
		t.Fatalf("READ of 3000 B: done %v at %v, want done at %v", m.Done, m.Finished, want)
	}
	wantOps := []rocev2.Opcode{rocev2.ReadRequest, rocev2.ReadResponseFirst, rocev2.ReadResponseMiddle, rocev2.ReadResponseLast}
	if len(log.op) != len(wantOps) {
		t.Fatalf("data packets sent: got opcodes %v, want %v", log.op, wantOps)
	}
	for i, op := range wantOps {
		if log.op[i] != op || log.responder[i] != (i > 0) {
			t.Errorf("packet %d: got %v (responder %v), want %v (responder %v)", i, log.op[i], log.responder[i], op, i > 0)
		}
	}
	for i, at := range log.at[1:] {
		if w := atB + engine.Time(i)*ser(1048); at != w {
			t.Errorf("response packet %d sent at %v, want %v", i, at, w)
		}
	}
	if k := r.c.Counters; k.MessagesDone != 1 || k.PayloadInOrder != 3000 || k.QPsOpened != 2 || k.QPsClosed != 2 {
		t.Errorf("counters: got %d done, %d B in order, %d/%d QPs opened/closed; want 1, 3000, 2/2", k.MessagesDone, k.PayloadInOrder, k.QPsOpened, k.QPsClosed)
	}
	if m.PSN != 0 || rocev2.Read.PSNs(3000, 1000) != 3 {
		t.Errorf("READ PSN %d consuming %d PSNs, want 0 and 3", m.PSN, rocev2.Read.PSNs(3000, 1000))
	}
}

// queuedRates is a congestion control whose QPs get the rates of a list
// in the order they are opened (then line rate): the test knows which QP
// opens when, so it sets the responder context's rate alone.
func queuedRates(rates ...engine.Rate) cc.Spec {
	return cc.Spec{Name: "queued", New: func(env cc.Env) cc.Algorithm {
		r := env.LineRate
		if len(rates) > 0 {
			r, rates = rates[0], rates[1:]
		}
		return &lineRate{r}
	}}
}

// The response data is paced by B's CC: the responder context (the
// second QP opened) at half the line rate sends its 1048 B packets
// 1048*8/50G = 167.68 ns apart; the requester's QP stays at line rate.
func TestReadResponsePacedByResponderCC(t *testing.T) {
	r := verbRig(t, queuedRates(100*engine.Gbps, 50*engine.Gbps), nil, nil)
	m, log := r.one(t, rocev2.Read, 3000)
	atB := 2 * (ser(64) + engine.Microsecond)
	gap := engine.Time(1048 * 8 * 1000 / 50) // ps at 50 Gbps
	for i, at := range log.at[1:] {
		if w := atB + engine.Time(i)*gap; at != w {
			t.Errorf("response packet %d sent at %v, want %v", i, at, w)
		}
	}
	if want := atB + 2*gap + 2*ser(1048) + 2*engine.Microsecond; m.Finished != want {
		t.Errorf("READ done at %v, want %v (3 packets at 50 Gbps)", m.Finished, want)
	}
}

// strict is a test scheduler: strict priority between responder contexts
// and requester QPs (responders first when respFirst), FIFO by id within.
type strict struct {
	*baselines.Fair
	h         *rnic.Host
	respFirst bool
}

func (s *strict) Attach(h *rnic.Host) { s.h = h; s.Fair.Attach(h) }
func (s *strict) Pick(_ engine.Time, paused uint8) (*rnic.QP, uint8) {
	if paused&(1<<3) != 0 {
		return nil, 0
	}
	var best *rnic.QP
	for _, qp := range s.h.QPs() {
		if !qp.Ready() {
			continue
		}
		if best == nil || qp.Responder() == s.respFirst && best.Responder() != s.respFirst {
			best = qp
		}
	}
	if best == nil {
		return nil, 0
	}
	return best, 3
}

// B's scheduler ranks its READ response against its own SEND: B sends
// 50 kB to A from t=0 (packet j leaves at j*83.84 ns); A's READ request
// arrives at 2010.24 ns, during B's packet 23 (1928.32-2012.16 ns). With
// responders first, the 3 response packets leave at 2012.16, 2096.00 and
// 2179.84 ns and the SEND resumes after them; with requesters first, the
// response waits for the SEND's last packet.
func TestReadResponseRankedByResponderScheduler(t *testing.T) {
	for _, respFirst := range []bool{true, false} {
		r := verbRig(t, lineRateSpec(), func(*rnic.Host) rnic.Scheduler { return &strict{Fair: baselines.NewFair(3), respFirst: respFirst} }, nil)
		log := &sentLog{}
		r.c.Observer = log
		send := r.post(0, r.c.NewMessage(1, 0, 50_000))
		read := r.c.NewMessage(0, 1, 3000)
		read.Verb = rocev2.Read
		r.post(0, read)
		r.drain(t)
		var resp []engine.Time
		var sendAfter int // SEND packets sent after the first response packet
		for i := range log.at {
			switch {
			case log.responder[i]:
				resp = append(resp, log.at[i])
			case log.op[i] != rocev2.ReadRequest && len(resp) > 0:
				sendAfter++
			}
		}
		first := 24 * ser(1048) // the end of B's packet 23
		if !respFirst {
			first = 50 * ser(1048)
		}
		want := []engine.Time{first, first + ser(1048), first + 2*ser(1048)}
		if len(resp) != 3 || resp[0] != want[0] || resp[1] != want[1] || resp[2] != want[2] {
			t.Errorf("responders first %v: response sent at %v, want %v", respFirst, resp, want)
		}
		if wantAfter := map[bool]int{true: 26, false: 0}[respFirst]; sendAfter != wantAfter {
			t.Errorf("responders first %v: %d SEND packets after the response began, want %d", respFirst, sendAfter, wantAfter)
		}
		if wantRead := want[2] + 2*ser(1048) + 2*engine.Microsecond; read.Finished != wantRead {
			t.Errorf("responders first %v: READ done at %v, want %v", respFirst, read.Finished, wantRead)
		}
		if !send.Done {
			t.Errorf("responders first %v: SEND not done", respFirst)
		}
	}
}

// An ATOMIC (48 + 28 B AtomicETH = 76 B) and its ATOMIC ACK (max(60, 46
// + 8) = 60 B) each cross two hops: the completion is one RTT (4 us) plus
// two serialisations of each packet. FETCH_ADD returns the old word and
// adds; CMP_SWAP swaps only on a match.
func TestAtomicTiming(t *testing.T) {
	r := verbRig(t, lineRateSpec(), nil, nil)
	r.c.Hosts[1].SetWord(64, 10)
	faa := r.c.NewMessage(0, 1, 8)
	faa.Verb, faa.Ext = rocev2.FetchAdd, &rnic.Ext{Addr: 64, Operand: 5}
	r.post(0, faa)
	casMiss := r.c.NewMessage(0, 1, 8)
	casMiss.Verb, casMiss.Ext = rocev2.CompareSwap, &rnic.Ext{Addr: 64, Compare: 10, Operand: 99}
	r.post(engine.Millisecond, casMiss)
	casHit := r.c.NewMessage(0, 1, 8)
	casHit.Verb, casHit.Ext = rocev2.CompareSwap, &rnic.Ext{Addr: 64, Compare: 15, Operand: 7}
	r.post(2*engine.Millisecond, casHit)
	r.drain(t)
	want := 2*(ser(76)+engine.Microsecond) + 2*(ser(60)+engine.Microsecond)
	for _, tc := range []struct {
		name   string
		m      *rnic.Message
		result uint64
	}{{"FETCH_ADD", faa, 10}, {"CMP_SWAP miss", casMiss, 15}, {"CMP_SWAP hit", casHit, 15}} {
		if !tc.m.Done || tc.m.FCT() != want || tc.m.Ext.Result != tc.result {
			t.Errorf("%s: done %v, fct %v, result %d; want done, %v, %d", tc.name, tc.m.Done, tc.m.FCT(), tc.m.Ext.Result, want, tc.result)
		}
	}
	if got := r.c.Hosts[1].Word(64); got != 7 {
		t.Errorf("word after FETCH_ADD 5, a missed and a hit CMP_SWAP: got %d, want 7", got)
	}
}

// A WRITE takes the SEND's packets and timings; only the opcodes differ.
func TestWriteTimingIsSend(t *testing.T) {
	var fct [2]engine.Time
	for i, v := range []rocev2.Verb{rocev2.Send, rocev2.Write} {
		r := verbRig(t, lineRateSpec(), nil, nil)
		m, log := r.one(t, v, 2500)
		fct[i] = m.FCT()
		first := rocev2.SendFirst
		if v == rocev2.Write {
			first = rocev2.WriteFirst
		}
		want := []rocev2.Opcode{first, first + 1, first + 2}
		if len(log.op) != 3 || log.op[0] != want[0] || log.op[1] != want[1] || log.op[2] != want[2] {
			t.Errorf("%v: opcodes %v, want %v", v, log.op, want)
		}
	}
	// 3 packets (1048, 1048, 548 B) back to back; at the switch the last
	// one waits for the second (which ends at 3*ser(1048) + 1 us), then
	// its 60 B ACK comes back.
	want := 3*ser(1048) + ser(548) + 2*engine.Microsecond + 2*(ser(60)+engine.Microsecond)
	if fct[0] != want || fct[1] != want {
		t.Errorf("fct SEND %v, WRITE %v; want both %v", fct[0], fct[1], want)
	}
}

// WQEs on one send queue complete in posting order: a SEND posted after a
// 100 kB READ on the same QP is acknowledged long before the READ's
// response ends, and completes with the READ.
func TestCompletionInPostingOrder(t *testing.T) {
	r := verbRig(t, lineRateSpec(), nil, func(c *rnic.Config) { c.Mapping = rnic.Mapping{Pool: 1} })
	read := r.c.NewMessage(0, 1, 100_000)
	read.Verb = rocev2.Read
	r.post(0, read)
	send := r.post(0, r.c.NewMessage(0, 1, 1000))
	var order []int64
	for _, m := range []*rnic.Message{read, send} {
		m.Ext = &rnic.Ext{OnDone: func(m *rnic.Message) { order = append(order, m.ID) }}
	}
	r.drain(t)
	// The SEND's ACK is back at about 4.2 us; the READ's 100 packets take
	// 8.4 us to leave B, plus the 60 B ACK of the SEND that B's port sends
	// between two of them.
	atB := 2 * (ser(64) + engine.Microsecond)
	wantRead := atB + 100*ser(1048) + ser(60) + ser(1048) + 2*engine.Microsecond
	if read.Finished != wantRead || send.Finished != wantRead {
		t.Errorf("READ done at %v, SEND at %v; want both at %v", read.Finished, send.Finished, wantRead)
	}
	if len(order) != 2 || order[0] != read.ID || order[1] != send.ID {
		t.Errorf("OnDone order %v, want [%d %d]", order, read.ID, send.ID)
	}
}

// A fence: a WQE whose Wait predicate is "every earlier WQE is done"
// sends its first packet only when the READ before it completes, as soon
// as A's port is free: it is sending the 60 B ACK of the last response
// packet, queued just before the READ completed.
func TestWaitHoldsWQE(t *testing.T) {
	r := verbRig(t, lineRateSpec(), nil, func(c *rnic.Config) { c.Mapping = rnic.Mapping{Pool: 1} })
	log := &sentLog{}
	r.c.Observer = log
	read := r.c.NewMessage(0, 1, 3000)
	read.Verb = rocev2.Read
	r.post(0, read)
	send := r.c.NewMessage(0, 1, 1000)
	send.Ext = &rnic.Ext{Wait: func(qp *rnic.QP) bool { return qp.Messages()[0] == send }}
	r.post(0, send)
	r.drain(t)
	var sendAt engine.Time = -1
	for i, op := range log.op {
		if op == rocev2.SendOnly {
			sendAt = log.at[i]
		}
	}
	if want := read.Finished + ser(60); sendAt != want {
		t.Errorf("fenced SEND sent at %v, want %v (the READ completed at %v, then one ACK)", sendAt, want, read.Finished)
	}
}

// OnPlace sees every payload placed at its destination once: the SEND's
// and the READ response's packets, not the READ request.
func TestOnPlace(t *testing.T) {
	r := verbRig(t, lineRateSpec(), nil, nil)
	placed := map[int]int64{}
	r.c.OnPlace = func(_ engine.Time, at *rnic.Host, p *fabric.Packet) { placed[at.ID] += int64(p.Payload) }
	read := r.c.NewMessage(0, 1, 2500)
	read.Verb = rocev2.Read
	r.post(0, read)
	r.post(0, r.c.NewMessage(0, 1, 1500))
	r.drain(t)
	if placed[0] != 2500 || placed[1] != 1500 {
		t.Errorf("placed: host 0 %d B, host 1 %d B; want 2500 (READ data) and 1500 (SEND)", placed[0], placed[1])
	}
}

// With RealisticHeaders a WRITE's first packet carries its 16 B RETH:
// 1000 + 62 + 20 + 16 B, then 1082 B and 582 B; a SEND's are 1082, 1082, 582.
func TestWriteRETHRealistic(t *testing.T) {
	for _, tc := range []struct {
		v    rocev2.Verb
		want []uint16
	}{{rocev2.Send, []uint16{1082, 1082, 582}}, {rocev2.Write, []uint16{1098, 1082, 582}}} {
		r := verbRig(t, lineRateSpec(), nil, func(c *rnic.Config) { c.Headers = rocev2.RealisticHeaders })
		_, log := r.one(t, tc.v, 2500)
		if len(log.size) != 3 || log.size[0] != tc.want[0] || log.size[1] != tc.want[1] || log.size[2] != tc.want[2] {
			t.Errorf("%v: wire sizes %v, want %v", tc.v, log.size, tc.want)
		}
	}
}

// A Message and a QP stay in the size classes they had before verbs (176
// and 208 B): the verbs' rarely used fields live behind Message.Ext and
// the QP's extension.
func TestMessageSize(t *testing.T) {
	if got := unsafe.Sizeof(rnic.Message{}); got != 168 {
		t.Errorf("Message is %d B, want 168", got)
	}
	if got := unsafe.Sizeof(rnic.QP{}); got > 208 {
		t.Errorf("QP is %d B, want at most 208", got)
	}
}

// Cluster.OnAtomic replaces the target's execution: its value is what
// the ATOMIC ACK carries back, and the host's memory is not touched.
func TestOnAtomic(t *testing.T) {
	r := verbRig(t, lineRateSpec(), nil, nil)
	var at []int
	r.c.OnAtomic = func(_ engine.Time, h *rnic.Host, m *rnic.Message) uint64 {
		at = append(at, h.ID)
		return 42 + m.Ext.Operand
	}
	m := r.c.NewMessage(0, 1, 8)
	m.Verb, m.Ext = rocev2.FetchAdd, &rnic.Ext{Addr: 8, Operand: 1}
	r.post(0, m)
	r.drain(t)
	if !m.Done || m.Ext.Result != 43 || len(at) != 1 || at[0] != 1 || r.c.Hosts[1].Word(8) != 0 {
		t.Errorf("done %v, result %d, executed at %v, word %d; want done, 43, [1], 0", m.Done, m.Ext.Result, at, r.c.Hosts[1].Word(8))
	}
}

// atomicAcks counts the ATOMIC ACKs a port transmits.
type atomicAcks struct {
	fabric.NopObserver
	n int
}

func (o *atomicAcks) Transmit(_ engine.Time, _ *fabric.Port, p *fabric.Packet) {
	if rocev2.Opcode(p.Op) == rocev2.AtomicAck {
		o.n++
	}
}

// An RTO shorter than the RTT resends the ATOMIC before its ATOMIC ACK is
// back (at 1.5 and 3 us; the ACK is back at 4.02 us): the target does not
// execute the first duplicate (at 3.51 us), it sends the ATOMIC ACK again
// with the value the first execution returned, and ignores the second
// (at 5.01 us, after the WQE completed).
func TestDuplicateAtomicReplayed(t *testing.T) {
	r := verbRig(t, lineRateSpec(), nil, func(c *rnic.Config) { c.RTO = 1500 * engine.Nanosecond })
	r.c.Hosts[1].SetWord(0, 100)
	obs := &atomicAcks{}
	r.net.HostPorts[1].Observer = obs
	m := r.c.NewMessage(0, 1, 8)
	m.Verb, m.Ext = rocev2.FetchAdd, &rnic.Ext{Operand: 1}
	r.post(0, m)
	r.drain(t)
	if !m.Done || m.Ext.Result != 100 || r.c.Hosts[1].Word(0) != 101 || r.c.Counters.RTOs != 2 || obs.n != 2 {
		t.Errorf("done %v, result %d, word %d, %d RTOs, %d ATOMIC ACKs; want done, 100, 101, 2, 2",
			m.Done, m.Ext.Result, r.c.Hosts[1].Word(0), r.c.Counters.RTOs, obs.n)
	}
}

// A READ request resent by a timeout before its response is back is
// answered once: one responder context, 3000 B of response sent for the
// first time (the context's own timeouts resend some of it), one
// completion.
func TestDuplicateReadAnsweredOnce(t *testing.T) {
	r := verbRig(t, lineRateSpec(), nil, func(c *rnic.Config) { c.RTO = 1500 * engine.Nanosecond })
	m, _ := r.one(t, rocev2.Read, 3000)
	k := r.c.Counters
	if !m.Done || len(r.done) != 1 || k.QPsOpened != 2 || k.PayloadSent-k.Retransmitted != 3000 || k.RTOs == 0 {
		t.Errorf("done %v (%d completions), %d QPs, %d B sent new, %d RTOs; want done once, 2, 3000, at least 1",
			m.Done, len(r.done), k.QPsOpened, k.PayloadSent-k.Retransmitted, k.RTOs)
	}
}
