package fabric

import (
	"testing"
	"unsafe"

	"github.com/dcsim/dcsim/engine"
)

// Past hugeAfter packets the pool cuts hugeSlabPackets-packet slabs: the
// packets stay distinct and line-aligned across the switch, and Allocated
// still counts packets, not slab capacity.
func TestPoolHugeSlabs(t *testing.T) {
	var pl Pool
	n := hugeAfter + hugeSlabPackets + 3
	seen := make(map[*Packet]bool, n)
	for i := 0; i < n; i++ {
		p := pl.Get()
		if a := uintptr(unsafe.Pointer(p)); a%64 != 0 {
			t.Fatalf("packet %d at %#x, not 64-byte aligned", i, a)
		}
		if seen[p] {
			t.Fatalf("packet %d handed out twice", i)
		}
		seen[p] = true
		p.Size = uint16(i) // write, as the network does
	}
	if got, want := pl.Allocated(), int64(n); got != want {
		t.Fatalf("Allocated = %d, want %d", got, want)
	}
	// The first slab's first packet is never handed out (index 0).
	if got, want := len(pl.slab), hugeSlabPackets-4; got != want {
		t.Fatalf("left in the current slab: got %d, want %d (a slab of %d)", got, want, hugeSlabPackets)
	}
}

// Arena rings have exactly the capacity asked for (a ring can never write
// into its neighbour), rings above arenaRingMax come from Go, and a wire
// keeps FIFO order while it grows out of the arena into Go's heap, as a
// class queue (linked through the packets) does beside it.
func TestRingArena(t *testing.T) {
	a := &ringArena{}
	r1, r2 := a.wireRing(16), a.wireRing(16)
	if len(r1) != 16 || cap(r1) != 16 || &r1[15] == &r2[0] || uintptr(unsafe.Pointer(&r2[0]))-uintptr(unsafe.Pointer(&r1[0])) != 16*unsafe.Sizeof(wireSlot{}) {
		t.Fatalf("wire rings: len %d cap %d, second not right after the first", len(r1), cap(r1))
	}
	before := len(a.slots)
	if r := a.wireRing(arenaRingMax * 2); len(r) != arenaRingMax*2 || len(a.slots) != before {
		t.Fatalf("a %d-slot ring came from the arena (%d slots left, %d before)", arenaRingMax*2, len(a.slots), before)
	}
	var pool Pool
	var w wire
	var q qfifo
	const n = 3*arenaRingMax + 5
	ps := make([]*Packet, n)
	for i := range ps {
		ps[i] = pool.Get()
		ps[i].Size = 100
		w.push(engine.Time(i), ps[i], a)
		q.push(ps[i])
	}
	for i := range ps {
		if got := w.pop(); got != ps[i] {
			t.Fatalf("wire pop %d: got another packet", i)
		}
		if got := q.pop(&pool); got != ps[i] {
			t.Fatalf("fifo pop %d: got another packet", i)
		}
	}
	if w.n != 0 || q.n != 0 {
		t.Fatalf("after popping all: wire n %d, fifo n %d; want 0", w.n, q.n)
	}
}

// A network of arenaMinPorts ports or more takes its rings from an arena,
// a smaller one from Go; every switch's ingress accounting is its own
// slice of the shared block, one entry per port, capacity included.
func TestNetworkMemoryBlocks(t *testing.T) {
	for _, tc := range []struct {
		k     int
		arena bool
	}{{8, false}, {16, true}} {
		topo, err := FatTree(tc.k, 100*engine.Gbps, 100*engine.Gbps, engine.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Build(engine.NewSim(1), topo, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if got := n.rings != nil; got != tc.arena {
			t.Errorf("k = %d (%d ports): ring arena %v, want %v", tc.k, 2*len(topo.Links), got, tc.arena)
		}
		for i, sw := range n.Switches {
			if len(sw.mmu.in) != len(sw.Ports) || cap(sw.mmu.in) != len(sw.Ports) {
				t.Fatalf("k = %d switch %d: accounting len %d cap %d, want %d ports", tc.k, i, len(sw.mmu.in), cap(sw.mmu.in), len(sw.Ports))
			}
		}
	}
}

// A wire's cached head packet is its ring's head through pushes, pops,
// wrap-around and growth (from 16 to 128 slots here: at most 100 in flight), and its delivery
// times stay the ring's, and each visits the packets oldest first.
func TestWireHead(t *testing.T) {
	var w wire
	var a ringArena
	pkts := make([]Packet, 200)
	var want []int // indices in pkts, oldest first
	next := 0
	for step := 0; step < 400; step++ {
		if push := step%3 != 2 || len(want) == 0; push && next < len(pkts) {
			p := &pkts[next]
			p.Size = uint16(100 + next)
			w.push(engine.Time(1000+next), p, &a)
			want = append(want, next)
			next++
		} else if len(want) > 0 {
			if got := w.pop(); got != &pkts[want[0]] {
				t.Fatalf("step %d: popped packet %d, want %d", step, got.Size-100, want[0])
			}
			want = want[1:]
		}
		if int(w.n) != len(want) {
			t.Fatalf("step %d: %d in flight, want %d", step, w.n, len(want))
		}
		i := 0
		w.each(func(p *Packet) {
			if i >= len(want) || p != &pkts[want[i]] {
				t.Fatalf("step %d: each visits packet %d at position %d, want %v", step, p.Size-100, i, want)
			}
			i++
		})
		if i != len(want) {
			t.Fatalf("step %d: each visited %d packets, want %d", step, i, len(want))
		}
		if len(want) == 0 {
			if w.hp != nil {
				t.Fatalf("step %d: empty wire's head is packet %d, want none", step, w.hp.Size-100)
			}
			continue
		}
		if w.hp != &pkts[want[0]] || w.next() != engine.Time(1000+want[0]) {
			t.Fatalf("step %d: head packet %d due %v, want %d due %v", step, w.hp.Size-100, w.next(), want[0], engine.Time(1000+want[0]))
		}
	}
	if len(w.buf) != 128 {
		t.Fatalf("ring of %d slots, want 128 (grown three times)", len(w.buf))
	}
}

// A class queue linked through the packets keeps FIFO order under
// interleaved pushes and pops across slabs, visits its packets in order,
// and leaves every popped packet's link its own index again.
func TestQueueLinks(t *testing.T) {
	var pool Pool
	var q qfifo
	var want []*Packet
	self := map[*Packet]uint32{}
	for i := 0; i < 3*slabPackets; i++ {
		p := pool.Get()
		self[p] = p.link
		if pool.at(p.link) != p {
			t.Fatalf("packet %d: at(link) is another packet", i)
		}
		q.push(p)
		want = append(want, p)
		if i%3 == 2 {
			got := q.pop(&pool)
			if got != want[0] || got.link != self[got] {
				t.Fatalf("pop after push %d: wrong packet or link %d, want %d", i, got.link, self[got])
			}
			want = want[1:]
			if i%6 == 5 {
				pool.Put(got)
			}
		}
	}
	k := 0
	q.each(&pool, func(p *Packet) {
		if p != want[k] {
			t.Fatalf("each: packet %d out of order", k)
		}
		k++
	})
	if k != len(want) || int(q.n) != len(want) {
		t.Fatalf("each visited %d, queue holds %d, want %d", k, q.n, len(want))
	}
	for _, w := range want {
		if got := q.pop(&pool); got != w || got.link != self[got] {
			t.Fatal("draining: wrong packet or link")
		}
	}
	if q.n != 0 || q.head != nil || q.tail != nil {
		t.Fatal("drained queue not empty")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("queueing a packet not from a pool did not panic")
		}
	}()
	q.push(&Packet{})
}
