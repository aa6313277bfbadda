package scenario

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestUnitsYAML(t *testing.T) {
	// The wrapper types work with plain yaml.v3 too, for code (such as a
	// sweep file reader) that decodes them without this package's decoder.
	type doc struct {
		D Duration  `yaml:"d"`
		R Rate      `yaml:"r"`
		S Size      `yaml:"s"`
		Q QPMapping `yaml:"q"`
	}
	for _, c := range []struct {
		in   string
		want doc
		out  string
	}{
		{"{d: 10ms, r: 100Gbps, s: 32MiB, q: per-flow}", doc{Duration(10 * engine.Millisecond), Rate(100 * engine.Gbps), Size(32 * engine.MiB), QPMapping{}},
			"d: 10ms\nr: 100Gbps\ns: 32MiB\nq: per-flow\n"},
		{"{d: 1.5us, r: 2.5Gbps, s: 400KB, q: per-pair}", doc{Duration(1500 * engine.Nanosecond), Rate(2500 * engine.Mbps), Size(400_000), QPMapping{Pool: 1}},
			"d: 1500ns\nr: 2500Mbps\ns: 400KB\nq: per-pair\n"},
		{"{d: 0, r: 0, s: 4096, q: 'pool:8'}", doc{0, 0, 4096, QPMapping{Pool: 8}},
			"d: 0s\nr: 0bps\ns: 4KiB\nq: pool:8\n"},
		{"{d: never, r: 1000Mb/s, s: 1000, q: pool:1}", doc{Duration(engine.Never), Rate(engine.Gbps), 1000, QPMapping{Pool: 1}},
			"d: never\nr: 1Gbps\ns: 1KB\nq: per-pair\n"},
	} {
		var got doc
		if err := yaml.Unmarshal([]byte(c.in), &got); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.in, got, c.want)
		}
		out, err := yaml.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != c.out {
			t.Errorf("%s: printed %q, want %q", c.in, out, c.out)
		}
	}
	for _, in := range []string{"{d: 10}", "{r: 100Mbit}", "{s: 1XB}", "{q: pool:0}", "{q: pool:x}", "{d: [1]}", "{r: -1Gbps}", "{r: 0.Gbps}"} {
		var got doc
		if err := yaml.Unmarshal([]byte(in), &got); err == nil {
			t.Errorf("%s: got %+v, want an error", in, got)
		}
	}
}

func TestParseRateZero(t *testing.T) {
	for _, c := range []struct {
		in   string
		want engine.Rate
		ok   bool
	}{
		{"0", 0, true}, {"0bps", 0, true}, {"0Gbps", 0, true}, {"0.0Gb/s", 0, true}, {"00G", 0, true},
		{"5Gbps", 5 * engine.Gbps, true},
		{"0.", 0, false}, {".0Gbps", 0, false}, {"bps", 0, false}, {"", 0, false}, {"0x", 0, false},
	} {
		got, err := parseRate(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseRate(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestHostSet(t *testing.T) {
	for _, c := range []struct {
		in   HostSet
		n    int
		want []int
		err  string
	}{
		{"all", 4, []int{0, 1, 2, 3}, ""},
		{"0-2", 4, []int{0, 1, 2}, ""},
		{"3, 0-1", 4, []int{0, 1, 3}, ""},
		{"2", 4, []int{2}, ""},
		{"0-4", 4, nil, "host 4 does not exist (the topology has 4 hosts)"},
		{"1,0-2", 4, nil, "host 1 is listed twice"},
		{"", 4, nil, `empty host set (want "all" or a list such as "0-15,32")`},
		{"a", 4, nil, `bad host "a" in "a": not a host index`},
		{"1-", 4, nil, `bad host range "1-" in "1-": missing number`},
		{"-1", 4, nil, `bad host "-1" in "-1": missing number`},
		{"99999999999999999999", 4, nil, `bad host "99999999999999999999" in "99999999999999999999": index above the limit of 1048576 hosts`},
	} {
		got, err := c.in.Resolve(c.n)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != c.err || !cmp.Equal(got, c.want) {
			t.Errorf("%q.Resolve(%d) = %v, %q; want %v, %q", c.in, c.n, got, gotErr, c.want, c.err)
		}
	}
}

func TestQPMapping(t *testing.T) {
	for _, c := range []struct {
		in   string
		pool int
		out  string
	}{{"per-flow", 0, "per-flow"}, {"per-pair", 1, "per-pair"}, {"pool:1", 1, "per-pair"}, {"pool:16", 16, "pool:16"}} {
		m, err := ParseQPMapping(c.in)
		if err != nil || m.Pool != c.pool || m.String() != c.out {
			t.Errorf("ParseQPMapping(%q) = %+v (%v), %v; want pool %d, %q", c.in, m, m, err, c.pool, c.out)
		}
	}
	if !(QPMapping{}).PerFlow() || (QPMapping{Pool: 1}).PerFlow() {
		t.Error("PerFlow: got the wrong answer")
	}
}
