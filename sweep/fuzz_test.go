package sweep

import (
	"strings"
	"testing"
)

// FuzzParse: Parse never panics and every error is one line; a sweep it
// accepts expands (when small) without panicking, again with one-line
// errors, and every point's --set strings are what the dimensions say.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sixPoints))
	f.Add([]byte(schedSeeds))
	f.Add([]byte("base: default\nset: {duration: 100us, topology: {kind: star, hosts: 3}}\ngrid: {workload.load: [0.1, 0.9]}\n"))
	f.Add([]byte("grid:\n  switch.wrr_weights:\n    - [1, 2, 3, 4, 5, 6, 7, 8]\n  name: ['on', \"a\\nb\", |\n      c\n    ]\nzip: {seed: [1], nic.mtu: [9]}\n"))
	f.Add([]byte("base: &b default\nname: *b\ngrid: {seed: &s [1, 2], nic.mtu: *s}\n"))
	f.Add([]byte("zip: {a: [1], b: [1, 2]}\n"))
	f.Add([]byte("set: {a: {b: {c: {}}}, 'x.y': null}\n"))
	// A key with a newline inside: the error's path must stay one line.
	f.Add([]byte("set: {b: {c: {\"Z\\nZ\": 1}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := Parse("fuzz.yaml", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error has more than one line: %q", err)
			}
			return
		}
		if spec.Len() > 4 {
			return
		}
		pts, err := spec.Points()
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error has more than one line: %q", err)
			}
			return
		}
		if len(pts) != spec.Len() {
			t.Fatalf("got %d points, Len says %d", len(pts), spec.Len())
		}
		for _, p := range pts {
			for _, s := range p.Swept {
				if strings.Contains(s, "\n") {
					t.Fatalf("point %d: --set %q spans lines", p.Index, s)
				}
			}
			if p.Hash != p.Scenario.Hash() {
				t.Fatalf("point %d: hash %s, scenario's %s", p.Index, p.Hash, p.Scenario.Hash())
			}
		}
	})
}
