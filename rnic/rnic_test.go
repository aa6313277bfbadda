package rnic_test

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

func star(t testing.TB, n int) *fabric.Topology {
	t.Helper()
	topo, err := fabric.Star(n, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// One packet host -> switch -> host: each hop costs serialization of the
// 1048 B frame (83.84 ns at 100 Gbps) plus 1 us propagation; the 60 B ACK
// comes back the same way (4.8 ns per hop). Exact to the picosecond.
func TestOnePacketTiming(t *testing.T) {
	r := newRig(t, star(t, 2), fabric.DefaultConfig(), nil)
	m := r.postAt(0, 0, 1, 1000)
	r.sim.Run(engine.Second)
	if !m.Done {
		t.Fatal("message not done")
	}
	data := 2 * (engine.Time(1048*80) + engine.Microsecond)
	ack := 2 * (engine.Time(60*80) + engine.Microsecond)
	if got, want := m.FCT(), data+ack; got != want {
		t.Fatalf("fct = %v, want %v", got, want)
	}
}

// A long single flow's goodput is line rate * payload/(payload+48).
func TestLongFlowGoodput(t *testing.T) {
	r := newRig(t, star(t, 2), fabric.DefaultConfig(), nil)
	const size = 100_000_000
	m := r.postAt(0, 0, 1, size)
	r.sim.Run(engine.Second)
	if !m.Done {
		t.Fatal("message not done")
	}
	want := 100e9 * 1000.0 / 1048.0
	got := float64(size*8) / m.FCT().Seconds()
	if d := (got - want) / want; d > 0.005 || d < -0.005 {
		t.Fatalf("goodput %.4g b/s, want %.4g within 0.5%%", got, want)
	}
	t.Logf("goodput %.6g b/s (%.4f%% of the header-limited rate), %d events", got, 100*got/want, r.sim.Events())
}

// incast runs n senders of size bytes each to host 0 through one switch.
func incast(t *testing.T, n int, size int64, fcfg fabric.Config) *rig {
	t.Helper()
	r := newRig(t, star(t, n+1), fcfg, nil)
	for s := 1; s <= n; s++ {
		r.postAt(0, s, 0, size)
	}
	if !r.sim.Run(10 * engine.Second) {
		t.Fatalf("incast %d: events still pending at 10 s", n)
	}
	if len(r.done) != n {
		t.Fatalf("incast %d: %d of %d messages done", n, len(r.done), n)
	}
	if err := r.c.CheckDrained(); err != nil {
		t.Fatalf("incast %d: %v", n, err)
	}
	if got, want := r.c.Counters.PayloadInOrder, int64(n)*size; got != want {
		t.Fatalf("incast %d: %d bytes delivered in order, want %d", n, got, want)
	}
	return r
}

func pauses(r *rig) (n int64) {
	for _, sw := range r.net.Switches {
		n += sw.PauseSent
	}
	return n
}

// Lossless incast with a small buffer: PFC pauses the senders, nothing is
// dropped, every byte arrives, and every PAUSE is followed by a RESUME.
func TestIncastLossless(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16, 32, 64} {
		cfg := fabric.DefaultConfig()
		cfg.Buffer = 2 * engine.MiB
		r := incast(t, n, 1_000_000, cfg)
		if r.net.DroppedBytes != 0 {
			t.Errorf("incast %d: %d bytes dropped in a lossless fabric", n, r.net.DroppedBytes)
		}
		if n >= 8 && pauses(r) == 0 {
			t.Errorf("incast %d: no PFC pause with a 2 MiB buffer", n)
		}
		t.Logf("incast %d: %d pauses, %d nacks, last fct %v", n, pauses(r), r.c.Counters.Nacks, r.done[len(r.done)-1].FCT())
	}
}

// Lossy incast: the switch drops, go-back-N recovers, every byte arrives.
func TestIncastLossy(t *testing.T) {
	for _, n := range []int{2, 8, 32, 64} {
		cfg := fabric.DefaultConfig()
		cfg.PFC = false
		cfg.Buffer = 512 * engine.KiB
		r := incast(t, n, 1_000_000, cfg)
		if n >= 8 && r.net.DroppedBytes == 0 {
			t.Errorf("incast %d: no drops with a 512 KiB lossy buffer", n)
		}
		if r.net.DroppedBytes > 0 && r.c.Counters.Retransmitted == 0 {
			t.Errorf("incast %d: drops but no retransmission", n)
		}
		t.Logf("incast %d: dropped %d B, retransmitted %d B, nacks %d, rtos %d", n, r.net.DroppedBytes,
			r.c.Counters.Retransmitted, r.c.Counters.Nacks, r.c.Counters.RTOs)
	}
}

// rrObserver tracks per-QP payload sent on one port.
type rrObserver struct {
	fabric.NopObserver
	sent    map[int64]int64
	maxDiff int64
	active  int
}

func (o *rrObserver) Transmit(_ engine.Time, _ *fabric.Port, p *fabric.Packet) {
	if p.Kind != fabric.Data {
		return
	}
	o.sent[int64(p.QP)] += int64(p.Payload)
	if len(o.sent) < o.active {
		return
	}
	lo, hi := int64(1<<62), int64(0)
	for _, b := range o.sent {
		lo, hi = min(lo, b), max(hi, b)
	}
	o.maxDiff = max(o.maxDiff, hi-lo)
}

// Packet-level round robin: N backlogged QPs on one NIC get equal bytes
// within one MTU at every instant while all are backlogged (docs/model.md
// §11.2).
func TestFairRoundRobinEqualBytes(t *testing.T) {
	for _, n := range []int{2, 5, 16} {
		r := newRig(t, star(t, n+1), fabric.DefaultConfig(), nil)
		const size = 2_000_000
		for d := 1; d <= n; d++ {
			r.postAt(0, 0, d, size)
		}
		obs := &rrObserver{sent: map[int64]int64{}, active: n}
		r.net.HostPorts[0].Observer = obs
		// Stop before the first QP can finish: n*size bytes take n*size*8/100G.
		r.sim.Run(engine.Time(n*size/2) * 80)
		if obs.maxDiff > 1000 {
			t.Errorf("%d QPs: bytes sent differ by %d, want <= one MTU (1000)", n, obs.maxDiff)
		}
	}
}
