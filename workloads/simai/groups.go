package simai

import (
	"fmt"
	"strconv"
)

// Layout places GPU ranks into communicators and onto hosts. Rank r sits on
// host r/GPUsPerHost. With t = r mod TP, s = (r/TP) mod PP and
// d = r/(TP*PP) (TP index, pipeline stage, data-parallel index):
//
//	TP group i    = ranks [i*TP, (i+1)*TP)                    index r/TP
//	DP group j    = {j, j+TP*PP, j+2*TP*PP, ...}              index r mod TP*PP
//	EP group      = same t and s, d in [b*EP, (b+1)*EP)       index b*TP*PP + t + TP*s
//	DP_EP group   = same t and s, d = e, e+EP, e+2*EP, ...    index e*TP*PP + t + TP*s
//	world         = every rank                                index 0
//
// With PP = 1 these are docs/model.md §7.6's groups: DP group j = {j, j+TP,
// ...}, EP groups take the same local index in EP consecutive TP groups,
// DP_EP groups take every EP-th TP group. The DP stride TP*PP is SimAI's.
type Layout struct {
	GPUs, GPUsPerHost int
	TP, PP, DP, EP    int
	DPEP              int // DP / EP
}

// NewLayout checks and builds a layout: gpus must be a multiple of tp*pp
// and of gpusPerHost, and ep must divide dp = gpus/(tp*pp).
func NewLayout(gpus, gpusPerHost, tp, pp, ep int) (Layout, error) {
	switch {
	case gpus < 1:
		return Layout{}, fmt.Errorf("gpus: must be >= 1, got %d", gpus)
	case gpusPerHost < 1:
		return Layout{}, fmt.Errorf("gpus_per_host: must be >= 1, got %d", gpusPerHost)
	case tp < 1 || pp < 1 || ep < 1:
		return Layout{}, fmt.Errorf("tp, pp, ep: must be >= 1, got %d, %d, %d", tp, pp, ep)
	case gpus%gpusPerHost != 0:
		return Layout{}, fmt.Errorf("gpus: %d is not a multiple of gpus_per_host %d", gpus, gpusPerHost)
	case gpus%(tp*pp) != 0:
		return Layout{}, fmt.Errorf("gpus: %d is not a multiple of tp %d x pp %d", gpus, tp, pp)
	}
	dp := gpus / (tp * pp)
	if dp%ep != 0 {
		return Layout{}, fmt.Errorf("ep: %d does not divide the data-parallel size %d", ep, dp)
	}
	return Layout{GPUs: gpus, GPUsPerHost: gpusPerHost, TP: tp, PP: pp, DP: dp, EP: ep, DPEP: dp / ep}, nil
}

// Hosts is the number of hosts, GPUs/GPUsPerHost.
func (l Layout) Hosts() int { return l.GPUs / l.GPUsPerHost }

// Host is the host of rank r.
func (l Layout) Host(r int) int { return r / l.GPUsPerHost }

// Size is the number of ranks in a group of kind k (0 for GroupNone).
func (l Layout) Size(k GroupKind) int {
	switch k {
	case GroupTP:
		return l.TP
	case GroupDP:
		return l.DP
	case GroupEP:
		return l.EP
	case GroupDPEP:
		return l.DPEP
	case GroupWorld:
		return l.GPUs
	}
	return 0
}

// Count is the number of groups of kind k.
func (l Layout) Count(k GroupKind) int {
	if s := l.Size(k); s > 0 {
		return l.GPUs / s
	}
	return 0
}

func (l Layout) coords(r int) (t, s, d int) {
	return r % l.TP, (r / l.TP) % l.PP, r / (l.TP * l.PP)
}

func (l Layout) rank(t, s, d int) int { return t + l.TP*(s+l.PP*d) }

// Index is the index of the group of kind k that holds rank r, and r's
// position (member index) in that group's ascending rank list.
func (l Layout) Index(k GroupKind, r int) (group, member int) {
	t, s, d := l.coords(r)
	ts := t + l.TP*s
	switch k {
	case GroupTP:
		return r / l.TP, t
	case GroupDP:
		return ts, d
	case GroupEP:
		return (d/l.EP)*l.TP*l.PP + ts, d % l.EP
	case GroupDPEP:
		return (d%l.EP)*l.TP*l.PP + ts, d / l.EP
	case GroupWorld:
		return 0, r
	}
	panic(fmt.Sprintf("simai: Index of group kind %v", k))
}

// Group is one communicator: its kind, index and ranks in ascending order.
type Group struct {
	Kind  GroupKind
	Index int
	Ranks []int
}

// Name is the kind followed by the index, e.g. "tp3", "dp0", "world".
func (g Group) Name() string {
	if g.Kind == GroupWorld {
		return "world"
	}
	return g.Kind.String() + strconv.Itoa(g.Index)
}

// Group returns group number index of kind k.
func (l Layout) Group(k GroupKind, index int) Group {
	n := l.Size(k)
	if n == 0 || index < 0 || index >= l.Count(k) {
		panic(fmt.Sprintf("simai: no group %v%d in %+v", k, index, l))
	}
	g := Group{Kind: k, Index: index, Ranks: make([]int, n)}
	tpp := l.TP * l.PP
	ts := index % tpp
	t, s := ts%l.TP, ts/l.TP
	for m := range g.Ranks {
		switch k {
		case GroupTP:
			g.Ranks[m] = index*l.TP + m
		case GroupDP:
			g.Ranks[m] = l.rank(t, s, m)
		case GroupEP:
			g.Ranks[m] = l.rank(t, s, (index/tpp)*l.EP+m)
		case GroupDPEP:
			g.Ranks[m] = l.rank(t, s, index/tpp+l.EP*m)
		case GroupWorld:
			g.Ranks[m] = m
		}
	}
	return g
}

// Groups lists every group of kind k, by index.
func (l Layout) Groups(k GroupKind) []Group {
	gs := make([]Group, l.Count(k))
	for i := range gs {
		gs[i] = l.Group(k, i)
	}
	return gs
}

// Ring returns the ring order of channel c of group g as member indices:
// the group's ranks are taken host by host in ascending order, and the
// ranks of each host are rotated by c (SimAI's "local ranks rotated by c,
// chained node to node"). With one GPU per host every channel has the same
// ring.
func (l Layout) Ring(g Group, c int) []int {
	order := make([]int, 0, len(g.Ranks))
	for i := 0; i < len(g.Ranks); {
		j := i
		for j < len(g.Ranks) && l.Host(g.Ranks[j]) == l.Host(g.Ranks[i]) {
			j++
		}
		k := j - i
		for x := 0; x < k; x++ {
			order = append(order, i+(x+c)%k)
		}
		i = j
	}
	return order
}

// Channels is SimAI's number of rings for group g: its ranks per host,
// the group's size over the hosts it spans (MockNcclGroup::gen_local_ring:
// nlocalranks = ranks.size()/nNodes, one ring per local rank). A group
// with one rank per host has one ring; a TP group inside one 8-GPU server
// has 8.
func (l Layout) Channels(g Group) int {
	hosts := 0
	for i, r := range g.Ranks {
		if i == 0 || l.Host(r) != l.Host(g.Ranks[i-1]) {
			hosts++
		}
	}
	if hosts == 0 {
		return 1
	}
	return max(len(g.Ranks)/hosts, 1)
}

// Flow is one point-to-point transfer of an expanded collective.
type Flow struct {
	Src, Dst int // ranks
	Bytes    int64
	Step     int
	Channel  int
	// Dep is the index (in the slice Expand returns) of the flow Src must
	// have received before it may send this one, or -1.
	Dep int
}

// Steps is the number of ring steps of op over n ranks: 2(n-1) for an
// all-reduce, n-1 for reduce-scatter and all-gather, 1 for all-to-all (0
// for OpNone or n < 2).
func Steps(op Op, n int) int {
	if n < 2 {
		return 0
	}
	switch op {
	case OpAllReduce, OpAllReduceAllToAll:
		return 2 * (n - 1)
	case OpAllGather, OpReduceScatter:
		return n - 1
	case OpAllToAll:
		return 1
	}
	return 0
}

// splitBytes is part i of total split into n near-equal parts (the first
// total%n parts one byte larger).
func splitBytes(total int64, n, i int) int64 {
	b := total / int64(n)
	if int64(i) < total%int64(n) {
		b++
	}
	return b
}

// flowBytes is the size of one ring flow: channel c carries part c of S
// split over C channels, and that part is cut into n chunks; chunk j moves.
// An all-to-all flow to peer j on channel c carries part c of peer j's
// share S/n. A flow carries at least 1 byte.
func flowBytes(op Op, s int64, n, channels, c, chunk int) int64 {
	var b int64
	if op == OpAllToAll {
		b = splitBytes(splitBytes(s, n, chunk), channels, c)
	} else {
		b = splitBytes(splitBytes(s, channels, c), n, chunk)
	}
	return max(b, 1)
}

// ringChunk is the chunk index the member at ring position p sends at step
// k: reduce-scatter (and the first n-1 steps of an all-reduce) send chunk
// p-k, all-gather sends p-k and the all-reduce's gather half sends p+1-k',
// so that every rank forwards the chunk it received at the previous step.
func ringChunk(op Op, n, p, k int) int {
	switch op {
	case OpAllReduce, OpAllReduceAllToAll:
		if k >= n-1 {
			return ((p+1-(k-(n-1)))%n + n) % n
		}
	}
	return ((p-k)%n + n) % n
}

// Expand turns a collective of bytes over group g into its point-to-point
// flows (docs/model.md §7.6): rings for all-reduce (2(n-1) steps),
// reduce-scatter and all-gather (n-1 steps), each flow S/(n*C) bytes to the
// ring successor and dependent on the flow its sender received at the
// previous step; all-to-all sends S/(n*C) to every other rank at once. The
// flows are listed channel by channel, step by step, in ring order.
// OpAllReduceAllToAll expands as an all-reduce.
func (l Layout) Expand(op Op, bytes int64, g Group, channels int) []Flow {
	n := len(g.Ranks)
	if op == OpNone || n < 2 || bytes <= 0 || channels < 1 {
		return nil
	}
	if op == OpAllToAll {
		var fs []Flow
		for c := 0; c < channels; c++ {
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if i != j {
						fs = append(fs, Flow{Src: g.Ranks[i], Dst: g.Ranks[j], Bytes: flowBytes(op, bytes, n, channels, c, j), Channel: c, Dep: -1})
					}
				}
			}
		}
		return fs
	}
	k := Steps(op, n)
	fs := make([]Flow, 0, channels*k*n)
	for c := 0; c < channels; c++ {
		ring := l.Ring(g, c)
		base := len(fs)
		for step := 0; step < k; step++ {
			for p := 0; p < n; p++ {
				dep := -1
				if step > 0 {
					dep = base + (step-1)*n + (p-1+n)%n
				}
				fs = append(fs, Flow{
					Src: g.Ranks[ring[p]], Dst: g.Ranks[ring[(p+1)%n]],
					Bytes: flowBytes(op, bytes, n, channels, c, ringChunk(op, n, p, step)),
					Step:  step, Channel: c, Dep: dep,
				})
			}
		}
	}
	return fs
}
