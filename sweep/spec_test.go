package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcsim/dcsim/analysis"
)

// tinyBase is a scenario of a few ms of wall time: 4 hosts on a star,
// 100us of arrivals.
const tinyBase = `name: tiny
duration: 100us
topology: {kind: star, hosts: 4}
workload: {kind: cloud, distribution: alistorage, load: 0.5}
`

// writeSweep writes base.yaml and sweep.yaml into a new directory and
// returns the sweep file's path.
func writeSweep(t testing.TB, sweep string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(tinyBase), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sweep.yaml")
	if err := os.WriteFile(path, []byte(sweep), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustPoints(t testing.TB, path string) (*Spec, []Point) {
	t.Helper()
	spec, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := spec.Points()
	if err != nil {
		t.Fatal(err)
	}
	return spec, pts
}

func TestExpansionOrderAndParams(t *testing.T) {
	path := writeSweep(t, `name: order
base: base.yaml
set: {duration: 50us}
grid:
  nic.scheduler: [fair, fair-message]
  workload.load: [0.3, 0.5]
zip:
  seed: [1, 2]
  drain_limit: [1ms, 2ms]
`)
	spec, pts := mustPoints(t, path)
	if spec.Name != "order" || spec.Len() != 8 || len(pts) != 8 {
		t.Fatalf("got name %q, %d points (Len %d), want order, 8", spec.Name, len(pts), spec.Len())
	}
	var got []string
	for _, p := range pts {
		got = append(got, p.Label())
	}
	want := []string{
		"nic.scheduler=fair workload.load=0.3 seed=1 drain_limit=1ms",
		"nic.scheduler=fair workload.load=0.3 seed=2 drain_limit=2ms",
		"nic.scheduler=fair workload.load=0.5 seed=1 drain_limit=1ms",
		"nic.scheduler=fair workload.load=0.5 seed=2 drain_limit=2ms",
		"nic.scheduler=fair-message workload.load=0.3 seed=1 drain_limit=1ms",
		"nic.scheduler=fair-message workload.load=0.3 seed=2 drain_limit=2ms",
		"nic.scheduler=fair-message workload.load=0.5 seed=1 drain_limit=1ms",
		"nic.scheduler=fair-message workload.load=0.5 seed=2 drain_limit=2ms",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("point order (-want +got):\n%s", diff)
	}
	p := pts[5]
	if p.Index != 5 || p.Scenario.NIC.Scheduler != "fair-message" || p.Scenario.Workload.Load != 0.3 ||
		p.Scenario.Seed != 2 || p.Scenario.Duration.String() != "50us" || p.Scenario.DrainLimit.String() != "2ms" {
		t.Errorf("point 5 resolved to scheduler %s load %v seed %d duration %v drain %v, want fair-message 0.3 2 50us 2ms",
			p.Scenario.NIC.Scheduler, p.Scenario.Workload.Load, p.Scenario.Seed, p.Scenario.Duration, p.Scenario.DrainLimit)
	}
	if p.Hash != p.Scenario.Hash() {
		t.Errorf("got hash %s, want the scenario's %s", p.Hash, p.Scenario.Hash())
	}
	// seed is a pinned run.parquet column: no extra column for it.
	wantParams := []analysis.Param{{Name: "nic.scheduler", Value: "fair-message"}, {Name: "workload.load", Value: 0.3}, {Name: "drain_limit", Value: "2ms"}}
	if diff := cmp.Diff(wantParams, p.Params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
}

func TestParamTypes(t *testing.T) {
	path := writeSweep(t, `base: base.yaml
grid:
  nic.mtu: [1000, 2000]
  workload.load: [0.25, 1e-1]
  nic.realistic_headers: [false, true]
  switch.ecn.kmin: [100KB, 200000]
  switch.ecn.pmax: [1, 0.5]
`)
	_, pts := mustPoints(t, path)
	last := pts[len(pts)-1]
	want := []analysis.Param{
		{Name: "nic.mtu", Value: int64(2000)},
		{Name: "workload.load", Value: 0.1},
		{Name: "nic.realistic_headers", Value: true},
		{Name: "switch.ecn.kmin", Value: "200000"}, // mixed: as written
		{Name: "switch.ecn.pmax", Value: 0.5},      // int and float: float
	}
	if diff := cmp.Diff(want, last.Params); diff != "" {
		t.Errorf("params of the last point (-want +got):\n%s", diff)
	}
	if got := pts[0].Params[4].Value; got != 1.0 {
		t.Errorf("switch.ecn.pmax of point 0: got %#v, want float64 1", got)
	}
}

// Every way a sweep file can be wrong gives a one-line error at the
// sweep file's line, naming the field.
func TestSweepErrors(t *testing.T) {
	cases := []struct {
		name, sweep, want string
	}{
		{"unknown field", "base: base.yaml\ncolour: red\n", "sweep.yaml:2: colour: unknown field (valid: name, base, set, grid, zip)"},
		{"syntax", "base: base.yaml\ngrid: {a: [1,\n", "sweep.yaml:"},
		{"not a mapping", "- a\n- b\n", "sweep.yaml:1: want a mapping"},
		{"two documents", "base: base.yaml\n---\nbase: x\n", "sweep.yaml:3: more than one YAML document"},
		{"grid scalar", "base: base.yaml\ngrid:\n  workload.load: 0.3\n", "sweep.yaml:3: grid.workload.load: want a list of values, got \"0.3\" (a fixed value belongs in set)"},
		{"grid empty", "base: base.yaml\ngrid:\n  workload.load: []\n", "sweep.yaml:3: grid.workload.load: empty list"},
		{"grid not mapping", "base: base.yaml\ngrid: [1, 2]\n", "sweep.yaml:2: grid: want a mapping"},
		{"zip lengths", "base: base.yaml\nzip:\n  seed: [1, 2]\n  workload.load: [0.1, 0.2, 0.3]\n",
			"sweep.yaml:4: zip.workload.load: has 3 values, but zip.seed has 2"},
		{"set and grid", "base: base.yaml\nset: {workload.load: 0.2}\ngrid:\n  workload.load: [0.3]\n",
			"sweep.yaml:4: grid.workload.load: also given in set"},
		{"nested set and dotted set", "base: base.yaml\nset:\n  nic.mtu: 1000\n  nic: {mtu: 2000}\n",
			"sweep.yaml:4: set.nic.mtu: also given in set"},
		{"duplicate top key", "base: base.yaml\nbase: default\n", "sweep.yaml:2: base: given twice"},
		{"bad value", "base: base.yaml\ngrid:\n  workload.load:\n    - 0.3\n    - 1.5\n",
			"sweep.yaml:5: grid.workload.load[1]: workload.load: 1.5 is not in (0, 1)"},
		{"bad zip value", "base: base.yaml\nzip:\n  nic.scheduler: [fair, nope]\n",
			"sweep.yaml:3: zip.nic.scheduler[1]: nic.scheduler: unknown scheduler \"nope\""},
		{"unknown path", "base: base.yaml\ngrid:\n  nic.schedular: [fair]\n", "sweep.yaml:3: grid.nic.schedular[0]: "},
		{"bad set", "base: base.yaml\nset:\n  duration: 10parsecs\n", "sweep.yaml:3: set.duration: duration: "},
		{"missing base", "base: nowhere.yaml\ngrid: {seed: [1]}\n", "sweep.yaml:1: base: \"nowhere.yaml\" is neither a built-in scenario nor a file"},
		{"unknown builtin", "base: nosuch\ngrid: {seed: [1]}\n", "sweep.yaml:1: base: \"nosuch\" is neither a built-in scenario nor a file"},
		{"base empty", "base: ''\n", "sweep.yaml:1: base: want a built-in scenario name or a scenario file path"},
		{"same scenario twice", "base: base.yaml\ngrid:\n  workload.load: [0.5, 0.50]\n",
			"sweep.yaml:2: grid: points 0 (workload.load=0.5) and 1 (workload.load=0.50) resolve to the same scenario"},
		{"too many points", "base: base.yaml\ngrid:\n" + strings.Repeat("", 0) +
			"  seed: [1,2,3,4,5,6,7,8,9,10]\n  nic.mtu: [1,2,3,4,5,6,7,8,9,10]\n  nic.data_class: [1,2,3,4,5,6,7]\n" +
			"  nic.ack_interval: [1,2,3,4,5,6,7,8,9,10]\n  nic.rto: [1ms,2ms,3ms,4ms,5ms,6ms,7ms,8ms,9ms,10ms]\n  nic.cnp_interval: [1us,2us]\n",
			"sweep.yaml:2: grid: expands to 70000 points or more, above the limit of 10000"},
		// Issue 27: a point that Validate rejects fails the sweep at its
		// value, before any point runs (flowlet tables of 2^24 slots
		// crashed a point with a Go stack trace), and a sweep over a knob
		// without effect is an error, not identical points.
		{"flowlet tables too large", "base: base.yaml\nset: {switch.routing.kind: adaptive}\ngrid:\n  switch.routing.flowlet_slots: [4096, 16777216]\n",
			"sweep.yaml:4: grid.switch.routing.flowlet_slots[1]: switch.routing.flowlet_slots: must be a power of two in [1, 2^20], got 16777216"},
		{"flowlet gap under ecmp", "base: base.yaml\nset: {switch.routing.kind: ecmp}\ngrid:\n  switch.routing.flowlet_gap: [5us, 10us]\n",
			"sweep.yaml:4: grid.switch.routing.flowlet_gap[1]: switch.routing.flowlet_gap: has no effect under kind: ecmp"},
		{"point error not in a value", "base: base.yaml\ngrid:\n  topology.hosts: [2, 3]\nset: {workload.hosts: '0-2'}\n",
			"sweep.yaml:4: set.workload.hosts: workload.hosts: host 2 does not exist (the topology has 2 hosts) (at point 0: topology.hosts=2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeSweep(t, c.sweep)
			spec, err := Load(path)
			if err == nil {
				_, err = spec.Points()
			}
			if err == nil {
				t.Fatalf("got no error, want %q", c.want)
			}
			msg := strings.Replace(err.Error(), path, "sweep.yaml", 1)
			if !strings.HasPrefix(msg, c.want) {
				t.Errorf("got error\n  %s\nwant it to start with\n  %s", msg, c.want)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error has more than one line: %q", msg)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("got %T, want *sweep.Error", err)
			}
		})
	}
}

// A value that Points accepts but Build rejects (a topology file that is
// not there) is reported by Check, at the base line with the point.
func TestCheckBuildErrors(t *testing.T) {
	path := writeSweep(t, "base: base.yaml\ngrid:\n  topology.kind: [star, file]\nset: {topology.file: no-such-topology.txt}\n")
	spec, pts := mustPoints(t, path)
	err := spec.Check(pts)
	if err == nil {
		t.Fatal("got no error for a missing topology file")
	}
	msg := strings.Replace(err.Error(), path, "sweep.yaml", 1)
	if want := "sweep.yaml:1: base: point 1 (topology.kind=file): "; !strings.HasPrefix(msg, want) {
		t.Errorf("got %q, want prefix %q", msg, want)
	}
}

func TestBaseResolution(t *testing.T) {
	// A relative base is relative to the sweep file, wherever the
	// working directory is.
	dir := t.TempDir()
	sub := filepath.Join(dir, "sweeps", "scen")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "b.yaml"), []byte(tinyBase), 0o644); err != nil {
		t.Fatal(err)
	}
	sw := filepath.Join(dir, "sweeps", "s.yaml")
	if err := os.WriteFile(sw, []byte("base: scen/b.yaml\ngrid: {seed: [1, 2]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, pts := mustPoints(t, sw)
	if got := pts[0].Scenario.Name; got != "tiny" {
		t.Errorf("got base scenario %q, want tiny", got)
	}
	// A built-in name, and the default base.
	for _, text := range []string{"base: incast-star\nzip: {seed: [3]}\n", "grid: {seed: [3]}\n"} {
		spec, err := Parse("x.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		pts, err := spec.Points()
		if err != nil {
			t.Fatal(err)
		}
		want := "default"
		if strings.Contains(text, "incast") {
			want = "incast-star"
		}
		if got := pts[0].Scenario.Name; got != want || pts[0].Scenario.Seed != 3 {
			t.Errorf("%q: got scenario %q seed %d, want %q seed 3", text, got, pts[0].Scenario.Seed, want)
		}
	}
}

// set merges nested mappings field by field.
func TestSetMerges(t *testing.T) {
	path := writeSweep(t, "base: base.yaml\nset:\n  switch: {ecn: {kmin: 100KB}}\n  nic.mtu: 4096\ngrid: {seed: [1]}\n")
	spec, pts := mustPoints(t, path)
	s := pts[0].Scenario
	if s.Switch.ECN.KMin.Bytes() != 100_000 || s.Switch.ECN.KMax.Bytes() != 1_600_000 || s.NIC.MTU != 4096 {
		t.Errorf("got kmin %v kmax %v mtu %d, want 100KB, the default 1600KB, 4096", s.Switch.ECN.KMin, s.Switch.ECN.KMax, s.NIC.MTU)
	}
	var got []string
	for _, o := range spec.Set {
		got = append(got, o.Value.Arg(o.Path))
	}
	if diff := cmp.Diff([]string{"switch.ecn.kmin=100KB", "nic.mtu=4096"}, got); diff != "" {
		t.Errorf("set overrides (-want +got):\n%s", diff)
	}
}

func TestValueText(t *testing.T) {
	path := writeSweep(t, "base: base.yaml\ngrid:\n  switch.wrr_weights:\n    - [1, 2, 3, 4, 5, 6, 7, 8]\n    - [8,\n       7, 6, 5, 4, 3, 2, 1]\n  name: ['on', \"x y\"]\n")
	spec, pts := mustPoints(t, path)
	var got []string
	for _, d := range spec.Grid {
		for _, v := range d.Values {
			got = append(got, v.Text)
		}
	}
	want := []string{"[1, 2, 3, 4, 5, 6, 7, 8]", "[8, 7, 6, 5, 4, 3, 2, 1]", "'on'", `"x y"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("value texts (-want +got):\n%s", diff)
	}
	if pts[0].Scenario.Name != "on" || pts[0].Scenario.Switch.WRRWeights[1] != 2 {
		t.Errorf("got name %q weights %v, want \"on\" and [1 2 ...]", pts[0].Scenario.Name, pts[0].Scenario.Switch.WRRWeights)
	}
	if p := pts[2].Params[0]; p.Value != "[8, 7, 6, 5, 4, 3, 2, 1]" {
		t.Errorf("list param: got %#v, want the flow text", p.Value)
	}
}

func TestIsSweepFile(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		{"grid: {seed: [1]}\n", true},
		{"name: x\nzip: {}\n", true},
		{"base: default\n", true},
		{"name: x\nworkload: {load: 0.3}\n", false},
		{"", false},
		{"[1, 2]", false},
		{"grid: [\n", false},
	}
	for _, c := range cases {
		if got := IsSweepFile([]byte(c.text)); got != c.want {
			t.Errorf("IsSweepFile(%q): got %v, want %v", c.text, got, c.want)
		}
	}
}

func TestShards(t *testing.T) {
	pts := make([]Point, 10)
	for i := range pts {
		pts[i].Index = i
	}
	for n := 1; n <= 4; n++ {
		seen := make([]int, len(pts))
		for i := range n {
			for _, p := range (Shard{i, n}).Select(pts) {
				if p.Index%n != i {
					t.Errorf("shard %d/%d got point %d", i, n, p.Index)
				}
				seen[p.Index]++
			}
		}
		for idx, c := range seen {
			if c != 1 {
				t.Errorf("N=%d: point %d in %d shards, want 1", n, idx, c)
			}
		}
	}
	if got := len((Shard{}).Select(pts)); got != 10 {
		t.Errorf("zero shard selected %d points, want all 10", got)
	}
}

func TestParseShard(t *testing.T) {
	cases := []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/4", Shard{0, 4}, ""},
		{"3/4", Shard{3, 4}, ""},
		{" 0 / 1 ", Shard{0, 1}, ""},
		{"4/4", Shard{}, "want 0 <= I < N"},
		{"-1/4", Shard{}, "want 0 <= I < N"},
		{"0/0", Shard{}, "want 0 <= I < N"},
		{"1", Shard{}, "want I/N"},
		{"a/b", Shard{}, "whole numbers"},
	}
	for _, c := range cases {
		got, err := ParseShard(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseShard(%q): got error %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseShard(%q): got %v, %v, want %v", c.in, got, err, c.want)
		}
	}
}

// A 500-byte sweep file of nested aliases expanded to 10^9 values in
// flowText and took gigabytes; it is now rejected at the anchor that
// crosses the scenario parser's bound, as a scenario file is (issue #15,
// item 2).
func TestSweepAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("grid: {seed: [1]}\nset:\n  a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "  a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	if b.Len() > 600 {
		t.Fatalf("bomb is %d bytes, want a small file", b.Len())
	}
	_, err := Parse("bomb.yaml", []byte(b.String()))
	want := "bomb.yaml:7: document too large: more than 100000 values once aliases are expanded"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if !IsSweepFile([]byte("grid: {seed: [1]}\n")) || IsSweepFile([]byte(b.String())) {
		t.Error("IsSweepFile: want true for a sweep and false for the bomb")
	}
	long := "grid: {seed: [1]}\nset: {name: " + strings.Repeat("x", 20000) + "}\n"
	if _, err := Parse("long.yaml", []byte(long)); err == nil || !strings.Contains(err.Error(), "long.yaml:2: set.name: value is 20000 bytes long in flow style, above the limit of 16384") {
		t.Errorf("a 20 kB value: got %v, want the value length error", err)
	}
}
