package wiring

import (
	"bytes"
	"fmt"
	"github.com/dcsim/dcsim/scenario"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
	"go.yaml.in/yaml/v3"
)

// timePaths lists the dotted path of every field of s that prints as a
// duration, plugin sub-maps included.
func timePaths(t *testing.T, s *scenario.Scenario) []string {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(s.YAML(), &root); err != nil {
		t.Fatal(err)
	}
	var paths []string
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			if v.Kind == yaml.MappingNode {
				walk(v, prefix+k+".")
				continue
			}
			if v.Kind == yaml.ScalarNode && v.Value != "0" {
				if _, err := engine.ParseTime(v.Value); err == nil || v.Value == "never" {
					paths = append(paths, prefix+k)
				}
			}
		}
	}
	walk(root.Content[0], "")
	return paths
}

// Every time field, set to "never" or to the longest finite span, is
// either rejected at validation or runs without a sum overflowing int64:
// an overflow shows as an event scheduled in the past (a panic) or as a
// run that ends at duration with flows unfinished (issue #15, item 1).
func TestTimeFieldsCannotOverflow(t *testing.T) {
	small := []string{"topology.kind=star", "topology.hosts=4", "duration=20us", "workload.load=0.3"}
	for _, plugin := range []string{"nic.scheduler=fair", "nic.scheduler=storm", "nic.scheduler=pias", "cc.algorithm=dcqcn", "cc.algorithm=hpcc", "cc.algorithm=timely", "cc.algorithm=dctcp"} {
		base, err := Catalog().Load("default", append(small[:len(small):len(small)], plugin))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range timePaths(t, base) {
			if path == "duration" {
				continue // arrivals for 26 days would take as long to simulate; duration + drain_limit is covered by drain_limit
			}
			for _, v := range []string{"never", engine.MaxSpan.String()} {
				set := append(append([]string{}, small...), plugin, path+"="+v)
				if path != "drain_limit" {
					set = append(set, "drain_limit=1ms")
				}
				s, err := Catalog().Load("default", set)
				if err != nil {
					if strings.Contains(err.Error(), "panic") {
						t.Errorf("%s=%s: %v", path, v, err)
					}
					continue
				}
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s %s=%s: panic: %v", plugin, path, v, r)
						}
					}()
					sim, err := Build(s)
					if err != nil {
						return
					}
					res := sim.Run(Options{})
					if path == "drain_limit" && !res.Drained {
						t.Errorf("drain_limit=%s: run ended with %d of %d flows unfinished, want all drained",
							v, res.Run.FlowsTotal-res.Run.FlowsDone, res.Run.FlowsTotal)
					}
				}()
			}
		}
	}
}

// A finite span above engine.MaxSpan is rejected by name, as are units
// that do not exist and exponent notation.
func TestTimeAndSizeUnitErrors(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"duration=3000000s", `--set duration=3000000s: duration: bad duration "3000000s": longer than the longest span dcsim can add without overflow, 2^61 ps (about 26.7 days)`},
		{"drain_limit=1e308s", `--set drain_limit=1e308s: drain_limit: bad duration "1e308s": exponent notation is not accepted: write the digits`},
		{"duration=30days", `--set duration=30days: duration: bad duration "30days": unknown unit "days" (valid: ps, ns, us, ms, s)`},
		{"switch.buffer=1TiB", `--set switch.buffer=1TiB: switch.buffer: bad size "1TiB": unknown unit "TiB" (valid: B, KB, KiB, MB, MiB, GB, GiB)`},
		{"switch.buffer=1.5e3KB", `--set switch.buffer=1.5e3KB: switch.buffer: bad size "1.5e3KB": exponent notation is not accepted: write the digits`},
	} {
		_, err := Catalog().Load("default", []string{tc.set})
		if err == nil || err.Error() != tc.want {
			t.Errorf("--set %s: got %v, want %s", tc.set, err, tc.want)
		}
	}
}

// aliasBomb is a small YAML mapping under key whose nested aliases expand
// to 10^9 values.
func aliasBomb(key string) string {
	var b strings.Builder
	b.WriteString(key + ":\n  a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "  a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	return b.String()
}

// Any YAML input is bounded in the work it causes: size, aliases
// expanded, depth (issue #15, item 2). ParseMapping is the one path the
// scenario and sweep parsers share.
func TestYAMLInputBounded(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"alias bomb", aliasBomb("workload"), "bomb.yaml:6: document too large: more than 100000 values once aliases are expanded"},
		{"deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), "bomb.yaml:1: nested more than 64 deep (aliases expanded)"},
		{"huge", "# " + strings.Repeat("x", scenario.MaxFileBytes), "bomb.yaml: larger than 1048576 bytes: not a scenario file"},
	} {
		_, err := scenario.ParseMapping("bomb.yaml", []byte(tc.doc), "scenario", "a mapping")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: ParseMapping: got %v, want %s", tc.name, err, tc.want)
		}
	}
	if _, err := Catalog().Parse("bomb.yaml", []byte(aliasBomb("workload")), nil); err == nil || !strings.Contains(err.Error(), "document too large") {
		t.Errorf("Parse of an alias bomb: got %v, want document too large", err)
	}
}

// Values the model cannot represent are rejected before the run: sizes
// above MaxBytes, messages whose transfer would overflow the clock, and
// switch buffers that cannot hold their PFC headroom plus one packet per
// port (issue #15, items 8 and 12).
func TestUnrepresentableValues(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"switch.buffer=9223372036854775807B", "switch.pfc=false"},
			`--set switch.buffer=9223372036854775807B: switch.buffer: size "9223372036854775807B" is larger than 1 PiB (2^50 B), beyond what the model's byte arithmetic holds`},
		// lossless, auto (the default): the larger of the reference's and
		// the sized headroom per port, here the reference's 16 x 37,500 B
		// + 4 x 150,000 B, 20 x 4096 B of reserve, 20 x 1048 B of packets
		{[]string{"switch.buffer=1B"},
			"switch.buffer: 1B is too small: switch leaf0 with 20 ports needs at least 1302880 B (its PFC headroom and reserve plus one packet of 1048 B per port)"},
		{[]string{"switch.buffer=1302879B"},
			"switch.buffer: 1302879B is too small: switch leaf0 with 20 ports needs at least 1302880 B (its PFC headroom and reserve plus one packet of 1048 B per port)"},
		// sized: 16 x 28,187 B + 4 x 103,187 B (2 x rate x 1 us + 3 x
		// 1048 B + 43 B), 20 x 4096 B of reserve, 20 x 1048 B of packets
		{[]string{"switch.buffer=966619B", "switch.pfc_headroom=sized"},
			"switch.buffer: 966619B is too small: switch leaf0 with 20 ports needs at least 966620 B (its PFC headroom and reserve plus one packet of 1048 B per port)"},
		// MTU 9000, auto: per port the larger, 16 x 52,187 B sized (2 x
		// 12,500 + 3 x 9048 + 43; the reference's 37,500 would drop) + 4 x
		// 150,000 B reference (sized: 127,187), 20 x 4096 B of reserve, 20 x
		// 9048 B of packets
		{[]string{"switch.buffer=1697871B", "nic.mtu=9000"},
			"switch.buffer: 1697871B is too small: switch leaf0 with 20 ports needs at least 1697872 B (its PFC headroom and reserve plus one packet of 9048 B per port)"},
		// the reference's headroom, which compat: hpcc-ns3 keeps
		{[]string{"switch.buffer=1302879B", "switch.pfc_headroom=reference"},
			"switch.buffer: 1302879B is too small: switch leaf0 with 20 ports needs at least 1302880 B (its PFC headroom and reserve plus one packet of 1048 B per port)"},
		{[]string{"switch.buffer=1302879B", "compat=hpcc-ns3"},
			"switch.buffer: 1302879B is too small: switch leaf0 with 20 ports needs at least 1302880 B (its PFC headroom and reserve plus one packet of 1048 B per port)"},
		{[]string{"switch.buffer=20959B", "switch.pfc=false"},
			"switch.buffer: 20959B is too small: switch leaf0 with 20 ports needs at least 20960 B (one packet of 1048 B per port)"},
		// 2^61 ps at 1 Mbps is 288 GB of wire bytes, 275 GB of payload at MTU 1000
		{[]string{"topology.host_link=1Mbps", "topology.fabric_link=1Mbps", "workload.kind=incast", "workload.incast.flow_size=900000GB"},
			"workload: incast.flow_size: a 900000000000000 B message is more than the model can represent on this network (at most 275028984877 B: its transfer on the slowest link must take under 2^61 ps)"},
	} {
		s, err := Catalog().Load("default", tc.sets)
		if err == nil {
			_, err = Build(s)
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: got %v, want %s", tc.sets, err, tc.want)
		}
	}
	for _, ok := range [][]string{{"switch.buffer=1302880B"}, {"switch.buffer=20960B", "switch.pfc=false"}} {
		s, err := Catalog().Load("default", ok)
		if err == nil {
			_, err = Build(s)
		}
		if err != nil {
			t.Errorf("%v: got %v, want it accepted", ok, err)
		}
	}
}

// A hand-written file gets DCQCN, as the built-ins do, and a CC that
// ignores ECN gets no CNPs (issue #15, first use). incast-star, which
// runs without CC, counted 17,948 CNPs before.
func TestCCDefaultAndCNPs(t *testing.T) {
	s, err := Catalog().Parse("hand.yaml", []byte("topology: {kind: star, hosts: 4}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.CC.Algorithm != "dcqcn" {
		t.Errorf("hand-written file: got cc.algorithm %q, want dcqcn", s.CC.Algorithm)
	}
	for _, tc := range []struct {
		cc      string
		someCNP bool
	}{{"none", false}, {"hpcc", false}, {"timely", false}, {"dcqcn", true}, {"dctcp", true}} {
		res := mustBuild(t, "incast-star", "duration=1ms", "cc.algorithm="+tc.cc).Run(Options{})
		if got := res.Run.CNPs > 0; got != tc.someCNP {
			t.Errorf("cc %s: got %d CNPs, want some: %v", tc.cc, res.Run.CNPs, tc.someCNP)
		}
	}
}

// A traced run with Options.Dir streams samples.parquet during the run;
// its rows equal those of the in-memory path, and the same seed gives the
// same bytes. An interval that would write over 10^9 rows is rejected
// (issue #15, item 4). Measured: default, duration 1ms, trace.interval
// 1us (6.39M rows) peaked at 1.37 GB resident in memory, 45 MB streamed.
func TestSamplesStreamed(t *testing.T) {
	sets := []string{"topology.kind=star", "topology.hosts=4", "duration=200us", "trace.interval=100ns"}
	run := func(dir string) *Result {
		res := mustBuild(t, "default", sets...).Run(Options{RunID: "r", Dir: dir})
		if dir != "" {
			if err := res.WriteDir(dir); err != nil {
				t.Fatal(err)
			}
		}
		return res
	}
	mem := run("")
	a, b := t.TempDir(), t.TempDir()
	if got := run(a).Samples; got != nil {
		t.Fatalf("streamed run kept %d samples in memory", len(got))
	}
	run(b)
	rows, err := analysis.ReadSamples(filepath.Join(a, analysis.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(mem.Samples) || len(rows) < 2*streamBatch || !reflect.DeepEqual(rows, mem.Samples) {
		t.Errorf("streamed %d rows, in memory %d (want equal and more than two batches of %d)", len(rows), len(mem.Samples), streamBatch)
	}
	x, _ := os.ReadFile(filepath.Join(a, analysis.SamplesFile))
	y, _ := os.ReadFile(filepath.Join(b, analysis.SamplesFile))
	if !bytes.Equal(x, y) {
		t.Error("same seed: streamed samples.parquet differs")
	}
	// And it is the file WriteSamples writes from the rows kept in memory,
	// byte for byte (issue #19: samples streamed like flows).
	c := t.TempDir()
	if err := mem.WriteDir(c); err != nil {
		t.Fatal(err)
	}
	if z, _ := os.ReadFile(filepath.Join(c, analysis.SamplesFile)); len(z) == 0 || !bytes.Equal(x, z) {
		t.Errorf("streamed samples.parquet: %d bytes, want WriteSamples's %d, byte for byte", len(x), len(z))
	}
	_, err = Catalog().Load("default", []string{"trace.interval=1ps"})
	want := "--set trace.interval=1ps: trace.interval: 1ps would write at least 1.09e+13 sample rows (1088 a sample: ports x metrics, a QP a host for qp_rate; x 10000000000 samples in duration 10ms), above the limit of 1e+09: use a longer interval"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// A training run cut off before its first iteration says so and how to
// give it time; "no flow started" is not said of training (issue #15,
// first use).
func TestTrainingCutOffSaysSo(t *testing.T) {
	sim := mustBuild(t, "allreduce-128", "drain_limit=10us")
	res := sim.Run(Options{})
	h := res.Headline()
	want := "note: 0 of 1 training iterations finished before the drain limit ended the run at 11us (drain_limit 10us), so iterations.parquet has 0 rows; give it more time, e.g. --set drain_limit=10s\n"
	if !strings.Contains(h, want) || strings.Contains(h, "no flow started") {
		t.Errorf("headline:\n%s\nwant it to contain %q and not 'no flow started'", h, want)
	}
	if p := sim.trainingProgress(); p != (TrainingProgress{Iterations: 1}) {
		t.Errorf("progress: got %+v, want 0 of 1 iterations, 0 collectives", p)
	}
}

// mustBuild loads scenario name with sets and builds it.
func mustBuild(t *testing.T, name string, sets ...string) *Sim {
	t.Helper()
	return mustBuildWith(t, Catalog(), name, sets...)
}

// mustBuildWith is mustBuild with the scenario read by cat.
func mustBuildWith(t *testing.T, cat *scenario.Catalog, name string, sets ...string) *Sim {
	t.Helper()
	s, err := cat.Load(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// A flow-list flow 20 days in, under drain_limit: never, runs in a few
// events: the run loop skips idle chunks instead of stepping through 1.7e10
// of them; a start after engine.MaxSpan is rejected (issue #15, item 1).
func TestLateFlowSkipsIdleTime(t *testing.T) {
	dir := t.TempDir()
	late := filepath.Join(dir, "late.csv")
	os.WriteFile(late, []byte("src,dst,size_bytes,start_ns\n0,1,1000,1728000000000000\n"), 0o644)
	res := mustBuild(t, "default", "topology.kind=star", "topology.hosts=4", "workload.kind=flowlist",
		"workload.flowlist.file="+late, "drain_limit=never").Run(Options{})
	if !res.Drained || res.Run.FlowsDone != 1 || res.Run.Events > 100 {
		t.Errorf("got drained %v, %d flows done, %d events; want the one flow done in under 100 events", res.Drained, res.Run.FlowsDone, res.Run.Events)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("src,dst,size_bytes,start_ns\n0,1,1000,9000000000000000\n"), 0o644)
	s, err := Catalog().Load("default", []string{"topology.kind=star", "topology.hosts=4", "workload.kind=flowlist", "workload.flowlist.file=" + bad})
	if err == nil {
		_, err = Build(s)
	}
	if err == nil || !strings.Contains(err.Error(), "bad.csv:2: column start_ns: 9000000000000000 ns is after 2^61 ps (26.7 days)") {
		t.Errorf("start after MaxSpan: got %v", err)
	}
}
