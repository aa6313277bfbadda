package fabric

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/internal/textline"
)

// Link is one full-duplex link between nodes A and B. Node ids: hosts are
// 0..Hosts-1, switches Hosts..Hosts+Switches-1.
type Link struct {
	A, B  int
	Rate  engine.Rate
	Delay engine.Time
}

// Topology is a graph of hosts and switches, before it is instantiated.
type Topology struct {
	Name        string
	Hosts       int
	Switches    int
	Links       []Link
	SwitchNames []string // optional, one per switch
	// Tiers, when set, gives every switch its tier (index = switch
	// number, node id - Hosts) and promises an up/down fabric: hosts on
	// leaves, links only between tiers, and from every switch a shortest
	// path to every leaf not below it through each of its up ports. The
	// network then routes by compact up/down tables (Switch.UpPorts,
	// DownPorts) instead of per-destination shortest paths. SpineLeaf
	// and FatTree set it; nil (topology files, dumbbell) means tiers are
	// unknown.
	Tiers []Tier
	// NodeIDs are the nodes' ids in the file a topology was read from
	// (ReadTopologyFile), indexed by dcsim node id; nil means they are
	// equal. The reference-compatible ECMP hashes them (NS3ECMP).
	NodeIDs []int
}

// NodeID is node v's id in the topology's source file (v itself when the
// topology was built, not read).
func (t *Topology) NodeID(v int) int {
	if t.NodeIDs == nil {
		return v
	}
	return t.NodeIDs[v]
}

// Nodes is Hosts + Switches.
func (t *Topology) Nodes() int { return t.Hosts + t.Switches }

// Validate checks ids, rates and delays, that every host has exactly one
// link and that it goes to a switch.
func (t *Topology) Validate() error {
	if t.Hosts < 2 {
		return fmt.Errorf("topology %s: %d hosts, need at least 2", t.Name, t.Hosts)
	}
	if t.Switches < 1 {
		return fmt.Errorf("topology %s: no switches", t.Name)
	}
	deg := make([]int, t.Hosts)
	for i, l := range t.Links {
		if l.A < 0 || l.B < 0 || l.A >= t.Nodes() || l.B >= t.Nodes() || l.A == l.B {
			return fmt.Errorf("topology %s: link %d: bad endpoints %d-%d", t.Name, i, l.A, l.B)
		}
		if l.Rate <= 0 {
			return fmt.Errorf("topology %s: link %d: rate must be positive", t.Name, i)
		}
		if l.Delay < 0 {
			return fmt.Errorf("topology %s: link %d: negative delay", t.Name, i)
		}
		for _, e := range [2]int{l.A, l.B} {
			if e < t.Hosts {
				deg[e]++
			}
		}
		if l.A < t.Hosts && l.B < t.Hosts {
			return fmt.Errorf("topology %s: link %d joins two hosts; hosts attach to switches", t.Name, i)
		}
	}
	for h, d := range deg {
		if d != 1 {
			return fmt.Errorf("topology %s: host %d has %d links, want exactly 1", t.Name, h, d)
		}
	}
	return nil
}

// SpineLeafConfig describes a two-tier leaf-spine fabric.
type SpineLeafConfig struct {
	Leaves, HostsPerLeaf, Spines int
	HostLink, FabricLink         engine.Rate
	Delay                        engine.Time
}

// SpineLeaf builds leaves with HostsPerLeaf hosts each and one link from
// every leaf to every spine. Host h sits on leaf h / HostsPerLeaf.
func SpineLeaf(c SpineLeafConfig) (*Topology, error) {
	if c.Leaves < 1 || c.HostsPerLeaf < 1 || c.Spines < 1 {
		return nil, fmt.Errorf("spine-leaf: leaves, hosts_per_leaf and spines must be >= 1")
	}
	if c.Leaves*c.HostsPerLeaf < 2 {
		return nil, fmt.Errorf("spine-leaf: need at least 2 hosts")
	}
	t := &Topology{Name: "spine-leaf", Hosts: c.Leaves * c.HostsPerLeaf, Switches: c.Leaves + c.Spines}
	leaf := func(i int) int { return t.Hosts + i }
	spine := func(i int) int { return t.Hosts + c.Leaves + i }
	for h := 0; h < t.Hosts; h++ {
		t.Links = append(t.Links, Link{h, leaf(h / c.HostsPerLeaf), c.HostLink, c.Delay})
	}
	for l := 0; l < c.Leaves; l++ {
		t.SwitchNames = append(t.SwitchNames, fmt.Sprintf("leaf%d", l))
		t.Tiers = append(t.Tiers, TierLeaf)
		for s := 0; s < c.Spines; s++ {
			t.Links = append(t.Links, Link{leaf(l), spine(s), c.FabricLink, c.Delay})
		}
	}
	for s := 0; s < c.Spines; s++ {
		t.SwitchNames = append(t.SwitchNames, fmt.Sprintf("spine%d", s))
		t.Tiers = append(t.Tiers, TierAggregation)
	}
	return t, t.Validate()
}

// Star is n hosts on one switch.
func Star(n int, hostLink engine.Rate, delay engine.Time) (*Topology, error) {
	if n < 2 {
		return nil, fmt.Errorf("star: need at least 2 hosts, got %d", n)
	}
	t := &Topology{Name: "star", Hosts: n, Switches: 1, SwitchNames: []string{"sw0"}, Tiers: []Tier{TierLeaf}}
	for h := 0; h < n; h++ {
		t.Links = append(t.Links, Link{h, n, hostLink, delay})
	}
	return t, t.Validate()
}

// Dumbbell is two switches joined by one bottleneck link, with perSide
// hosts on each. Hosts 0..perSide-1 are on the left.
func Dumbbell(perSide int, hostLink, bottleneck engine.Rate, delay engine.Time) (*Topology, error) {
	if perSide < 1 {
		return nil, fmt.Errorf("dumbbell: hosts_per_side must be >= 1")
	}
	n := 2 * perSide
	t := &Topology{Name: "dumbbell", Hosts: n, Switches: 2, SwitchNames: []string{"left", "right"}}
	for h := 0; h < n; h++ {
		t.Links = append(t.Links, Link{h, n + h/perSide, hostLink, delay})
	}
	t.Links = append(t.Links, Link{n, n + 1, bottleneck, delay})
	return t, t.Validate()
}

// FatTree is the three-tier k-ary fat-tree (docs/model.md §2.2): k pods of k/2
// edge and k/2 aggregation switches, (k/2)^2 core switches, k^3/4 hosts.
// Host h is on edge switch h/(k/2). Aggregation switch j of every pod links
// to core switches j*k/2 .. (j+1)*k/2-1.
func FatTree(k int, hostLink, fabricLink engine.Rate, delay engine.Time) (*Topology, error) {
	if k < 2 || k%2 != 0 {
		return nil, fmt.Errorf("fat-tree: k must be even and >= 2, got %d", k)
	}
	h2 := k / 2
	hosts := k * k * k / 4
	edges, aggs, cores := k*h2, k*h2, h2*h2
	t := &Topology{Name: fmt.Sprintf("fat-tree-k%d", k), Hosts: hosts, Switches: edges + aggs + cores}
	edge := func(i int) int { return hosts + i }
	agg := func(i int) int { return hosts + edges + i }
	core := func(i int) int { return hosts + edges + aggs + i }
	for h := 0; h < hosts; h++ {
		t.Links = append(t.Links, Link{h, edge(h / h2), hostLink, delay})
	}
	for p := 0; p < k; p++ {
		for e := 0; e < h2; e++ {
			for a := 0; a < h2; a++ {
				t.Links = append(t.Links, Link{edge(p*h2 + e), agg(p*h2 + a), fabricLink, delay})
			}
		}
		for a := 0; a < h2; a++ {
			for c := 0; c < h2; c++ {
				t.Links = append(t.Links, Link{agg(p*h2 + a), core(a*h2 + c), fabricLink, delay})
			}
		}
	}
	for i := 0; i < edges; i++ {
		t.SwitchNames = append(t.SwitchNames, fmt.Sprintf("edge%d", i))
		t.Tiers = append(t.Tiers, TierLeaf)
	}
	for i := 0; i < aggs; i++ {
		t.SwitchNames = append(t.SwitchNames, fmt.Sprintf("agg%d", i))
		t.Tiers = append(t.Tiers, TierAggregation)
	}
	for i := 0; i < cores; i++ {
		t.SwitchNames = append(t.SwitchNames, fmt.Sprintf("core%d", i))
		t.Tiers = append(t.Tiers, TierCore)
	}
	return t, t.Validate()
}

// ReadTopologyFile parses the reference model's topology.txt (docs/model.md
// §2.3): "node_num switch_num link_num", the switch ids, then one line per
// link "src dst rate delay error_rate". Non-switch nodes become hosts in
// increasing id order; switches keep their listed order. Parallel links are
// kept (the reference model keeps only the last). A non-zero error rate is
// rejected: dcsim does not model random link loss yet.
func ReadTopologyFile(name string, r io.Reader) (*Topology, error) {
	sc := textline.NewScanner(r)
	line := 0
	next := func() ([]string, error) {
		for sc.Scan() {
			line++
			f := strings.Fields(sc.Text())
			if len(f) > 0 {
				return f, nil
			}
		}
		if err := textline.ScanErr(sc, line); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
		}
		return nil, io.EOF
	}
	errf := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	f, err := next()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty topology file", name)
	} else if err != nil {
		return nil, err // a line too long or unreadable, with its number
	}
	if len(f) != 3 {
		return nil, errf("want \"node_num switch_num link_num\", got %d fields", len(f))
	}
	var nums [3]int
	for i := range nums {
		v, err := strconv.Atoi(f[i])
		if err != nil || v < 0 || v > 1<<22 {
			return nil, errf("bad count %q", f[i])
		}
		nums[i] = v
	}
	nodes, nsw, nlinks := nums[0], nums[1], nums[2]
	if nsw > nodes {
		return nil, errf("switch_num %d exceeds node_num %d", nsw, nodes)
	}
	isSwitch := make([]int, nodes) // 0 = host, else 1 + switch order
	if nsw > 0 {
		f, err = next()
		if err != nil {
			return nil, errf("missing switch id line")
		}
		if len(f) != nsw {
			return nil, errf("want %d switch ids, got %d", nsw, len(f))
		}
		for i, s := range f {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 || v >= nodes {
				return nil, errf("bad switch id %q", s)
			}
			if isSwitch[v] != 0 {
				return nil, errf("switch id %d listed twice", v)
			}
			isSwitch[v] = i + 1
		}
	}
	t := &Topology{Name: name, Hosts: nodes - nsw, Switches: nsw, NodeIDs: make([]int, nodes)}
	id := make([]int, nodes)
	h := 0
	for v := 0; v < nodes; v++ {
		if isSwitch[v] == 0 {
			id[v] = h
			h++
		} else {
			id[v] = t.Hosts + isSwitch[v] - 1
		}
		t.NodeIDs[id[v]] = v
	}
	for i := 0; i < nlinks; i++ {
		f, err = next()
		if err != nil {
			return nil, fmt.Errorf("%s:%d: want %d links, found %d", name, line, nlinks, i)
		}
		if len(f) != 5 {
			return nil, errf("link: want \"src dst rate delay error_rate\", got %d fields", len(f))
		}
		a, errA := strconv.Atoi(f[0])
		b, errB := strconv.Atoi(f[1])
		if errA != nil || errB != nil || a < 0 || b < 0 || a >= nodes || b >= nodes {
			return nil, errf("link: bad node id")
		}
		if a == b {
			return nil, errf("link: self loop on node %d", a)
		}
		rate, err := engine.ParseRate(f[2])
		if err != nil {
			return nil, errf("link rate: %v", err)
		}
		delay, err := engine.ParseTime(f[3])
		if err != nil {
			return nil, errf("link delay: %v", err)
		}
		er, err := strconv.ParseFloat(f[4], 64)
		if err != nil || er != 0 {
			return nil, errf("link error_rate %q: only 0 is supported", f[4])
		}
		t.Links = append(t.Links, Link{id[a], id[b], rate, delay})
	}
	if f, err := next(); err == nil {
		return nil, errf("unexpected extra line %q", strings.Join(f, " "))
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return t, nil
}
