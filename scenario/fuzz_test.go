package scenario

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse: Parse never panics, every error is one line, and every
// accepted scenario prints to YAML that parses back equal and prints the
// same bytes.
func FuzzParse(f *testing.F) {
	for _, b := range builtins {
		f.Add([]byte(b.text), "")
	}
	f.Add([]byte("workload: {load: 1.4}\n"), "")
	f.Add([]byte("nic: {qp_mapping: pool:3, fair: {}}\n"), "nic.mtu=4096")
	f.Add([]byte("extra_workloads:\n  - {kind: storage, storage: {fan_out: 2}}\n"), "extra_workloads[1].kind=incast")
	f.Add([]byte("a: &x {b: *x}\n"), "")
	f.Add([]byte("topology: {kind: dumbbell, hosts_per_side: 3}\nworkload: {hosts: '0-2,4'}\n"), "workload.hosts=all")
	f.Add([]byte("switch: {ecn: {kmin: 1.5KB, pmax: 1e-3}, wrr_weights: [9,8,7,6,5,4,3,2]}\n"), "switch.ecn={kmax: 9MB}")
	f.Add([]byte("name: \"\\t\\u00e9\"\nseed: 0x10\ntrace: {interval: 1ps, metrics: []}\n"), "")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		var sets []string
		if set != "" {
			sets = []string{set}
		}
		s, err := testCat.Parse("fuzz.yaml", data, sets)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error has more than one line: %q", err)
			}
			return
		}
		y := s.YAML()
		s2, err := testCat.Parse("fuzz.yaml", y, nil)
		if err != nil {
			t.Fatalf("printed scenario does not parse: %v\n%s", err, y)
		}
		if diff := cmp.Diff(s, s2, ignoreCat); diff != "" {
			t.Fatalf("round trip (-orig +reparsed):\n%s\n%s", diff, y)
		}
		if y2 := s2.YAML(); string(y2) != string(y) {
			t.Fatalf("second print differs:\n%s\nvs\n%s", y, y2)
		}
	})
}
