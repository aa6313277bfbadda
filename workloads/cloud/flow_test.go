package cloud

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

func TestReadFlowList(t *testing.T) {
	in := "\ufeffStart_NS, size_bytes ,note,dst,src,tag\n" +
		"# a comment\n" +
		"2000,100,x,1,0,b\n" +
		"1000.5,200,y,0,1,a\n" +
		"2000,300,z,3,2,c\n" +
		"0,1,\"quoted, note\",2,3,\n"
	got, err := ReadFlowList("f.csv", strings.NewReader(in))
	if err != nil {
		t.Fatalf("got error %v", err)
	}
	want := []Flow{
		{Src: 3, Dst: 2, Size: 1, Start: 0, Generator: "flowlist"},
		{Src: 1, Dst: 0, Size: 200, Start: 1000500 * engine.Picosecond, Generator: "flowlist", Tag: "a"},
		{Src: 0, Dst: 1, Size: 100, Start: 2 * engine.Microsecond, Generator: "flowlist", Tag: "b"},
		{Src: 2, Dst: 3, Size: 300, Start: 2 * engine.Microsecond, Generator: "flowlist", Tag: "c"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v,\nwant %+v", got, want)
	}
	got, err = ReadFlowList("h.csv", strings.NewReader("src,dst,size_bytes,start_ns\n"))
	if err != nil || len(got) != 0 {
		t.Errorf("header only: got %v, %v; want no flows and no error", got, err)
	}
}

func TestReadFlowListErrors(t *testing.T) {
	const h = "src,dst,size_bytes,start_ns\n"
	tests := []struct{ name, in, want string }{
		{"empty", "", "f.csv: empty flow list"},
		{"missing column", "src,dst,size_bytes\n", "f.csv:1: column start_ns: missing"},
		{"duplicate column", "src,dst,src,size_bytes,start_ns\n", "f.csv:1: column src: appears twice"},
		{"duplicate tag", "src,dst,size_bytes,start_ns,tag,Tag\n", "f.csv:1: column tag: appears twice"},
		{"wrong field count", h + "0,1,100,0\n0,1,100\n", "f.csv:3: wrong number of fields"},
		{"bad quote", h + "0,1,\"100,0\n", "f.csv:2:"},
		{"src not a number", h + "a,1,100,0\n", "f.csv:2: column src: want a non-negative host id"},
		{"negative dst", h + "0,-1,100,0\n", "f.csv:2: column dst: want a non-negative host id"},
		{"src equals dst", h + "4,4,100,0\n", "f.csv:2: column dst: equals src 4"},
		{"zero size", h + "0,1,0,0\n", "f.csv:2: column size_bytes: want a positive integer"},
		{"fractional size", h + "0,1,1.5,0\n", "f.csv:2: column size_bytes"},
		{"huge size", h + "0,1,99999999999999999999,0\n", "f.csv:2: column size_bytes"},
		{"negative start", h + "0,1,10,-5\n", "f.csv:2: column start_ns"},
		{"start with unit", h + "0,1,10,5us\n", "f.csv:2: column start_ns"},
		{"start below ps", h + "0,1,10,0.0001\n", "f.csv:2: column start_ns"},
		{"start exponent", h + "0,1,10,1e3\n", "f.csv:2: column start_ns"},
		{"start empty", h + "0,1,10,\n", "f.csv:2: column start_ns"},
		{"start overflow", h + "0,1,10,99999999999999999\n", "f.csv:2: column start_ns"},
		{"line after comment", h + "# c\n0,1,10,0\n0,0,10,0\n", "f.csv:4: column dst"},
		// Issue 27, item 3: a long line (and /dev/zero, one endless line)
		// was read whole into memory and echoed in the error.
		{"long line", h + "0,1,10,0\n0,1," + strings.Repeat("9", 2<<20) + ",0\n", "f.csv:3: line longer than 1048576 bytes"},
		{"long quoted line", h + "0,1,\"" + strings.Repeat("9", 2<<20) + "\",0\n", "f.csv:2: line longer than 1048576 bytes"},
		{"no newline", strings.Repeat("\x00", 2<<20), "f.csv:1: line longer than 1048576 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFlowList("f.csv", strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(err.Error()) > 200 {
				t.Errorf("got error %.300v, want one containing %q, at most 200 bytes", err, tc.want)
			}
			// The build-time scan reports the very same error.
			if _, serr := ScanFlowList("f.csv", strings.NewReader(tc.in), nil); serr == nil || serr.Error() != err.Error() {
				t.Errorf("ScanFlowList: got error %v, want %v", serr, err)
			}
		})
	}
}

// TestFlowListCursor: on a list sorted by start the cursor yields what
// ReadFlowList and NewFlowList do, in the same order (ties in file order),
// and ScanFlowList counts it and calls it sorted; the unsorted list of
// TestReadFlowList is called unsorted.
func TestFlowListCursor(t *testing.T) {
	in := "src,dst,size_bytes,start_ns,tag\n# c\n3,2,1,0,\n1,0,200,1000.5,a\n0,1,100,2000,b\n2,3,300,2000,c\n"
	want, err := ReadFlowList("s.csv", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	scan, err := ScanFlowList("s.csv", strings.NewReader(in), nil)
	if err != nil || scan != (FlowListScan{Flows: 4, Sorted: true}) {
		t.Fatalf("scan: got %+v, %v; want 4 flows, sorted", scan, err)
	}
	cur, err := NewFlowListCursor("s.csv", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	ended := 0
	cur.OnEnd = func() { ended++ }
	var got []Flow
	for f, ok := cur.Next(); ok; f, ok = cur.Next() {
		got = append(got, f)
	}
	if _, ok := cur.Next(); ok || ended != 1 || cur.Err() != nil {
		t.Errorf("after the end: more %v, OnEnd calls %d, Err %v; want false, 1, nil", ok, ended, cur.Err())
	}
	if !slices.Equal(got, want) {
		t.Errorf("cursor: got %+v,\nwant %+v", got, want)
	}
	unsorted := "start_ns,size_bytes,dst,src\n2000,100,1,0\n1000.5,200,0,1\n"
	if scan, err := ScanFlowList("u.csv", strings.NewReader(unsorted), nil); err != nil || scan.Sorted || scan.Flows != 2 {
		t.Errorf("unsorted scan: got %+v, %v; want 2 flows, not sorted", scan, err)
	}
	// A file that went back in time after the scan ends the flows with
	// an error naming its line.
	cur, _ = NewFlowListCursor("u.csv", strings.NewReader(unsorted))
	if _, ok := cur.Next(); !ok {
		t.Fatal("first flow missing")
	}
	if _, ok := cur.Next(); ok || cur.Err() == nil || !strings.Contains(cur.Err().Error(), "u.csv:3: column start_ns") {
		t.Errorf("going back in time: got more %v, Err %v; want false and an error at u.csv:3", ok, cur.Err())
	}
}

// TestScanFlowListCheckOrder: of the flows check rejects, ScanFlowList
// reports the first in the stably sorted order, as checking
// ReadFlowList's result in order did; a malformed record anywhere comes
// first.
func TestScanFlowListCheckOrder(t *testing.T) {
	in := "src,dst,size_bytes,start_ns\n0,1,500,30\n0,2,600,10\n0,3,700,10\n0,4,5,5\n"
	check := func(f Flow) error {
		if f.Size >= 500 {
			return fmt.Errorf("flow to %d too large", f.Dst)
		}
		return nil
	}
	if _, err := ScanFlowList("c.csv", strings.NewReader(in), check); err == nil || err.Error() != "flow to 2 too large" {
		t.Errorf("got %v, want flow to 2 too large (start 10, the earlier of the two)", err)
	}
	if _, err := ScanFlowList("c.csv", strings.NewReader(in+"0,0,1,1\n"), check); err == nil || !strings.Contains(err.Error(), "c.csv:6: column dst") {
		t.Errorf("got %v, want the malformed record c.csv:6 first", err)
	}
}

func TestNewFlowListSortsStablyAndCopies(t *testing.T) {
	in := []Flow{{Src: 0, Dst: 1, Start: 5}, {Src: 1, Dst: 2, Start: 1}, {Src: 2, Dst: 3, Start: 5}, {Src: 3, Dst: 4, Start: 1}}
	g := NewFlowList(in)
	in[0].Src = 99
	var got []int
	for f, ok := g.Next(); ok; f, ok = g.Next() {
		got = append(got, f.Src)
	}
	if want := []int{1, 3, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("got sources %v, want %v", got, want)
	}
	if _, ok := g.Next(); ok {
		t.Errorf("Next after the end returned a flow")
	}
}

func TestMergeOrder(t *testing.T) {
	a := NewFlowList([]Flow{{Start: 1, Tag: "a1"}, {Start: 3, Tag: "a3"}, {Start: 3, Tag: "a3b"}, {Start: 7, Tag: "a7"}})
	b := NewFlowList(nil)
	c := NewFlowList([]Flow{{Start: 0, Tag: "c0"}, {Start: 3, Tag: "c3"}, {Start: 9, Tag: "c9"}})
	d := NewFlowList([]Flow{{Start: 3, Tag: "d3"}, {Start: 7, Tag: "d7"}})
	m := Merge(a, b, c, d)
	var got []string
	for f, ok := m.Next(); ok; f, ok = m.Next() {
		got = append(got, f.Tag)
	}
	want := []string{"c0", "a1", "a3", "a3b", "c3", "d3", "a7", "d7", "c9"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, ok := Merge().Next(); ok {
		t.Errorf("Merge() yielded a flow, want none")
	}
}

func TestMergeOfGeneratorsKeepsEveryFlow(t *testing.T) {
	mk := func() (Generator, Generator) {
		p, err := NewPoisson(PoissonConfig{Hosts: hostRange(8), HostRate: 100 * engine.Gbps, Load: 0.5,
			CDF: mustCDF(t, "webserver"), Stop: engine.Millisecond}, engine.NewStream(1, "arrivals"))
		if err != nil {
			t.Fatal(err)
		}
		i, err := NewIncast(IncastConfig{Hosts: hostRange(8), Senders: 7, Receiver: RandomReceiver,
			FlowSize: 1000, Period: 10 * engine.Microsecond, Stop: engine.Millisecond}, engine.NewStream(1, "incast"))
		if err != nil {
			t.Fatal(err)
		}
		return p, i
	}
	p, i := mk()
	merged := drain(t, Merge(p, i), 0, engine.Millisecond)
	p, i = mk()
	np, ni := len(drain(t, p, 0, engine.Millisecond)), len(drain(t, i, 0, engine.Millisecond))
	if len(merged) != np+ni {
		t.Errorf("merged %d flows, want %d + %d", len(merged), np, ni)
	}
}

type backwards struct{ n int }

func (b *backwards) Next() (Flow, bool) {
	b.n++
	return Flow{Start: engine.Time(10 - b.n)}, b.n < 3
}

func TestMergePanicsOnBrokenGenerator(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "went back in time") {
			t.Errorf("got panic %v, want one about going back in time", r)
		}
	}()
	m := Merge(&backwards{})
	m.Next()
	m.Next()
}

func TestMergeNextAllocatesNothing(t *testing.T) {
	mk := func(name string) Generator {
		g, err := NewPoisson(PoissonConfig{Hosts: hostRange(16), HostRate: 100 * engine.Gbps, Load: 0.4,
			CDF: mustCDF(t, "websearch"), Stop: engine.Never - 1, Name: name}, engine.NewStream(1, name))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	m := Merge(mk("a"), mk("b"), mk("c"))
	if n := testing.AllocsPerRun(10000, func() { m.Next() }); n != 0 {
		t.Errorf("Merge Next got %v allocs per flow, want 0", n)
	}
}

// TestParseStartNSFast: the allocation-free path gives the general path's
// value for every string it accepts, and accepts the common forms.
func TestParseStartNSFast(t *testing.T) {
	cases := []string{"0", "1", "12", "12.5", "12.500", "12.05", "0.001", "999999999999999", "999999999999999.999",
		"1000000000000000", "12.", ".5", "1.2345", "1.2.3", "", "1e3", "+1", "-1", " 1", "12a", "00012.010", "2305843009213693.951"}
	rng := rand.New(rand.NewPCG(3, 0))
	for i := 0; i < 20000; i++ {
		b := make([]byte, 1+rng.IntN(20))
		for j := range b {
			b[j] = "0123456789.x"[rng.IntN(12)]
		}
		cases = append(cases, string(b))
	}
	accepted := 0
	for _, s := range cases {
		fast, ok := parseStartNSFast(s)
		slow, err := parseStartNSGeneral(s)
		if !ok {
			continue
		}
		accepted++
		if err != nil || fast != slow {
			t.Fatalf("parseStartNSFast(%q) = %v; got general %v, %v, want the same value and no error", s, fast, slow, err)
		}
	}
	for _, s := range []string{"0", "12.5", "999999999999999.999"} {
		if _, ok := parseStartNSFast(s); !ok {
			t.Errorf("parseStartNSFast(%q): got not accepted, want accepted", s)
		}
	}
	if accepted < 100 {
		t.Errorf("got %d strings accepted by the fast path, want at least 100", accepted)
	}
}
