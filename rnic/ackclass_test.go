package rnic_test

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// call runs a function as an event.
type call func(now engine.Time)

func (f call) Fire(now engine.Time, _ uint8) { f(now) }

// pauseDuring pauses class c at port pt from `from` to `to`, as a PAUSE and
// a RESUME received from its peer would.
func pauseDuring(sim *engine.Sim, pt *fabric.Port, c uint8, from, to engine.Time) {
	sim.At(from, call(func(now engine.Time) { pt.SetPaused(now, c, true) }), 0)
	sim.At(to, call(func(now engine.Time) { pt.SetPaused(now, c, false) }), 0)
}

// switchPortTo is the switch port facing host h.
func switchPortTo(t *testing.T, net *fabric.Network, h int) *fabric.Port {
	t.Helper()
	for _, pt := range net.Switches[0].Ports {
		if pt.Peer == net.HostPorts[h] {
			return pt
		}
	}
	t.Fatalf("no switch port faces host %d", h)
	return nil
}

// ACK classes (docs/model.md §3.1, §4.4), exact to the picosecond on the
// one-packet case of TestOnePacketTiming: host 0 sends 1000 B to host 1
// through one switch; the data arrives at 2 x (83.84 ns + 1 us), the 60 B
// ACK leaves host 1 at once and reaches the switch 4.8 ns + 1 us later,
// at 3,172.48 ns. Class 3 (the data class) is paused on one port for the
// first 10 us:
//   - at the switch's port towards host 0: an ACK in the data class (the
//     reference: switches never raise ACKs) waits there, admitted against
//     the buffer, until the RESUME at 10 us, then takes 4.8 ns + 1 us; an
//     ACK in class 0 (ack_class control, an extension) passes.
//   - at host 1's own port: with AckHighPrio (the reference's
//     ACK_HIGH_PRIO at the NIC, ns-3 RdmaEgressQueue::ack_q_idx = 0) the
//     ACK leaves anyway; without it, it waits for the RESUME and then
//     takes two hops.
func TestAckClassUnderPause(t *testing.T) {
	const pauseEnd = 10 * engine.Microsecond
	data := 2 * (engine.Time(1048*80) + engine.Microsecond)
	hop := engine.Time(60*80) + engine.Microsecond
	unpaused := data + 2*hop
	cases := []struct {
		name       string
		control    bool // ACKs in class 0 end to end
		highPrio   bool // the NIC ignores a PAUSE of the ACK's class
		atSwitch   bool // pause the switch port towards host 0, else host 1's port
		wantFCT    engine.Time
		wantHeldAt int64 // bytes the switch buffers at 5 us
	}{
		{"switch pauses the data class: ACK waits", false, true, true, pauseEnd + hop, 60},
		{"switch pauses the data class: control ACK passes", true, false, true, unpaused, 0},
		{"NIC paused, ACK_HIGH_PRIO: ACK leaves", false, true, false, unpaused, 0},
		{"NIC paused, no ACK_HIGH_PRIO: ACK waits", false, false, false, pauseEnd + 2*hop, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, star(t, 2), fabric.DefaultConfig(), func(cfg *rnic.Config) {
				cfg.AckControl, cfg.AckHighPrio = c.control, c.highPrio
			})
			pt := r.net.HostPorts[1]
			if c.atSwitch {
				pt = switchPortTo(t, r.net, 0)
			}
			pauseDuring(r.sim, pt, 3, 0, pauseEnd)
			m := r.postAt(0, 0, 1, 1000)
			r.sim.Run(5 * engine.Microsecond)
			if got := r.net.Switches[0].BufferUsed(); got != c.wantHeldAt {
				t.Errorf("switch buffer at 5 us = %d B, want %d", got, c.wantHeldAt)
			}
			r.sim.Run(engine.Second)
			if !m.Done {
				t.Fatal("message not done")
			}
			if got := m.FCT(); got != c.wantFCT {
				t.Errorf("fct = %v, want %v", got, c.wantFCT)
			}
			if err := r.c.CheckDrained(); err != nil {
				t.Error(err)
			}
		})
	}
}
