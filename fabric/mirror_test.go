package fabric

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// mirrorLog is a QueueMonitor that records, at every change of a switch's
// egress queue towards another switch, what the port reads of the peer's
// input buffer (PeerIngressBytes): one log per switch, written only on
// its thread.
type mirrorLog struct {
	logs    [][]string
	nonzero []int // readings above 0 of a peer in another unit, per switch
}

func (m *mirrorLog) Changed(now engine.Time, sw *Switch, out *Port, class uint8) {
	if _, ok := out.peerOwner.(*Switch); !ok {
		return
	}
	v := out.PeerIngressBytes(class)
	if v > 0 && out.cross {
		m.nonzero[sw.index]++
	}
	m.logs[sw.index] = append(m.logs[sw.index], fmt.Sprintf("%d %d %d %d", now, out.Index, class, v))
}

func (*mirrorLog) Receive(engine.Time, *Switch, *Packet, *Port) { panic("no ARN frames here") }

// runMirrors runs the incast traffic of runWorld on a k=4 fat-tree cut by
// pod, every switch monitored by a mirrorLog, and returns its logs.
func runMirrors(t *testing.T, threads int) (string, int) {
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
	n.MirrorIngress()
	n.MirrorIngress() // a second call changes nothing
	m := &mirrorLog{logs: make([][]string, len(n.Switches)), nonzero: make([]int, len(n.Switches))}
	for _, sw := range n.Switches {
		sw.SetMonitor(m)
	}
	startTrains(n, true)
	if !w.Run(engine.Second) {
		t.Fatal("the run did not drain")
	}
	// Drained: every copy is the peer's empty buffer.
	n.allPorts(func(pt *Port) {
		for c := uint8(1); c < NumClasses; c++ {
			if v := pt.PeerIngressBytes(c); v != 0 {
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

// The copies of a peer's input buffer across units are refreshed at
// windows' ends only, so what a port reads depends on the simulation
// alone: the same readings at every change for 1, 2 and 3 threads, and
// some of them are of a non-empty buffer across units.
func TestMirrorIngressSameForEveryThreadCount(t *testing.T) {
	want, nonzero := runMirrors(t, 1)
	if nonzero == 0 {
		t.Fatal("no port read a non-empty buffer of a peer in another unit: the test does not test")
	}
	for threads := 2; threads <= 3; threads++ {
		if got, _ := runMirrors(t, threads); got != want {
			t.Errorf("%d threads differ from 1:\n%s", threads, firstDiff(want, got))
		}
	}
}

// On a plain network and within a unit, a port reads its peer's live
// input accounting.
func TestPeerIngressBytesPlain(t *testing.T) {
	n, err := Build(engine.NewSim(1), fatTree4(t), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	n.MirrorIngress() // nothing on a plain network
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
}
