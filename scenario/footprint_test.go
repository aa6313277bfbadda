package scenario

import (
	"strings"
	"testing"
)

// Topologies the builder cannot build within MaxBuildBytes, or at all,
// are rejected at validation with the memory they would need (issue #15,
// item 3). With up/down route tables (issue #19) a fat-tree's footprint
// grows with its ports and hosts, not with the square of its switches:
// k = 160 (1,024,000 hosts, the most topology.k allows) is accepted at
// 7.5 GiB; a spine-leaf with 4 million fabric links is not.
// The k = 64 estimate is checked against a measured build: BenchmarkBuild
// holds 477 MiB of heap once built, 486 MiB estimated.
func TestTopologyFootprint(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"topology.hosts_per_leaf=1000", "--set topology.hosts_per_leaf=1000: topology.hosts_per_leaf: the network would need about 11.5 GiB to build (ports 10.0 GiB, route tables 0.0 GiB, hosts 1.4 GiB), above the builder's bound of 8.0 GiB"},
		{"topology.hosts=1048576", "--set topology.hosts=1048576: topology.hosts: a switch would have 1048576 ports, more than the 65535 the builder can index"},
	} {
		sets := []string{"topology.kind=star", tc.set}
		if strings.Contains(tc.set, "per_leaf") {
			sets = []string{"topology.leaves=1024", "topology.spines=4096", tc.set}
		}
		_, err := testCat.Load("default", sets)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %s", tc.set, err, tc.want)
		}
	}
	for _, ok := range []string{"topology.k=160", "topology.k=96", "topology.k=64"} {
		if _, err := testCat.Load("default", []string{"topology.kind=fat-tree", ok}); err != nil {
			t.Errorf("%s: got %v, want it accepted", ok, err)
		}
	}
	k := int64(64)
	tp := Topology{Kind: FatTree, K: int(k)}
	hosts, switches, links, routes, _, _ := tp.shape(&testCat.Costs)
	f := testCat.Costs.Footprint(hosts, switches, links, routes)
	if got := float64(f.Total()) / (1 << 20); got < 430 || got > 530 {
		t.Errorf("k=64 estimate: got %.0f MiB, want within 10%% of the measured 477 MiB of heap", got)
	}
}
