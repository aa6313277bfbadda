package fabric

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// viewLog is a QueueMonitor that records, at every change of a switch's
// egress queue towards another switch, what the port reads of the peer's
// input buffer (PeerIngressBytesDelayed): one log per switch, written
// only on its thread.
type viewLog struct {
	logs    [][]string
	nonzero []int // readings above 0 of a peer in another unit, per switch
}

func (m *viewLog) Changed(now engine.Time, sw *Switch, out *Port, class uint8) {
	if _, ok := out.peerOwner.(*Switch); !ok {
		return
	}
	v := out.PeerIngressBytesDelayed(class, now)
	if v > 0 && out.cross {
		m.nonzero[sw.index]++
	}
	m.logs[sw.index] = append(m.logs[sw.index], fmt.Sprintf("%d %d %d %d", now, out.Index, class, v))
}

func (*viewLog) Receive(engine.Time, *Switch, *Packet, *Port) { panic("no ARN frames here") }

// runViews runs the incast traffic of runWorld on a k=4 fat-tree cut by
// pod with delayed views (DelayIngressView), every switch monitored by a
// viewLog, and returns its logs.
func runViews(t *testing.T, threads int) (string, int) {
	topo := fatTree4(t)
	unitOf, _, weight := Units(topo, GrainPod)
	la, err := Lookahead(topo, unitOf)
	if err != nil {
		t.Fatal(err)
	}
	w, err := engine.NewWorldWeighted(7, weight, threads, la)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Buffer = 400 * engine.KB
	n, err := BuildWorld(w, unitOf, topo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.DelayIngressView()
	n.DelayIngressView() // a second call changes nothing
	m := &viewLog{logs: make([][]string, len(n.Switches)), nonzero: make([]int, len(n.Switches))}
	for _, sw := range n.Switches {
		sw.SetMonitor(m)
	}
	startTrains(n, true)
	if !w.Run(engine.Second) {
		t.Fatal("the run did not drain")
	}
	// Drained: every view sees the peer's empty buffer.
	n.allPorts(func(pt *Port) {
		for c := uint8(1); c < NumClasses; c++ {
			if v := pt.PeerIngressBytesDelayed(c, engine.Second); v != 0 {
				t.Errorf("after the run, port %d of %v reads %d B in class %d of its peer", pt.Index, pt.Owner, v, c)
			}
		}
	})
	nonzero := 0
	var b strings.Builder
	for i, l := range m.logs {
		nonzero += m.nonzero[i]
		fmt.Fprintf(&b, "%s\n%s\n", n.Switches[i].Name, strings.Join(l, "\n"))
	}
	return b.String(), nonzero
}

// What a port reads of a peer's input buffer through a delayed view
// depends on the simulation alone: the same readings at every change for
// 1, 2 and 3 threads, and some of them are of a non-empty buffer across
// units. Run it under -race too.
func TestDelayedViewSameForEveryThreadCount(t *testing.T) {
	want, nonzero := runViews(t, 1)
	if nonzero == 0 {
		t.Fatal("no port read a non-empty buffer of a peer in another unit: the test does not test")
	}
	for threads := 2; threads <= 3; threads++ {
		if got, _ := runViews(t, threads); got != want {
			t.Errorf("%d threads differ from 1:\n%s", threads, firstDiff(want, got))
		}
	}
}

// A delayed view reads the downstream's accounting as it was one link
// delay (1 us here) before: after every change at or before then, and it
// keeps doing so past the compaction of what it has read.
func TestPeerIngressBytesDelayed(t *testing.T) {
	n, err := Build(engine.NewSim(1), fatTree4(t), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	n.DelayIngressView()
	sw := n.Switches[0]
	up := sw.Ports[sw.UpPorts[0]]
	down, in := up.Peer.Owner.(*Switch), up.Peer.Index
	us := engine.Microsecond
	change := func(at engine.Time, bytes int64) {
		if bytes > 0 && !down.mmu.admit(in, 3, bytes) {
			t.Fatal("admit refused")
		} else if bytes < 0 {
			down.mmu.release(in, 3, -bytes)
		}
		down.viewChanged(at, in, 3)
	}
	change(0, 1000)
	change(us/2, 500)
	change(2*us, -1000)
	for _, c := range []struct {
		at   engine.Time
		want int64
	}{{us - 1, 0}, {us, 1000}, {us + us/2 - 1, 1000}, {us + us/2, 1500}, {3*us - 1, 1500}, {3 * us, 500}} {
		if got := up.PeerIngressBytesDelayed(3, c.at); got != c.want {
			t.Errorf("at %v: %d B, want %d", c.at, got, c.want)
		}
	}
	// 200 changes of 10 B each ns from 10 us on: every read one link
	// delay later sees the value of its time, across compactions.
	for i := range 200 {
		change(10*us+engine.Time(i)*engine.Nanosecond, 10)
	}
	for i := 0; i < 200; i += 7 {
		if got, want := up.PeerIngressBytesDelayed(3, 11*us+engine.Time(i)*engine.Nanosecond), int64(500+10*(i+1)); got != want {
			t.Fatalf("change %d: %d B, want %d", i, got, want)
		}
	}
	if got := up.PeerIngressBytesDelayed(0, 20*us); got != 0 {
		t.Errorf("class 0 reads %d B, want 0", got)
	}
}

// On a plain network a port reads its peer's input accounting at the
// instant; across units of a World it cannot, and PeerIngressBytes says so.
func TestPeerIngressBytesPlain(t *testing.T) {
	n, err := Build(engine.NewSim(1), fatTree4(t), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sw := n.Switches[0]
	up := sw.Ports[sw.UpPorts[0]]
	down := up.Peer.Owner.(*Switch)
	if !down.mmu.admit(up.Peer.Index, 3, 1000) {
		t.Fatal("admit refused")
	}
	if got := up.PeerIngressBytes(3); got != 1000 {
		t.Errorf("got %d B, want the peer's live 1000", got)
	}
	if got := n.HostPorts[0].Peer.PeerIngressBytes(3); got != 0 {
		t.Errorf("a port towards a host reads %d B, want 0", got)
	}
	topo := fatTree4(t)
	unitOf, units, _ := Units(topo, GrainSwitch)
	w, err := engine.NewWorld(1, units, 1, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	wn, err := BuildWorld(w, unitOf, topo, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "DelayIngressView") {
			t.Errorf("PeerIngressBytes across units: panic %v, want one naming DelayIngressView", p)
		}
	}()
	cross := wn.Switches[0].Ports[wn.Switches[0].UpPorts[0]]
	cross.PeerIngressBytes(3)
}
