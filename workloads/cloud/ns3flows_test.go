package cloud

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

func TestReadNS3Flows(t *testing.T) {
	in := "3 \n13 79 3 100 38884 2.000000577\n13 79 3 100 10 2.000000577\n91 20 3 100 79395 2.000001567\n"
	flows, err := ReadNS3Flows("flows.txt", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Flow{
		{Src: 13, Dst: 79, Size: 38884, Start: 2000000576 * engine.Nanosecond, Generator: "flowlist", Tag: "sport=10000"},
		{Src: 13, Dst: 79, Size: 10, Start: 2000000576 * engine.Nanosecond, Generator: "flowlist", Tag: "sport=10001"},
		{Src: 91, Dst: 20, Size: 79395, Start: 2000001566 * engine.Nanosecond, Generator: "flowlist", Tag: "sport=10000"},
	}
	if len(flows) != len(want) {
		t.Fatalf("got %d flows, want %d", len(flows), len(want))
	}
	for i := range want {
		if flows[i] != want[i] {
			t.Errorf("flow %d: got %+v, want %+v", i, flows[i], want[i])
		}
	}
	var buf bytes.Buffer
	if err := WriteFlowList(&buf, flows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFlowList("back.csv", &buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if back[i] != want[i] {
			t.Errorf("round trip flow %d: got %+v, want %+v", i, back[i], want[i])
		}
	}
}

func TestReadNS3FlowsErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "f.txt: empty flow file, want the flow count on line 1"},
		{"x\n", `f.txt:1: want the flow count, got "x"`},
		{"2\n1 2 3 100 5 2.0\n", "f.txt:2: want 2 flows, found 1"},
		{"1\n1 2 3 100 5\n", `f.txt:2: want "src dst pg dport size start_s", got 5 fields`},
		{"1\n1 1 3 100 5 2.0\n", "f.txt:2: dst: equals src 1"},
		{"1\n1 2 1 100 5 2.0\n", "f.txt:2: pg 1 dport 100: only pg 3, dport 100 are supported"},
		{"1\n1 2 3 100 0 2.0\n", `f.txt:2: size: want a positive integer, got "0"`},
		{"1\n1 2 3 100 5 x\n", `f.txt:2: start: want seconds, got "x"`},
		{"2\n1 2 3 100 5 2.1\n1 2 3 100 5 2.0\n", "f.txt:3: start 2.0 is before the previous flow's"},
		{"1\n1 2 3 100 5 2.0\n1 2 3 100 5 2.0\n", `f.txt:3: unexpected extra line "1 2 3 100 5 2.0"`},
	} {
		_, err := ReadNS3Flows("f.txt", strings.NewReader(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got error %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzReadNS3Flows: any input gives flows or one error, never a panic,
// and what it accepts is non-decreasing in start with pair-numbered ports.
func FuzzReadNS3Flows(f *testing.F) {
	f.Add("3 \n13 79 3 100 38884 2.000000577\n13 79 3 100 10 2.000000577\n91 20 3 100 79395 2.000001567\n")
	f.Add("1\n0 1 3 100 1 0\n")
	f.Add("1\n0 1 3 100 1 1e300\n")
	f.Fuzz(func(t *testing.T, in string) {
		flows, err := ReadNS3Flows("f.txt", strings.NewReader(in))
		if err != nil {
			return
		}
		for i := 1; i < len(flows); i++ {
			if flows[i].Start < flows[i-1].Start {
				t.Fatalf("flow %d starts before flow %d", i, i-1)
			}
		}
	})
}

// A file's declared flow count bounds its flows, not the memory reading it
// takes: "66666666" and a newline (FuzzReadNS3Flows found it) once made a
// 4 GB slice before failing for want of lines. Reading it now allocates
// little: under 1 MB here.
func TestReadNS3FlowsCountDoesNotAllocate(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadNS3Flows("flows.txt", strings.NewReader("66666666\n"))
	runtime.ReadMemStats(&after)
	if want := "flows.txt:1: want 66666666 flows, found 0"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("reading a 9-byte file allocated %d B, want under 1 MiB", d)
	}
}
