package fabric

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"testing"
	"unsafe"

	"github.com/dcsim/dcsim/engine"
)

func defaultSpineLeaf(t testing.TB) *Network {
	t.Helper()
	topo, err := SpineLeaf(SpineLeafConfig{Leaves: 8, HostsPerLeaf: 16, Spines: 4,
		HostLink: 100 * engine.Gbps, FabricLink: 400 * engine.Gbps, Delay: engine.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	n, err := Build(engine.NewSim(1), topo, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// docs/model.md §3.3 worked example: an empty default leaf switch (16 x 100G +
// 4 x 400G, 1 us links, 32 MiB).
func TestPFCThresholdWorkedExample(t *testing.T) {
	n := defaultSpineLeaf(t)
	leaf := n.Switches[0]
	m := &leaf.mmu
	if m.totalHdrm != 1_200_000 || m.totalRsrv != 81_920 {
		t.Fatalf("total headroom %d, reserve %d; want 1,200,000 and 81,920", m.totalHdrm, m.totalRsrv)
	}
	for _, pt := range leaf.Ports {
		want, wantHdrm := int64(4_034_064), int64(37_500)
		if pt.Rate == 400*engine.Gbps {
			want, wantHdrm = 16_136_256, 150_000
		}
		if got := leaf.PFCThreshold(pt.Index); got != want {
			t.Errorf("port %d (%v): threshold %d, want %d", pt.Index, pt.Rate, got, want)
		}
		if got := m.in[pt.Index].headroom; got != wantHdrm {
			t.Errorf("port %d (%v): headroom %d, want %d", pt.Index, pt.Rate, got, wantHdrm)
		}
	}
}

// docs/model.md §2.1: base RTT 4,160 ns within a leaf, 8,200 ns across leaves;
// maxBdp 102,500 B.
func TestSpineLeafPaths(t *testing.T) {
	n := defaultSpineLeaf(t)
	if got := n.PathBetween(0, 1).BaseRTT(1000); got != 4160*engine.Nanosecond {
		t.Errorf("same-leaf base RTT %v, want 4160ns", got)
	}
	p := n.PathBetween(0, 127)
	if got := p.BaseRTT(1000); got != 8200*engine.Nanosecond {
		t.Errorf("cross-leaf base RTT %v, want 8200ns", got)
	}
	if len(p.Rates) != 4 || p.Bottleneck() != 100*engine.Gbps {
		t.Errorf("cross-leaf path %v, want 4 hops with a 100G bottleneck", p.Rates)
	}
	rtt, bdp := n.MaxRTTBDP(1000)
	if rtt != 8200*engine.Nanosecond || bdp != 102_500 {
		t.Errorf("maxRtt %v maxBdp %d, want 8200ns and 102500", rtt, bdp)
	}
	if got := len(n.Switches[0].Routes(127)); got != 4 {
		t.Errorf("leaf0 has %d equal-cost routes to host 127, want 4 (one per spine)", got)
	}
}

func TestFatTreeCounts(t *testing.T) {
	for _, tc := range []struct{ k, hosts, switches int }{{4, 16, 20}, {8, 128, 80}, {12, 432, 180}} {
		topo, err := FatTree(tc.k, 100*engine.Gbps, 400*engine.Gbps, engine.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		if topo.Hosts != tc.hosts || topo.Switches != tc.switches {
			t.Errorf("k=%d: %d hosts %d switches, want %d and %d", tc.k, topo.Hosts, topo.Switches, tc.hosts, tc.switches)
		}
		n, err := Build(engine.NewSim(1), topo, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		// Hosts in different pods are 6 hops apart, with (k/2)^2 paths.
		p := n.PathBetween(0, topo.Hosts-1)
		if len(p.Rates) != 6 {
			t.Errorf("k=%d: cross-pod path has %d hops, want 6", tc.k, len(p.Rates))
		}
		edge := n.Switches[0]
		if got := len(edge.Routes(int32(topo.Hosts - 1))); got != tc.k/2 {
			t.Errorf("k=%d: edge switch has %d uplink choices, want %d", tc.k, got, tc.k/2)
		}
	}
}

func TestECNProbability(t *testing.T) {
	e := &ECN{Kmin: 400_000, Kmax: 1_600_000, Pmax: 0.2}
	for _, tc := range []struct {
		q    int64
		want float64
	}{{400_000, 0}, {1_000_000, 0.1}, {1_600_000, 0.2}, {1_600_001, 1}, {0, 0}} {
		if got := e.Probability(tc.q); got < tc.want-1e-12 || got > tc.want+1e-12 {
			t.Errorf("p(%d) = %g, want %g", tc.q, got, tc.want)
		}
	}
	// Thresholds scale with the port rate (docs/model.md §3.4 table).
	if got := scaleBytes(400_000, 400*engine.Gbps); got != 1_600_000 {
		t.Errorf("kmin at 400G = %d, want 1,600,000", got)
	}
	if got := scaleBytes(400_000, 25*engine.Gbps); got != 100_000 {
		t.Errorf("kmin at 25G = %d, want 100,000", got)
	}
}

// murmurBytes is a byte-wise MurmurHash3 x86_32, written from the
// algorithm's definition, to check the fixed-width version.
func murmurBytes(data []byte, seed uint32) uint32 {
	h := seed
	n := len(data) / 4
	for i := 0; i < n; i++ {
		k := binary.LittleEndian.Uint32(data[4*i:])
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	tail := data[4*n:]
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

func TestMurmur3(t *testing.T) {
	// Published vectors of MurmurHash3_x86_32.
	if got := murmurBytes(nil, 0); got != 0 {
		t.Errorf("murmur3('', 0) = %#x, want 0", got)
	}
	if got := murmurBytes(nil, 1); got != 0x514E28B7 {
		t.Errorf("murmur3('', 1) = %#x, want 0x514e28b7", got)
	}
	if got := murmurBytes([]byte("Hello, world!"), 1234); got != 0xFAF6CDB3 {
		t.Errorf("murmur3('Hello, world!', 1234) = %#x, want 0xfaf6cdb3", got)
	}
	for i := uint32(0); i < 100; i++ {
		a, b, c, seed := i*7919, i*104729+3, i<<16|i, i*31
		var buf [12]byte
		binary.LittleEndian.PutUint32(buf[0:], a)
		binary.LittleEndian.PutUint32(buf[4:], b)
		binary.LittleEndian.PutUint32(buf[8:], c)
		if got, want := Murmur3(a, b, c, seed), murmurBytes(buf[:], seed); got != want {
			t.Fatalf("Murmur3(%d,%d,%d,%d) = %#x, want %#x", a, b, c, seed, got, want)
		}
	}
}

const refTopo = `5 2 4
3 4
0 3 100Gbps 1000ns 0.000000
1 3 100Gbps 1000ns 0.000000
2 4 100Gbps 1000ns 0.000000
3 4 400Gbps 1000ns 0.000000
`

func TestReadTopologyFile(t *testing.T) {
	topo, err := ReadTopologyFile("topo.txt", strings.NewReader(refTopo))
	if err != nil {
		t.Fatal(err)
	}
	if topo.Hosts != 3 || topo.Switches != 2 || len(topo.Links) != 4 {
		t.Fatalf("got %d hosts %d switches %d links, want 3 2 4", topo.Hosts, topo.Switches, len(topo.Links))
	}
	n, err := Build(engine.NewSim(1), topo, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := n.PathBetween(0, 2).BaseRTT(1000); got != 6180*engine.Nanosecond {
		// 3 hops: 2*3 us + 80 + 20 + 80 ns
		t.Errorf("base RTT %v, want 6180ns", got)
	}
	// Parallel links are kept: two links between the switches give two routes.
	par := strings.Replace(refTopo, "5 2 4", "5 2 5", 1) + "3 4 400Gbps 1000ns 0\n"
	topo, err = ReadTopologyFile("par.txt", strings.NewReader(par))
	if err != nil {
		t.Fatal(err)
	}
	n, err = Build(engine.NewSim(1), topo, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(n.Switches[0].Routes(2)); got != 2 {
		t.Errorf("parallel links: %d routes, want 2", got)
	}
}

func TestReadTopologyFileErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "empty"},
		{"5 2\n", "t.txt:1:"},
		{"5 2 4\n3 9\n", "t.txt:2: bad switch id"},
		{"5 2 1\n3 4\n0 3 100Gbps 1000 0\n", "t.txt:3: link delay"},
		{"5 2 1\n3 4\n0 3 100Gbps 1us 0.1\n", "error_rate"},
		{"5 2 2\n3 4\n0 3 100Gbps 1us 0\n", "want 2 links, found 1"},
		{"3 1 2\n2\n0 2 1Gbps 1us 0\n0 2 1Gbps 1us 0\n", "host 0 has 2 links"},
		// A first line over textline.MaxLine is too long, not empty.
		{strings.Repeat("1", 1<<20+1) + "\n", "t.txt:1: line longer than"},
		{"\n\n" + strings.Repeat(" ", 1<<20+1), "t.txt:3: line longer than"},
	} {
		_, err := ReadTopologyFile("t.txt", strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("input %q: error %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

func FuzzReadTopologyFile(f *testing.F) {
	f.Add(refTopo)
	f.Add("3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n")
	f.Fuzz(func(t *testing.T, s string) {
		topo, err := ReadTopologyFile("fuzz", strings.NewReader(s))
		if err != nil {
			return
		}
		if err := topo.Validate(); err != nil {
			t.Fatalf("accepted topology fails Validate: %v", err)
		}
		if topo.Nodes() > 64 {
			return
		}
		if _, err := Build(engine.NewSim(1), topo, DefaultConfig()); err != nil && !strings.Contains(err.Error(), "unreachable") {
			t.Fatalf("accepted topology fails Build: %v", err)
		}
	})
}

// A packet is one cache line, and the pool hands them out line-aligned: a
// switch hop then costs at most one cache miss on the packet.
func TestPacketIsOneCacheLine(t *testing.T) {
	if got := unsafe.Sizeof(Packet{}); got != 64 {
		t.Fatalf("sizeof(Packet) = %d, want 64", got)
	}
	if off := unsafe.Offsetof(Packet{}.inPort); off >= 32 {
		t.Fatalf("inPort at offset %d, want it in the first 32 bytes with the other per-hop fields", off)
	}
	var pl Pool
	for i := 0; i < 3*slabPackets; i++ {
		if a := uintptr(unsafe.Pointer(pl.Get())); a%64 != 0 {
			t.Fatalf("packet %d at %#x, not 64-byte aligned", i, a)
		}
	}
}

// The port's hot fields fill its first three cache lines and each class
// has a line of its own (see the Port doc); ports are allocated in a size
// class that is a multiple of 64 bytes, so those lines are real lines.
func TestPortLayout(t *testing.T) {
	var pt Port
	if off := unsafe.Offsetof(pt.cls); off != 192 {
		t.Fatalf("classes start at offset %d, want 192 (three hot lines)", off)
	}
	if sz := unsafe.Sizeof(classQ{}); sz != 64 {
		t.Fatalf("sizeof(classQ) = %d, want 64", sz)
	}
	if sz := unsafe.Sizeof(pt); sz%128 != 0 {
		t.Fatalf("sizeof(Port) = %d, not a multiple of 128", sz)
	}
	// What a delivery touches is in the first two lines.
	for _, f := range []struct {
		name    string
		off, sz uintptr
	}{
		{"wire", unsafe.Offsetof(pt.wire), unsafe.Sizeof(pt.wire)},
		{"peerIdx", unsafe.Offsetof(pt.peerIdx), 2},
		{"eventPerPkt", unsafe.Offsetof(pt.eventPerPkt), 1},
		{"peerOwner", unsafe.Offsetof(pt.peerOwner), 16},
		{"Observer", unsafe.Offsetof(pt.Observer), 16},
		{"net", unsafe.Offsetof(pt.net), 8},
		{"Peer", unsafe.Offsetof(pt.Peer), 8},
	} {
		if f.off+f.sz > 128 {
			t.Errorf("%s ends at offset %d, want within the first two lines (128)", f.name, f.off+f.sz)
		}
	}
	topo, err := Star(3, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Build(engine.NewSim(1), topo, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	n.allPorts(func(pt *Port) {
		if a := uintptr(unsafe.Pointer(pt)); a%128 != 0 {
			t.Fatalf("port at %#x is not 128-byte aligned", a)
		}
	})
}

// A switch is a multiple of 128 bytes whose route and admission fields
// fill its first three lines, and its ports are contiguous: Ports[i] is
// the block's i-th port. A switch port's ingress accounting is two lines,
// 128-byte aligned in the network's block, with the header and classes
// 1-3 in the first.
func TestSwitchLayout(t *testing.T) {
	var ip mmuPort
	if sz := unsafe.Sizeof(ip); sz != 128 {
		t.Fatalf("sizeof(mmuPort) = %d, want 128", sz)
	}
	if end := uintptr(unsafe.Pointer(ip.class(3))) + unsafe.Sizeof(mmuClass{}) - uintptr(unsafe.Pointer(&ip)); end != 64 {
		t.Fatalf("class 3 ends at offset %d, want 64 (the header's line)", end)
	}
	var sw Switch
	if sz := unsafe.Sizeof(sw); sz%128 != 0 {
		t.Fatalf("sizeof(Switch) = %d, not a multiple of 128", sz)
	}
	if off := unsafe.Offsetof(sw.mmu); off != 128 {
		t.Fatalf("mmu at offset %d, want 128", off)
	}
	if end := unsafe.Offsetof(sw.mmu) + unsafe.Offsetof(sw.mmu.used) + 8; end > 192 {
		t.Fatalf("the accounting's summary ends at offset %d, want within the third line (192)", end)
	}
	topo, err := FatTree(8, 100*engine.Gbps, 100*engine.Gbps, engine.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Build(engine.NewSim(1), topo, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, sw := range n.Switches {
		if a := uintptr(unsafe.Pointer(&sw.mmu.in[0])); a%128 != 0 {
			t.Fatalf("%s: accounting at %#x, not 128-byte aligned", sw.Name, a)
		}
		if len(sw.ports) != len(sw.Ports) {
			t.Fatalf("%s: %d ports in its block, want %d", sw.Name, len(sw.ports), len(sw.Ports))
		}
		for i, pt := range sw.Ports {
			if pt != &sw.ports[i] || pt.Index != i || pt.sw != sw {
				t.Fatalf("%s: port %d is not the block's port %d", sw.Name, pt.Index, i)
			}
		}
	}
}

// SizedHeadroom: the round trip's bytes, three maximum frames and the
// PAUSE frame, plus the response time's bytes.
func TestSizedHeadroom(t *testing.T) {
	for _, tc := range []struct {
		rate  engine.Rate
		delay engine.Time
		frame int64
		resp  engine.Time
		want  int64
		name  string
	}{
		{100 * engine.Gbps, engine.Microsecond, 1048, 0, 25_000 + 3*1048 + 43, "default host link, MTU 1000"},
		{400 * engine.Gbps, engine.Microsecond, 1048, 0, 100_000 + 3*1048 + 43, "default fabric link"},
		{100 * engine.Gbps, engine.Microsecond, 9048, 0, 25_000 + 3*9048 + 43, "MTU 9000: above the reference's 37,500"},
		{100 * engine.Gbps, engine.Microsecond, 4144, 0, 25_000 + 3*4144 + 43, "MTU 4096"},
		{100 * engine.Gbps, engine.Microsecond, 1048, 500 * engine.Nanosecond, 25_000 + 6_250 + 3*1048 + 43, "500 ns response"},
		{25 * engine.Gbps, 3 * engine.Nanosecond, 1048, 0, 18 + 3*1048 + 43, "25G, 3 ns: 18.75 B rounds down"},
	} {
		c := Config{MaxFrame: tc.frame, PFCResponse: tc.resp}
		if got := c.SizedHeadroom(tc.rate, tc.delay); got != tc.want {
			t.Errorf("%s: got %d B, want %d", tc.name, got, tc.want)
		}
	}
}

// obedient sends 1048 B data packets to host dst at line rate while its
// class is not paused; with acks it sends 60 B ACKs instead and ignores
// PAUSE, as a NIC's ACK queue under ack_high_prio does.
type obedient struct {
	pool *Pool
	pt   *Port
	dst  int32
	acks bool
}

func (s *obedient) Next(engine.Time) *Packet {
	if !s.acks && s.pt.Paused(3) {
		return nil
	}
	p := s.pool.Get()
	p.Kind, p.Class, p.Size, p.Payload, p.Src, p.Dst = Data, 3, 1048, 1000, int32(s.pt.Index), s.dst
	if s.acks {
		p.Kind, p.Size, p.Payload = Ack, 60, 0
	}
	return p
}
func (s *obedient) HasMore() bool { return true }

// pfcSink obeys PFC frames on its port and drops everything else.
type pfcSink struct{ pool *Pool }

func (s pfcSink) Receive(now engine.Time, p *Packet, in *Port) {
	if p.Kind == PFC {
		in.SetPaused(now, uint8(p.Arg), p.Pause)
	}
	s.pool.Put(p)
}

// Two hosts send to a third at line rate through a star with a 1 MiB
// buffer, so that PFC pauses them. With sized headroom, senders that obey
// PAUSE lose nothing; a sender of ACKs that ignores it overflows its
// ingress headroom, and those drops count as PauseIgnoredDrops, which
// Check accepts, not as HeadroomDrops.
func TestPauseIgnoredDrops(t *testing.T) {
	for _, acks := range []bool{false, true} {
		topo, err := Star(3, 100*engine.Gbps, engine.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		sim := engine.NewSim(1)
		cfg := DefaultConfig()
		cfg.Buffer, cfg.Headroom, cfg.MaxFrame = engine.MiB, HeadroomSized, 1048
		n, err := Build(sim, topo, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var srcs [2]*obedient
		for h := range srcs {
			srcs[h] = &obedient{pool: n.Pool, dst: 2, acks: acks && h == 0}
			srcs[h].pt = n.Attach(h, pfcSink{n.Pool}, srcs[h])
		}
		n.Attach(2, sink{n.Pool}, nil)
		for _, s := range srcs {
			s.pt.Kick(0)
		}
		sim.Run(200 * engine.Microsecond)
		sw := n.Switches[0]
		if sw.PauseSent == 0 {
			t.Fatalf("acks %v: no PAUSE sent, want the senders paused", acks)
		}
		if sw.HeadroomDrops != 0 {
			t.Errorf("acks %v: %d headroom drops, want 0", acks, sw.HeadroomDrops)
		}
		if ignored := sw.PauseIgnoredDrops; acks != (ignored > 0) || ignored != sw.Drops {
			t.Errorf("acks %v: %d pause-ignored drops of %d, want all drops and some only with ACKs ignoring PAUSE", acks, ignored, sw.Drops)
		}
		if err := n.Check(); err != nil {
			t.Errorf("acks %v: %v", acks, err)
		}
	}
}
