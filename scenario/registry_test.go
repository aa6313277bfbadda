package scenario

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/google/go-cmp/cmp"
)

// testParams stands for a real plugin's parameter struct: engine types, a
// float, a bool, a list and a nested struct.
type testParams struct {
	RateAI   engine.Rate `yaml:"rate_ai"`
	Timer    engine.Time `yaml:"timer"`
	Gain     float64     `yaml:"gain"`
	Window   bool        `yaml:"window"`
	Slots    int         `yaml:"slots"`
	Bytes    int64       `yaml:"bytes"`
	Levels   []int64     `yaml:"levels"`
	Guard    string      `yaml:"guard"`
	Inner    testInner   `yaml:"inner"`
	internal int
}

type testInner struct {
	Chunk Size `yaml:"chunk"`
}

func testPlugin(name string) Plugin {
	return Plugin{
		Name: name,
		Doc:  "test plugin",
		Params: func(r engine.Rate) any {
			// Scales with the line rate like docs/model.md §5.2's 5*bw/25 Mb/s.
			return &testParams{RateAI: r / 5000, Timer: 300 * engine.Microsecond, Gain: 1.0 / 256,
				Slots: 1, Levels: []int64{70_000, 1_785_000}, Guard: "stall"}
		},
		Validate: func(p any) error {
			tp := p.(*testParams)
			if tp.Slots < 1 {
				return &FieldError{Path: "slots", Msg: "must be at least 1"}
			}
			if tp.Guard != "stall" && tp.Guard != "inherit" {
				return errors.New("guard is neither stall nor inherit")
			}
			return nil
		},
	}
}

// withPlugins is the test catalog with a test scheduler and algorithm.
func withPlugins() *Catalog {
	c := *testCat
	c.Schedulers = append(append([]Plugin(nil), c.Schedulers...), testPlugin("tsched"))
	c.Algorithms = append(append([]Plugin(nil), c.Algorithms...), testPlugin("talg"))
	return &c
}

func TestPluginParams(t *testing.T) {
	cat := withPlugins()
	in := `topology: {host_link: 25Gbps}
nic:
  scheduler: tsched
  tsched:
    timer: 55us
    levels: [1, 2, 3]
    inner: {chunk: 4KiB}
cc:
  algorithm: talg
`
	s, err := cat.Parse("p.yaml", []byte(in), []string{"nic.tsched.gain=0.5", "cc.talg.window=true"})
	if err != nil {
		t.Fatal(err)
	}
	want := &testParams{RateAI: 5 * engine.Mbps, Timer: 55 * engine.Microsecond, Gain: 0.5, Slots: 1,
		Levels: []int64{1, 2, 3}, Guard: "stall", Inner: testInner{Chunk: 4096}}
	if diff := cmp.Diff(want, s.NIC.Params, cmp.AllowUnexported(testParams{}), ignoreCat); diff != "" {
		t.Errorf("nic params (-want +got):\n%s", diff)
	}
	wantCC := testPlugin("").Params(25 * engine.Gbps).(*testParams)
	wantCC.Window = true
	if diff := cmp.Diff(wantCC, s.CC.Params, cmp.AllowUnexported(testParams{}), ignoreCat); diff != "" {
		t.Errorf("cc params (-want +got):\n%s", diff)
	}
	y := string(s.YAML())
	for _, line := range []string{"  tsched:\n    rate_ai: 5Mbps\n    timer: 55us\n", "    levels: [1, 2, 3]\n", "    inner:\n      chunk: 4KiB\n", "  talg:\n    rate_ai: 5Mbps\n"} {
		if !strings.Contains(y, line) {
			t.Errorf("printed scenario lacks %q:\n%s", line, y)
		}
	}
	s2, err := cat.Parse("p2.yaml", []byte(y), nil)
	if err != nil {
		t.Fatal(err)
	}
	s2.Name = s.Name
	if diff := cmp.Diff(s, s2, cmp.AllowUnexported(testParams{}), ignoreCat); diff != "" {
		t.Errorf("round trip (-orig +reparsed):\n%s", diff)
	}
}

func TestPluginErrors(t *testing.T) {
	cat := withPlugins()
	for _, tt := range []struct{ in, want string }{
		{"nic:\n  scheduler: tsched\n  tsched:\n    slots: 0\n",
			"p.yaml:4: nic.tsched.slots: must be at least 1"},
		{"nic:\n  scheduler: tsched\n  tsched:\n    guard: maybe\n",
			"p.yaml:3: nic.tsched: guard is neither stall nor inherit"},
		{"nic:\n  scheduler: tsched\n  tsched:\n    timer: 5\n",
			`p.yaml:4: nic.tsched.timer: bad duration "5": want a number with a unit (ps, ns, us, ms, s)`},
		{"nic:\n  scheduler: tsched\n  tsched:\n    rate_ai: fast\n",
			`p.yaml:4: nic.tsched.rate_ai: bad rate "fast": want a number with a unit (bps, Kbps, Mbps, Gbps, Tbps)`},
		{"cc:\n  algorithm: talg\n  talg:\n\n    slotz: 2\n",
			`p.yaml:5: cc.talg.slotz: unknown field "slotz" (valid: rate_ai, timer, gain, window, slots, bytes, levels, guard, inner)`},
		{"cc:\n  talg: {inner: {chunk: 1, x: 2}}\n",
			`p.yaml:2: cc.talg.inner.x: unknown field "x" (valid: chunk)`},
		// The default for an absent sub-map is validated too, on the
		// selector's line.
		{"cc:\n  algorithm: none\n", ""},
	} {
		_, err := cat.Parse("p.yaml", []byte(tt.in), nil)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%q:\ngot  %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestPluginsRoundTrip checks every registered plugin: its defaults print
// and read back equal, at two line rates, and pass its own Validate.
func TestPluginsRoundTrip(t *testing.T) {
	for _, table := range []struct {
		section string
		plugins []Plugin
	}{{"nic", testCat.Schedulers}, {"cc", testCat.Algorithms}} {
		for _, p := range table.plugins {
			for _, rate := range []string{"100Gbps", "25Gbps"} {
				sel := "nic.scheduler="
				if table.section == "cc" {
					sel = "cc.algorithm="
				}
				s, err := testCat.Load("default", []string{sel + p.Name, "topology.host_link=" + rate})
				if err != nil {
					t.Errorf("%s %s at %s: %v", table.section, p.Name, rate, err)
					continue
				}
				checkRoundTrip(t, s)
			}
		}
	}
}

// TestPluginNames: a plugin name must not shadow a field of its section,
// and names are unique.
func TestPluginNames(t *testing.T) {
	for _, c := range []struct {
		typ     reflect.Type
		plugins []Plugin
	}{{reflect.TypeFor[NIC](), testCat.Schedulers}, {reflect.TypeFor[CC](), testCat.Algorithms}} {
		seen := map[string]bool{}
		for _, f := range fieldsOf(c.typ) {
			seen[f.name] = true
		}
		for _, p := range c.plugins {
			if seen[p.Name] {
				t.Errorf("%s: plugin %q collides with a field or another plugin", c.typ, p.Name)
			}
			seen[p.Name] = true
			if p.Params == nil || p.Doc == "" {
				t.Errorf("%s: plugin %q lacks Params or Doc", c.typ, p.Name)
			}
		}
	}
}

// A Scenario made without a catalog (a Go literal) is refused by
// Validate, and printing or selecting a plugin on it does not panic.
func TestNoCatalog(t *testing.T) {
	s := &Scenario{}
	if err := s.Validate(); err != errNoCatalog {
		t.Errorf("Validate: got %v, want %v", err, errNoCatalog)
	}
	if err := s.SetScheduler("fair"); err == nil {
		t.Errorf("SetScheduler without a catalog: got no error")
	}
	_ = s.YAML()
}

// inlineShared stands for cc.NICParams: settings several plugins share,
// embedded inline in each one's parameters.
type inlineShared struct {
	HasWin       bool        `yaml:"has_win"`
	Floor        engine.Rate `yaml:"floor"`
	inlineDeeper `yaml:",inline"`
}

type inlineDeeper struct {
	Depth int `yaml:"depth"`
}

type inlineParams struct {
	Gain         float64 `yaml:"gain"`
	inlineShared `yaml:",inline"`
	Last         string `yaml:"last"`
}

// TestInlineParams: an embedded struct tagged `yaml:",inline"` reads,
// prints, takes --set and errs as fields of the struct that embeds it, in
// declaration order, with the same paths as fields declared there.
func TestInlineParams(t *testing.T) {
	cat := *testCat
	cat.Algorithms = append(append([]Plugin(nil), cat.Algorithms...), Plugin{
		Name: "ialg", Doc: "inline test",
		Params: func(engine.Rate) any {
			return &inlineParams{Gain: 0.5, inlineShared: inlineShared{Floor: engine.Gbps, inlineDeeper: inlineDeeper{Depth: 2}}, Last: "x"}
		},
		Validate: func(any) error { return nil },
	})
	in := "cc:\n  algorithm: ialg\n  ialg:\n    has_win: true\n    depth: 3\n"
	s, err := cat.Parse("p.yaml", []byte(in), []string{"cc.ialg.floor=5Gbps"})
	if err != nil {
		t.Fatal(err)
	}
	want := &inlineParams{Gain: 0.5, inlineShared: inlineShared{HasWin: true, Floor: 5 * engine.Gbps, inlineDeeper: inlineDeeper{Depth: 3}}, Last: "x"}
	if diff := cmp.Diff(want, s.CC.Params, cmp.AllowUnexported(inlineParams{}, inlineShared{}), ignoreCat); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	y := string(s.YAML())
	if printed := "  ialg:\n    gain: 0.5\n    has_win: true\n    floor: 5Gbps\n    depth: 3\n    last: x\n"; !strings.Contains(y, printed) {
		t.Errorf("printed scenario lacks %q:\n%s", printed, y)
	}
	s2, err := cat.Parse("p2.yaml", []byte(y), nil)
	if err != nil {
		t.Fatal(err)
	}
	s2.Name = s.Name
	if diff := cmp.Diff(s, s2, cmp.AllowUnexported(inlineParams{}, inlineShared{}), ignoreCat); diff != "" {
		t.Errorf("round trip (-orig +reparsed):\n%s", diff)
	}
	for _, tt := range []struct {
		in   string
		set  []string
		want string
	}{
		{"cc:\n  algorithm: ialg\n  ialg:\n    inlineShared: {}\n", nil,
			`p.yaml:4: cc.ialg.inlineShared: unknown field "inlineShared" (valid: gain, has_win, floor, depth, last)`},
		{"cc:\n  algorithm: ialg\n", []string{"cc.ialg.depth=deep"},
			`--set cc.ialg.depth=deep: cc.ialg.depth: want an integer, got "deep"`},
		{"cc:\n  algorithm: ialg\n  ialg: {floor: 1Gbps, floor: 2Gbps}\n", nil,
			`p.yaml:3: cc.ialg.floor: set twice (first at line 3)`},
	} {
		_, err := cat.Parse("p.yaml", []byte(tt.in), tt.set)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q %v:\ngot  %v\nwant %s", tt.in, tt.set, err, tt.want)
		}
	}
}

// TestPluginKeysUnique: no plugin's parameters, once inline structs are
// flattened, name a key twice (the decoder would read only the first).
func TestPluginKeysUnique(t *testing.T) {
	for _, table := range [][]Plugin{testCat.Schedulers, testCat.Algorithms} {
		for _, p := range table {
			seen := map[string]bool{}
			for _, f := range fieldsOf(reflect.TypeOf(p.Params(100 * engine.Gbps)).Elem()) {
				if seen[f.name] {
					t.Errorf("%s: key %q twice", p.Name, f.name)
				}
				seen[f.name] = true
			}
		}
	}
}
