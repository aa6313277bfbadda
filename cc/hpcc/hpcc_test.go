package hpcc

import (
	"container/heap"
	"math"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/cc/cctest"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

const us = engine.Microsecond

// env100: 100 Gbps NIC, T = 10 us, W = 125 KB (the BDP at 100 Gbps).
var env100 = cc.Env{LineRate: 100 * engine.Gbps, MinRate: engine.Gbps,
	BaseRTT: 10 * us, BDP: 125_000, MTU: 1000}

// bottleneckSignal reports one hop of capacity c whose transmit counter
// runs at util*c and whose queue holds qlen bytes, as seen by a packet
// that left the sender at SentAt (records taken half an RTT later).
func bottleneckSignal(c engine.Rate, util float64, qlen int64) func() cctest.Signal {
	return func() cctest.Signal {
		return func(fb *cc.Feedback, p cctest.Packet) {
			at := p.SentAt + env100.BaseRTT/2
			fb.INT = append(fb.INT, fabric.INTHop{LineRate: c, Time: at,
				TxBytes: int64(float64(c.BytesIn(at)) * util), QLen: qlen})
		}
	}
}

func TestConformance(t *testing.T) {
	for _, name := range []string{"default", "slow-react", "multi-rate", "mi-thresh"} {
		t.Run(name, func(t *testing.T) {
			p := DefaultParams(env100.LineRate)
			switch name {
			case "slow-react":
				p.FastReact = false
			case "multi-rate":
				p.MultiRate, p.SampleFeedback = true, true
			case "mi-thresh":
				p.MaxStage = 5
			}
			// Congested: a full link with 50 KB queued, u = 1 + 0.4 = 1.4.
			// Relieved: half the link busy, no queue, u = 0.5: R_c/k grows
			// 1.9x per RTT, back at line rate within a few RTTs.
			cctest.Run(t, Spec(p), env100,
				cctest.Congest(bottleneckSignal(100*engine.Gbps, 1, 50_000)),
				cctest.Relieve(bottleneckSignal(100*engine.Gbps, 0.5, 0)),
				cctest.RecoverWithin(engine.Millisecond, 0.99))
		})
	}
}

func hop(at engine.Time, txBytes, qlen int64) []fabric.INTHop {
	return []fabric.INTHop{{LineRate: 100 * engine.Gbps, Time: at, TxBytes: txBytes, QLen: qlen}}
}

// TestHandBuiltSingleHop feeds one hop at known utilisation and checks U
// and R against the formulas of docs/model.md §5.3 computed by hand.
func TestHandBuiltSingleHop(t *testing.T) {
	p := DefaultParams(env100.LineRate) // eta 0.95, W_AI 40 Mb/s, maxStage 0
	q := New(p, env100)
	t0 := 100 * us
	// First ACK: stores the hop, no rate change.
	q.OnAck(&cc.Feedback{Now: t0, AckSeq: 1000, SndNxt: 20_000, INT: hop(t0, 1_000_000, 12_500)})
	if q.Rate() != env100.LineRate || q.Util() != 1 {
		t.Fatalf("after the first ACK: R %v U %v, want %v and 1", q.Rate(), q.Util(), env100.LineRate)
	}
	// Second ACK, a new RTT (ack 21000 > 20000): 1 us later the port sent
	// 10,000 B (80 Gbps, 0.8 of 100 Gbps) and 12,500 B stay queued:
	//   u  = 0.8 + 12500 * 100G / (100G * 125000) = 0.9
	//   U  = (1 * (10 - 1) + 0.9 * 1) / 10 = 0.99
	//   k  = 0.99 / 0.95
	//   R  = 100 Gbps / k + 40 Mb/s
	q.OnAck(&cc.Feedback{Now: t0 + us, AckSeq: 21_000, SndNxt: 40_000, INT: hop(t0+us, 1_010_000, 12_500)})
	wantU := 0.99
	if got := q.Util(); math.Abs(got-wantU) > 1e-12 {
		t.Errorf("U = %.15f, want %.15f", got, wantU)
	}
	wantR := rateOf(100e9/(0.99/0.95)) + 40*engine.Mbps
	if got := q.Rate(); absDiff(got, wantR) > 1 {
		t.Errorf("R = %v, want %v", got, wantR)
	}
	if got := q.RefRate(); got != q.Rate() {
		t.Errorf("R_c = %v, want R %v after a once-per-RTT update", got, q.Rate())
	}
	rc := q.RefRate()

	// Third ACK inside the same RTT (ack 30000 <= 40000): fast reaction.
	// 2 us later at 1.0 utilisation and a 25,000 B queue (min with the
	// stored 12,500 counts): u = 1.0 + 0.1 = 1.1; dt = 2 us:
	//   U = (0.99 * 8 + 1.1 * 2) / 10 = 1.012
	//   R = R_c / (1.012/0.95) + 40 Mb/s; R_c unchanged.
	q.OnAck(&cc.Feedback{Now: t0 + 3*us, AckSeq: 30_000, SndNxt: 60_000, INT: hop(t0+3*us, 1_035_000, 25_000)})
	wantU = (0.99*8 + 1.1*2) / 10
	if got := q.Util(); math.Abs(got-wantU) > 1e-12 {
		t.Errorf("U after fast react = %.15f, want %.15f", got, wantU)
	}
	wantR = engine.Rate(float64(rc)/(wantU/0.95)) + 40*engine.Mbps
	if got := q.Rate(); absDiff(got, wantR) > 1 {
		t.Errorf("R after fast react = %v, want %v", got, wantR)
	}
	if got := q.RefRate(); got != rc {
		t.Errorf("R_c after fast react = %v, want unchanged %v", got, rc)
	}

	// A long gap (tau = 50 us > T): dt is capped at T, so U = u. An idle
	// port (u = 0.1, no queue): k = 0.1/0.95, R = R_c/k + W_AI > R_max,
	// clamped to line rate.
	q.OnAck(&cc.Feedback{Now: t0 + 53*us, AckSeq: 61_000, SndNxt: 70_000, INT: hop(t0+53*us, 1_035_000+62_500, 0)})
	if got := q.Util(); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("U after a gap longer than T = %v, want 0.1", got)
	}
	if got := q.Rate(); got != env100.LineRate {
		t.Errorf("R = %v, want clamped to %v", got, env100.LineRate)
	}
}

// rateOf truncates like the reference's DataRate(double).
func rateOf(bps float64) engine.Rate { return engine.Rate(bps) }

func absDiff(a, b engine.Rate) engine.Rate {
	if a > b {
		return a - b
	}
	return b - a
}

// TestFastReactOff: with FAST_REACT 0, ACKs inside an RTT change nothing.
func TestFastReactOff(t *testing.T) {
	p := DefaultParams(env100.LineRate)
	p.FastReact = false
	q := New(p, env100)
	q.OnAck(&cc.Feedback{Now: 0, AckSeq: 1000, SndNxt: 20_000, INT: hop(0, 0, 0)})
	q.OnAck(&cc.Feedback{Now: us, AckSeq: 21_000, SndNxt: 40_000, INT: hop(us, 12_500, 50_000)})
	r, u := q.Rate(), q.Util()
	q.OnAck(&cc.Feedback{Now: 2 * us, AckSeq: 30_000, SndNxt: 41_000, INT: hop(2*us, 25_000, 100_000)})
	if q.Rate() != r || q.Util() != u {
		t.Errorf("inside an RTT: R %v U %v, want unchanged %v %v", q.Rate(), q.Util(), r, u)
	}
	// The next RTT sees the record stored two ACKs ago, so tau = 2 us.
	q.OnAck(&cc.Feedback{Now: 3 * us, AckSeq: 41_000, SndNxt: 50_000, INT: hop(3*us, 37_500, 100_000)})
	wantU := (u*8 + (1+0.4)*2) / 10 // 25,000 B in 2 us = 1.0; queue min(50K,100K)/125K
	if got := q.Util(); math.Abs(got-wantU) > 1e-12 {
		t.Errorf("U = %v, want %v", got, wantU)
	}
}

// TestAdditiveStages: with mi_thresh 3 and U below eta, three additive
// steps of W_AI per RTT, then a multiplicative one.
func TestAdditiveStages(t *testing.T) {
	p := DefaultParams(env100.LineRate)
	p.MaxStage = 3
	env := env100
	env.BaseRTT = us // T = 1 us: each sample (tau = 1 us) replaces U
	q := New(p, env)
	// Start from a lower rate: one congested RTT first.
	q.OnAck(&cc.Feedback{Now: 0, AckSeq: 1, SndNxt: 1000, INT: hop(0, 0, 125_000)})
	q.OnAck(&cc.Feedback{Now: us, AckSeq: 1001, SndNxt: 2000, INT: hop(us, 12_500, 125_000)}) // u = 2
	r := q.Rate()
	if want := rateOf(100e9/(2/0.95)) + 40*engine.Mbps; absDiff(r, want) > 1 {
		t.Fatalf("R after u = 2: %v, want %v", r, want)
	}
	seq := int64(2000)
	tx := int64(12_500)
	for i := 1; i <= 4; i++ {
		tx += 6_250 // u = 0.5, no queue
		q.OnAck(&cc.Feedback{Now: engine.Time(i+1) * us, AckSeq: seq + 1, SndNxt: seq + 1000, INT: hop(engine.Time(i+1)*us, tx, 0)})
		seq += 1000
		var want engine.Rate
		if i <= 3 {
			want = r + engine.Rate(i)*40*engine.Mbps
		} else {
			want = min(env.LineRate, engine.Rate(float64(r+3*40*engine.Mbps)/(0.5/0.95))+40*engine.Mbps)
		}
		if got := q.Rate(); absDiff(got, want) > 1 {
			t.Errorf("RTT %d: R = %v, want %v", i, got, want)
		}
	}
}

// TestMultiRate: two hops, one congested: R is the smaller per-hop rate.
func TestMultiRate(t *testing.T) {
	p := DefaultParams(env100.LineRate)
	p.MultiRate = true
	q := New(p, env100)
	two := func(at engine.Time, tx0, tx1, q1 int64) []fabric.INTHop {
		return []fabric.INTHop{
			{LineRate: 100 * engine.Gbps, Time: at, TxBytes: tx0},
			{LineRate: 100 * engine.Gbps, Time: at, TxBytes: tx1, QLen: q1},
		}
	}
	q.OnAck(&cc.Feedback{Now: 0, AckSeq: 1, SndNxt: 1000, INT: two(0, 0, 0, 125_000)})
	// Hop 0 at 0.5, hop 1 at 1.0 + 1.0 queue = 2.0; tau = T so U_i = u_i.
	q.OnAck(&cc.Feedback{Now: 10 * us, AckSeq: 1001, SndNxt: 2000, INT: two(10*us, 62_500, 125_000, 125_000)})
	want := rateOf(100e9/(2/0.95)) + 40*engine.Mbps
	if got := q.Rate(); absDiff(got, want) > 1 {
		t.Errorf("R = %v, want hop 1's %v", got, want)
	}
	if got := q.perHop[0].rc; got != env100.LineRate {
		t.Errorf("hop 0 R_c = %v, want %v", got, env100.LineRate)
	}
}

// TestSampleFeedback: on a fast-react ACK a hop with an empty queue is
// skipped (not even stored); on an RTT ACK it counts.
func TestSampleFeedback(t *testing.T) {
	p := DefaultParams(env100.LineRate)
	p.SampleFeedback = true
	q := New(p, env100)
	q.OnAck(&cc.Feedback{Now: 0, AckSeq: 1, SndNxt: 10_000, INT: hop(0, 0, 0)})
	q.OnAck(&cc.Feedback{Now: us, AckSeq: 5000, SndNxt: 10_000, INT: hop(us, 12_500, 0)})
	if q.Rate() != env100.LineRate || q.Util() != 1 || q.hops[0].Time != 0 {
		t.Errorf("fast ACK with an empty queue: R %v U %v stored time %v, want untouched", q.Rate(), q.Util(), q.hops[0].Time)
	}
	q.OnAck(&cc.Feedback{Now: 2 * us, AckSeq: 10_001, SndNxt: 20_000, INT: hop(2*us, 12_500, 0)})
	if q.hops[0].Time != 2*us || q.Util() == 1 {
		t.Errorf("RTT ACK: stored time %v U %v, want 2us and a new U", q.hops[0].Time, q.Util())
	}
}

// TestBadRecords: repeated, backwards or over-long INT stacks give no
// sample but never a NaN or an out-of-range rate.
func TestBadRecords(t *testing.T) {
	q := New(DefaultParams(env100.LineRate), env100)
	q.OnAck(&cc.Feedback{Now: 0, AckSeq: 1, SndNxt: 1000, INT: hop(us, 5000, 0)})
	q.OnAck(&cc.Feedback{Now: us, AckSeq: 1001, SndNxt: 2000, INT: hop(us, 5000, 0)})             // tau = 0
	q.OnAck(&cc.Feedback{Now: 2 * us, AckSeq: 2001, SndNxt: 3000, INT: hop(0, 10000, 0)})         // back in time
	q.OnAck(&cc.Feedback{Now: 3 * us, AckSeq: 3001, SndNxt: 4000, INT: hop(5*us, 100, 0)})        // fewer bytes
	q.OnAck(&cc.Feedback{Now: 4 * us, AckSeq: 4001, SndNxt: 5000, INT: make([]fabric.INTHop, 6)}) // too long
	if q.Util() != 1 || q.Rate() != env100.LineRate {
		t.Errorf("U %v R %v, want 1 and line rate (no valid sample)", q.Util(), q.Rate())
	}
}

// TestChangedRate: an update goes through the reference NIC's ChangeRate
// only when some hop gave a sample (rdma-hw.cc UpdateRateHp's
// updated_any), never on a QP's first ACK, which only stores the hops
// (issue 30: the ns-3 profile pulls the NIC's wake-up only then).
func TestChangedRate(t *testing.T) {
	q := New(DefaultParams(env100.LineRate), env100)
	steps := []struct {
		fb   cc.Feedback
		want bool
	}{
		{cc.Feedback{Now: 0, AckSeq: 1000, SndNxt: 20_000, INT: hop(0, 0, 0)}, false},                    // the first ACK
		{cc.Feedback{Now: us, AckSeq: 21_000, SndNxt: 40_000, INT: hop(us, 10_000, 0)}, true},            // a new RTT, a sample
		{cc.Feedback{Now: 2 * us, AckSeq: 22_000, SndNxt: 41_000, INT: hop(2*us, 20_000, 0)}, true},      // fast reaction, a sample
		{cc.Feedback{Now: 3 * us, AckSeq: 23_000, SndNxt: 42_000, INT: hop(2*us, 20_000, 0)}, false},     // tau = 0: no sample
		{cc.Feedback{Now: 4 * us, AckSeq: 41_000, SndNxt: 43_000, INT: make([]fabric.INTHop, 6)}, false}, // too long
	}
	for i, st := range steps {
		q.OnAck(&st.fb)
		if got := q.ChangedRate(); got != st.want {
			t.Errorf("ACK %d: ChangedRate() = %v, want %v", i, got, st.want)
		}
	}
	var _ cc.RateChangeReporter = q
}

func TestWindow(t *testing.T) {
	q := New(DefaultParams(env100.LineRate), env100)
	if got := q.Window(); got != env100.BDP {
		t.Errorf("Window() at line rate = %d, want %d", got, env100.BDP)
	}
	q.rate = 25 * engine.Gbps
	if got, want := q.Window(), env100.BDP/4; got != want {
		t.Errorf("Window() at 25 Gbps = %d, want %d", got, want)
	}
	q.rate = 1 // the reference floor: one byte
	if got := q.Window(); got != 1 {
		t.Errorf("Window() at 1 bps = %d, want 1", got)
	}
}

// bottleneck is a closed-loop toy at packet level: n HPCC flows, each
// pacing 1000 B packets at Rate() and stopping at Window() bytes in flight,
// share one FIFO link of capacity c. A packet reaches the link d1 after it
// is sent, is stamped with the link's INT record when its transmission
// starts (time, bytes sent before it, bytes queued behind it), and its ACK
// returns base RTT - d1 - its serialization later; so the base RTT is
// env.BaseRTT and queueing adds to it.
type bottleneck struct {
	env     cc.Env
	c       engine.Rate
	flows   []*toyFlow
	events  eventHeap
	seq     int
	queue   []toyPkt
	busy    bool
	txBytes int64
	qBytes  int64
	d1      engine.Time
}

type toyFlow struct {
	q         *State
	sndNxt    int64
	sndUna    int64
	nextSend  engine.Time
	sendArmed bool
	acked     int64 // bytes ACKed inside the measurement window
	buf       []fabric.INTHop
}

type toyPkt struct {
	flow int
	seq  int64
	hop  fabric.INTHop
}

const (
	evSend = iota
	evArrive
	evDone
	evAck
)

type toyEvent struct {
	at   engine.Time
	seq  int
	kind int
	pkt  toyPkt
}

type eventHeap []toyEvent

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(toyEvent)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

const toyMTU = 1000

func (b *bottleneck) at(t engine.Time, kind int, p toyPkt) {
	b.seq++
	heap.Push(&b.events, toyEvent{t, b.seq, kind, p})
}

func (b *bottleneck) trySend(i int, now engine.Time) {
	f := b.flows[i]
	if f.sendArmed {
		return
	}
	if w := f.q.Window(); w > 0 && f.sndNxt-f.sndUna >= w {
		return // an ACK will call again
	}
	f.sendArmed = true
	b.at(max(now, f.nextSend), evSend, toyPkt{flow: i})
}

func (b *bottleneck) startService(now engine.Time) {
	p := b.queue[0]
	b.queue = b.queue[1:]
	b.qBytes -= toyMTU
	p.hop = fabric.INTHop{LineRate: b.c, Time: now, TxBytes: b.txBytes, QLen: b.qBytes}
	b.txBytes += toyMTU
	b.busy = true
	b.at(now+b.c.TxTime(toyMTU), evDone, p)
}

// run simulates until end and returns each flow's goodput over the last
// fifth of the run and the mean queue (sampled at every arrival) then.
func (b *bottleneck) run(end engine.Time) (goodput []float64, meanQ float64) {
	from := end - end/5
	var qSum float64
	var qN int
	for i := range b.flows {
		b.trySend(i, 0)
	}
	for b.events.Len() > 0 {
		ev := heap.Pop(&b.events).(toyEvent)
		now := ev.at
		if now > end {
			break
		}
		switch ev.kind {
		case evSend:
			f := b.flows[ev.pkt.flow]
			f.sendArmed = false
			b.at(now+b.d1, evArrive, toyPkt{flow: ev.pkt.flow, seq: f.sndNxt})
			f.sndNxt += toyMTU
			f.nextSend = now + f.q.Rate().TxTime(toyMTU)
			b.trySend(ev.pkt.flow, now)
		case evArrive:
			b.queue = append(b.queue, ev.pkt)
			b.qBytes += toyMTU
			if now >= from {
				qSum += float64(b.qBytes)
				qN++
			}
			if !b.busy {
				b.startService(now)
			}
		case evDone:
			b.busy = false
			ret := b.env.BaseRTT - b.d1 - b.c.TxTime(toyMTU)
			b.at(now+ret, evAck, ev.pkt)
			if len(b.queue) > 0 {
				b.startService(now)
			}
		case evAck:
			f := b.flows[ev.pkt.flow]
			f.sndUna = max(f.sndUna, ev.pkt.seq+toyMTU)
			if now >= from {
				f.acked += toyMTU
			}
			f.buf[0] = ev.pkt.hop
			f.q.OnAck(&cc.Feedback{Now: now, AckSeq: f.sndUna, SndNxt: f.sndNxt, INT: f.buf})
			b.trySend(ev.pkt.flow, now)
		}
	}
	for _, f := range b.flows {
		goodput = append(goodput, float64(f.acked)*8/(end-from).Seconds())
	}
	return goodput, qSum / float64(max(qN, 1))
}

func newBottleneck(p Params, env cc.Env, c engine.Rate, n int, start []engine.Rate) *bottleneck {
	b := &bottleneck{env: env, c: c, d1: 2 * us}
	for i := range n {
		f := &toyFlow{q: New(p, env), buf: make([]fabric.INTHop, 1)}
		if start != nil {
			f.q.rate, f.q.rc = start[i], start[i]
		}
		b.flows = append(b.flows, f)
	}
	return b
}

// TestClosedLoopConverges: HPCC drives the bottleneck to eta of its
// capacity with an almost empty queue. Steady state: each RTT R =
// R_c*eta/U + W_AI, so U = eta*R/(R - W_AI) = eta*(1 + W_AI/R), a hair
// above eta (0.04% at 95 Gbps); the 1% tolerance on the total covers that
// bias and packet-level ripple. The split between flows is HPCC's weak
// point: the multiplicative step keeps rate ratios, only W_AI evens them
// out, by about W_AI/R per RTT. Two symmetric flows stay within 2% of
// eta*C/2; four flows drift apart on event-order phase effects within a
// few milliseconds, so for them the test asks Jain's index >= 0.95.
func TestClosedLoopConverges(t *testing.T) {
	p := DefaultParams(env100.LineRate)
	tests := []struct {
		name    string
		c       engine.Rate
		n       int
		start   []engine.Rate
		perFlow bool // each flow within 2% of eta*C/n (else Jain's index)
	}{
		{"one-flow-50G-link", 50 * engine.Gbps, 1, nil, true},
		{"two-flows-100G-link", 100 * engine.Gbps, 2, nil, true},
		{"two-flows-from-below", 100 * engine.Gbps, 2, []engine.Rate{10 * engine.Gbps, 10 * engine.Gbps}, true},
		{"four-flows-100G-link", 100 * engine.Gbps, 4, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBottleneck(p, env100, tt.c, tt.n, tt.start)
			goodput, meanQ := b.run(3 * engine.Millisecond)
			share := p.TargetUtil * float64(tt.c) / float64(tt.n)
			var total, sumSq float64
			for i, g := range goodput {
				total += g
				sumSq += g * g
				if tt.perFlow && math.Abs(g-share)/share > 0.02 {
					t.Errorf("flow %d: goodput %.3f Gbps, want %.3f Gbps (eta*C/n) within 2%%", i, g/1e9, share/1e9)
				}
			}
			jain := total * total / (float64(tt.n) * sumSq)
			t.Logf("total %.3f Gbps of %v (%.4f), Jain %.4f, mean queue %.0f B", total/1e9, tt.c, total/float64(tt.c), jain, meanQ)
			if want := p.TargetUtil * float64(tt.c); math.Abs(total-want)/want > 0.01 {
				t.Errorf("total goodput %.3f Gbps, want %.3f Gbps (eta*C) within 1%%", total/1e9, want/1e9)
			}
			if !tt.perFlow && jain < 0.95 {
				t.Errorf("Jain's fairness index %.4f, want >= 0.95", jain)
			}
			if meanQ > 2*toyMTU {
				t.Errorf("mean queue %.0f B, want at most 2 packets at eta < 1", meanQ)
			}
		})
	}
}

func TestDefaultParamsScale(t *testing.T) {
	tests := []struct {
		line  engine.Rate
		ai    engine.Rate
		multi int64
	}{
		{25 * engine.Gbps, 10 * engine.Mbps, 1},
		{100 * engine.Gbps, 40 * engine.Mbps, 4},
		{400 * engine.Gbps, 160 * engine.Mbps, 16},
		{10 * engine.Gbps, 4 * engine.Mbps, 1},
	}
	for _, tt := range tests {
		p := DefaultParams(tt.line)
		if p.RateAI != tt.ai || p.INTMulti != tt.multi {
			t.Errorf("%v: rate_ai %v int_multi %d, want %v %d", tt.line, p.RateAI, p.INTMulti, tt.ai, tt.multi)
		}
		if p.TargetUtil != 0.95 || p.MaxStage != 0 || !p.FastReact || p.MultiRate || !p.HasWin || !p.VarWin {
			t.Errorf("%v: got %+v, want eta 0.95, mi_thresh 0, fast_react, single rate, var window", tt.line, p)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%v: Validate() = %v", tt.line, err)
		}
	}
	dp := DefaultParams(100 * engine.Gbps)
	dp.INTMulti = 3
	s := Spec(dp)
	if s.Name != "hpcc" || s.HeaderBytes != 42 || !s.NeedsINT || s.NeedsTimestamp || s.INTMulti != 3 || !s.ChangeRate {
		t.Errorf("Spec = %+v, want hpcc, 42 B, INT in units of INT_MULTI 3, no timestamp, rate updates through ChangeRate", s)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		field string
		mut   func(*Params)
	}{
		{"u_target", func(p *Params) { p.TargetUtil = 0 }},
		{"u_target", func(p *Params) { p.TargetUtil = 1.2 }},
		{"u_target", func(p *Params) { p.TargetUtil = math.NaN() }},
		{"mi_thresh", func(p *Params) { p.MaxStage = -1 }},
		{"rate_ai", func(p *Params) { p.RateAI = -1 }},
		{"int_multi", func(p *Params) { p.INTMulti = 0 }},
		{"min_rate", func(p *Params) { p.MinRate = 0 }},
	}
	for _, tt := range tests {
		p := DefaultParams(env100.LineRate)
		tt.mut(&p)
		if err := p.Validate(); cctest.ParamField(err) != tt.field {
			t.Errorf("%s: Validate() = %v, want a cc.ParamError for %s", tt.field, err, tt.field)
		}
	}
}

// BenchmarkOnAck: three hops, every eighth ACK starts a new RTT.
func BenchmarkOnAck(b *testing.B) {
	q := New(DefaultParams(env100.LineRate), env100)
	hops := make([]fabric.INTHop, 3)
	for i := range hops {
		hops[i].LineRate = 100 * engine.Gbps
	}
	fb := cc.Feedback{INT: hops}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		fb.Now = engine.Time(i) * 80 * engine.Nanosecond
		fb.SndNxt = int64(i+8) * 1000
		fb.AckSeq = int64(i) * 1000
		for h := range hops {
			hops[h].Time = fb.Now - 4*us
			hops[h].TxBytes = int64(i) * 950
			hops[h].QLen = int64(i%7) * 1000
		}
		q.OnAck(&fb)
	}
}

// TestYAMLKeys pins the parameter names: every docs/model.md §5.3 parameter,
// snake_case, in documentation order.
func TestYAMLKeys(t *testing.T) {
	want := []string{"u_target", "mi_thresh", "rate_ai", "int_multi", "multi_rate", "sample_feedback", "fast_react", "min_rate", "has_win", "var_win", "ack_high_prio"}
	if got := cctest.YAMLKeys(Params{}); !slices.Equal(got, want) {
		t.Errorf("yaml keys = %v, want %v", got, want)
	}
}

// FuzzOnAck decodes bytes into a feedback sequence (8 bytes per ACK: time
// step, ACK advance, one to three hops' byte and queue deltas) and checks
// the rate stays in [floor, line rate] and U stays a number.
func FuzzOnAck(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255})
	f.Add([]byte{10, 200, 3, 0, 9, 128, 64, 2, 10, 1, 3, 255, 9, 0, 64, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := DefaultParams(env100.LineRate)
		if len(data) > 0 {
			p.MultiRate = data[0]&1 != 0
			p.FastReact = data[0]&2 != 0
			p.SampleFeedback = data[0]&4 != 0
			p.MaxStage = int(data[0] >> 5)
		}
		q := New(p, env100)
		var now engine.Time
		var ack, nxt int64
		hops := make([]fabric.INTHop, 3)
		for i := range hops {
			hops[i].LineRate = []engine.Rate{25, 100, 400}[i] * engine.Gbps
		}
		for ; len(data) >= 8; data = data[8:] {
			now += engine.Time(data[1]) * 100 * engine.Nanosecond
			nxt += int64(data[2]) * 100
			ack = min(nxt, ack+int64(data[3])*100)
			n := 1 + int(data[4]%3)
			for h := range n {
				hops[h].Time += engine.Time(data[5+h%3]) * 10 * engine.Nanosecond
				hops[h].TxBytes += int64(data[5+(h+1)%3]) * 64
				hops[h].QLen = int64(data[5+(h+2)%3]) * 1000
			}
			q.OnAck(&cc.Feedback{Now: now, AckSeq: ack, SndNxt: nxt, INT: hops[:n]})
			if r := q.Rate(); r < engine.Gbps || r > env100.LineRate {
				t.Fatalf("Rate() = %v, want within [1Gbps, %v]", r, env100.LineRate)
			}
			if math.IsNaN(q.Util()) || math.IsInf(q.Util(), 0) {
				t.Fatalf("U = %v, want a finite number", q.Util())
			}
		}
	})
}
