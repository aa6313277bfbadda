package simai

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLayoutGroups(t *testing.T) {
	tests := []struct {
		name                  string
		gpus, perHost, tp, pp int
		ep                    int
		kind                  GroupKind
		want                  [][]int
	}{
		{"tp", 8, 1, 2, 1, 1, GroupTP, [][]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}}},
		{"dp stride tp", 8, 1, 2, 1, 1, GroupDP, [][]int{{0, 2, 4, 6}, {1, 3, 5, 7}}},
		{"dp stride tp*pp", 16, 1, 2, 2, 1, GroupDP, [][]int{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}},
		// EP: the same local index in EP consecutive TP groups.
		{"ep", 16, 1, 2, 1, 2, GroupEP, [][]int{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}},
		// DP_EP: every EP-th TP group.
		{"dpep", 16, 1, 2, 1, 2, GroupDPEP, [][]int{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}},
		{"world", 4, 2, 2, 1, 1, GroupWorld, [][]int{{0, 1, 2, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLayout(tt.gpus, tt.perHost, tt.tp, tt.pp, tt.ep)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]int
			for _, g := range l.Groups(tt.kind) {
				got = append(got, g.Ranks)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLayoutPartition checks that every kind of group partitions the ranks
// and that Index agrees with Group.
func TestLayoutPartition(t *testing.T) {
	for _, c := range [][5]int{{16, 1, 2, 1, 2}, {32, 8, 4, 2, 2}, {24, 4, 3, 2, 4}, {8, 1, 8, 1, 1}, {12, 2, 1, 3, 1}} {
		l, err := NewLayout(c[0], c[1], c[2], c[3], c[4])
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []GroupKind{GroupTP, GroupDP, GroupEP, GroupDPEP, GroupWorld} {
			seen := make([]int, l.GPUs)
			for _, g := range l.Groups(k) {
				if len(g.Ranks) != l.Size(k) || !slices.IsSorted(g.Ranks) {
					t.Errorf("%+v %v%d: got ranks %v, want %d sorted", c, k, g.Index, g.Ranks, l.Size(k))
				}
				for m, r := range g.Ranks {
					seen[r]++
					if gi, mi := l.Index(k, r); gi != g.Index || mi != m {
						t.Errorf("%+v %v: Index(%d) = (%d, %d), want (%d, %d)", c, k, r, gi, mi, g.Index, m)
					}
				}
			}
			for r, n := range seen {
				if n != 1 {
					t.Errorf("%+v %v: rank %d in %d groups, want 1", c, k, r, n)
				}
			}
		}
	}
}

func TestLayoutErrors(t *testing.T) {
	tests := []struct {
		c    [5]int
		want string
	}{
		{[5]int{0, 1, 1, 1, 1}, "gpus: must be >= 1, got 0"},
		{[5]int{8, 0, 1, 1, 1}, "gpus_per_host: must be >= 1, got 0"},
		{[5]int{8, 3, 1, 1, 1}, "gpus: 8 is not a multiple of gpus_per_host 3"},
		{[5]int{12, 1, 8, 1, 1}, "gpus: 12 is not a multiple of tp 8 x pp 1"},
		{[5]int{16, 1, 2, 2, 3}, "ep: 3 does not divide the data-parallel size 4"},
	}
	for _, tt := range tests {
		_, err := NewLayout(tt.c[0], tt.c[1], tt.c[2], tt.c[3], tt.c[4])
		if err == nil || err.Error() != tt.want {
			t.Errorf("NewLayout%v: got %v, want %q", tt.c, err, tt.want)
		}
	}
}

func TestRing(t *testing.T) {
	l, _ := NewLayout(16, 4, 8, 1, 1)
	g := l.Group(GroupTP, 1) // ranks 8..15 on hosts 2 and 3
	tests := []struct {
		c    int
		want []int
	}{
		{0, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{1, []int{1, 2, 3, 0, 5, 6, 7, 4}},
		{5, []int{1, 2, 3, 0, 5, 6, 7, 4}},
	}
	for _, tt := range tests {
		if got := l.Ring(g, tt.c); !slices.Equal(got, tt.want) {
			t.Errorf("ring %d: got %v, want %v", tt.c, got, tt.want)
		}
	}
	one, _ := NewLayout(4, 1, 4, 1, 1)
	if got := one.Ring(one.Group(GroupTP, 0), 3); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("one GPU per host: got ring %v, want identity", got)
	}
}

func TestExpand(t *testing.T) {
	l, _ := NewLayout(4, 1, 4, 1, 1)
	g := l.Group(GroupTP, 0)
	tests := []struct {
		op           Op
		bytes        int64
		channels     int
		flows, steps int
		perFlow      int64 // 0: not uniform
		sentPerRank  int64
	}{
		{OpAllReduce, 4000, 1, 24, 6, 1000, 6000},
		{OpReduceScatter, 4000, 1, 12, 3, 1000, 3000},
		{OpAllGather, 4000, 1, 12, 3, 1000, 3000},
		{OpAllToAll, 4000, 1, 12, 1, 1000, 3000},
		{OpAllReduce, 4000, 2, 48, 6, 500, 6000},
		{OpAllToAll, 4000, 2, 24, 1, 500, 3000},
		{OpAllReduceAllToAll, 4000, 1, 24, 6, 1000, 6000},
		{OpAllReduce, 10, 1, 24, 6, 0, -1},
	}
	for _, tt := range tests {
		fs := l.Expand(tt.op, tt.bytes, g, tt.channels)
		if len(fs) != tt.flows {
			t.Fatalf("%v %d B C=%d: got %d flows, want %d", tt.op, tt.bytes, tt.channels, len(fs), tt.flows)
		}
		if s := Steps(tt.op, 4); s != tt.steps {
			t.Errorf("Steps(%v, 4) = %d, want %d", tt.op, s, tt.steps)
		}
		sent := map[int]int64{}
		var total int64
		for i, f := range fs {
			sent[f.Src] += f.Bytes
			total += f.Bytes
			if tt.perFlow > 0 && f.Bytes != tt.perFlow {
				t.Errorf("%v flow %d: got %d B, want %d", tt.op, i, f.Bytes, tt.perFlow)
			}
			if f.Src == f.Dst {
				t.Errorf("%v flow %d: self-send", tt.op, i)
			}
			switch {
			case f.Step == 0 && f.Dep != -1, f.Step > 0 && f.Dep < 0:
				t.Errorf("%v flow %d step %d: dep %d", tt.op, i, f.Step, f.Dep)
			case f.Dep >= 0 && (fs[f.Dep].Dst != f.Src || fs[f.Dep].Step != f.Step-1 || fs[f.Dep].Channel != f.Channel):
				t.Errorf("%v flow %d: dep %+v is not the flow %d received at step %d", tt.op, i, fs[f.Dep], f.Src, f.Step-1)
			}
		}
		if tt.sentPerRank > 0 {
			for r := 0; r < 4; r++ {
				if sent[r] != tt.sentPerRank {
					t.Errorf("%v C=%d: rank %d sent %d B, want %d", tt.op, tt.channels, r, sent[r], tt.sentPerRank)
				}
			}
		}
		// Every ring step moves each of the n chunks once: 10 B x 6 steps.
		if tt.bytes == 10 && total != 60 {
			t.Errorf("%v 10 B: got %d B moved, want 60", tt.op, total)
		}
	}
	if fs := l.Expand(OpAllReduce, 1, g, 1); len(fs) != 24 || fs[0].Bytes != 1 {
		t.Errorf("1 B all-reduce: got %d flows of %d B, want 24 of 1 B (the minimum)", len(fs), fs[0].Bytes)
	}
	one := Group{Kind: GroupTP, Ranks: []int{3}}
	if fs := l.Expand(OpAllReduce, 100, one, 1); fs != nil {
		t.Errorf("one-rank group: got %d flows, want none", len(fs))
	}
}
