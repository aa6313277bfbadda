package fabric

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// txLog records the times its port starts transmitting.
type txLog struct {
	NopObserver
	at []engine.Time
}

func (o *txLog) Transmit(now engine.Time, _ *Port, _ *Packet) { o.at = append(o.at, now) }

func creditStar(t *testing.T, credits int64) (*engine.Sim, *Network) {
	t.Helper()
	topo, err := Star(3, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	sim := engine.NewSim(1)
	cfg := DefaultConfig()
	cfg.Credits, cfg.MaxFrame = credits, 1048
	n, err := Build(sim, topo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim, n
}

// One sender at line rate, 4 frames of credits, a 1 us link: it sends 4
// frames back to back (83.84 ns each), stalls at zero credits, and the
// first frame's credits come back one link delay after the switch sent
// it on, which it does on arrival (its egress is idle): 83.84 + 1,000 +
// 1,000 ns after the first transmission. So it sends 4 frames every
// 2,083.84 ns, never a PAUSE, never a drop, and the switch never holds
// more than the credits.
func TestCreditStallsAndReturns(t *testing.T) {
	const frame = 1048
	sim, n := creditStar(t, 4*frame)
	src := &obedient{pool: n.Pool, dst: 2}
	src.pt = n.Attach(0, pfcSink{n.Pool}, src)
	n.Attach(1, sink{n.Pool}, nil)
	n.Attach(2, sink{n.Pool}, nil)
	log := &txLog{}
	src.pt.Observer = log
	if _, ok := n.Credits(n.Switches[0].Ports[n.hostPort[2]], 3); ok {
		t.Fatal("the switch port facing a host has credits, want none")
	}
	src.pt.Kick(0)
	sw := n.Switches[0]
	in := n.hostPort[0]
	var peak int64
	for step := engine.Time(0); step < 10*engine.Microsecond; step += 10 * engine.Nanosecond {
		sim.Run(step)
		peak = max(peak, sw.IngressBytes(int(in), 3))
		if err := n.CheckCredits(); err != nil {
			t.Fatalf("at %v: %v", step, err)
		}
		if step == 2000*engine.Nanosecond {
			if c, _ := n.Credits(src.pt, 3); c != 0 || !src.pt.Paused(3) {
				t.Errorf("at 2 us: %d credits, stalled %v; want 0 and stalled", c, src.pt.Paused(3))
			}
		}
	}
	period, tx := 2083840*engine.Picosecond, 83840*engine.Picosecond
	for i, at := range log.at {
		if want := engine.Time(i/4)*period + engine.Time(i%4)*tx; at != want {
			t.Fatalf("frame %d sent at %v, want %v (transmissions %v)", i, at, want, log.at[:min(len(log.at), 12)])
		}
	}
	if got := len(log.at); got != 20 { // 10 us / 2,083.84 ns = 4.8 rounds: the 5th starts at 8,335.36 ns
		t.Errorf("sent %d frames in 10 us, want 20", got)
	}
	if peak > 4*frame || sw.PauseSent != 0 || sw.Drops != 0 {
		t.Errorf("switch held up to %d B (credits %d), sent %d PAUSEs, dropped %d; want at most the credits, none, none", peak, 4*frame, sw.PauseSent, sw.Drops)
	}
	stalls, over := n.CreditCounters()
	// The first round runs out once; from then on each return of one
	// frame's credits releases exactly one frame, which runs out again at
	// once: 1 + 4 x 4 stalls, and the class is stalled from the 4th
	// frame's start (251.52 ns) on, but for instants.
	if stalls != 17 || over != 0 {
		t.Errorf("got %d stalls and %d B overdraft, want 17 and 0", stalls, over)
	}
	want := 10*engine.Microsecond - 3*tx
	if got := src.pt.PausedFor(10*engine.Microsecond, 3); got != want {
		t.Errorf("stalled for %v, want %v", got, want)
	}
}

// Two line-rate senders into one host port: the switch's egress takes
// one frame per 83.84 ns, so the senders' credits come back at half
// their rate and each sends half; nothing is dropped or paused, the
// input buffers never hold more than the credits, and once the senders
// stop every credit returns.
func TestCreditIncastIsLossless(t *testing.T) {
	const frame, credits = 1048, 16 * 1048
	sim, n := creditStar(t, credits)
	var logs [2]*txLog
	var srcs [2]*obedient
	for h := range srcs {
		srcs[h] = &obedient{pool: n.Pool, dst: 2}
		srcs[h].pt = n.Attach(h, pfcSink{n.Pool}, srcs[h])
		logs[h] = &txLog{}
		srcs[h].pt.Observer = logs[h]
	}
	n.Attach(2, sink{n.Pool}, nil)
	for _, s := range srcs {
		s.pt.Kick(0)
	}
	sw := n.Switches[0]
	for step := engine.Time(0); step <= 100*engine.Microsecond; step += 100 * engine.Nanosecond {
		sim.Run(step)
		for h := range srcs {
			if b := sw.IngressBytes(int(n.hostPort[h]), 3); b > credits {
				t.Fatalf("at %v: input %d holds %d B, more than %d credits", step, h, b, credits)
			}
		}
		if err := n.CheckCredits(); err != nil {
			t.Fatalf("at %v: %v", step, err)
		}
	}
	out := sw.Ports[n.hostPort[2]]
	// In 100 us the host port carries 100 us / 83.84 ns frames, less the
	// first frame's way in (1,083.84 ns); the two senders share them.
	sent0, sent1 := len(logs[0].at), len(logs[1].at)
	if d := sent0 - sent1; d < -1 || d > 1 {
		t.Errorf("senders sent %d and %d frames, want an equal share", sent0, sent1)
	}
	if sw.PauseSent != 0 || sw.Drops != 0 || n.PauseFrames != 0 {
		t.Errorf("%d PAUSEs, %d drops; want none", sw.PauseSent, sw.Drops)
	}
	if got, want := out.TxPackets, int64((100*engine.Microsecond-1083840*engine.Picosecond)/(83840*engine.Picosecond))+1; got != want {
		t.Errorf("the receiver's port sent %d frames in 100 us, want %d (line rate)", got, want)
	}
	for _, s := range srcs {
		s.acks = false
		s.pt.SetSource(stopped{})
	}
	sim.Run(200 * engine.Microsecond)
	for h := range srcs {
		if c, _ := n.Credits(srcs[h].pt, 3); c != credits {
			t.Errorf("sender %d ends with %d credits, want all %d back", h, c, credits)
		}
	}
}

// stopped is a source with nothing to send.
type stopped struct{}

func (stopped) Next(engine.Time) *Packet { return nil }
func (stopped) HasMore() bool            { return false }
