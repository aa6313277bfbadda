package baselines_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/sched/baselines"
	"github.com/dcsim/dcsim/sched/schedtest"
	"github.com/dcsim/dcsim/sched/storm"
)

// classLog records the class of every data packet a port transmits, by
// QP and stream offset.
type classLog struct {
	fabric.NopObserver
	class map[[2]int64]uint8
	sent  map[int64]int64 // payload bytes by QP
}

func newClassLog() *classLog {
	return &classLog{class: map[[2]int64]uint8{}, sent: map[int64]int64{}}
}

func (l *classLog) Transmit(_ engine.Time, _ *fabric.Port, p *fabric.Packet) {
	if p.Kind == fabric.Data {
		l.class[[2]int64{int64(p.QP), p.Seq}] = p.Class
		l.sent[int64(p.QP)] += int64(p.Payload)
	}
}

// SRPT completes messages in size order: four messages posted together on
// one NIC to four receivers (one QP each) finish smallest first.
func TestSRPTOrder(t *testing.T) {
	r := schedtest.NewRig(t, schedtest.Config{Hosts: 5}, baselines.NewSRPT(baselines.DefaultSRPTParams()))
	sizes := []int64{300_000, 100_000, 200_000, 50_000}
	for i, s := range sizes {
		r.PostAt(0, 0, i+1, s, 0)
	}
	if !r.Run(engine.Second) {
		t.Fatal(r.Stuck())
	}
	var got []int64
	for _, m := range r.Done {
		got = append(got, m.Size)
	}
	if want := []int64{50_000, 100_000, 200_000, 300_000}; !slices.Equal(got, want) {
		t.Errorf("completion order %v, want %v", got, want)
	}
}

// SRPT's class is the remaining size through the thresholds (default:
// WebSearch's j/7 quantiles 9523, 28571, 56593, 151020, 1142857, 3714285):
// a message's packets climb from class 7 to class 1 as it drains. The
// tagging rule alone, so guard off (the default guard, inherit, keeps a
// continuously sending QP in its first class).
func TestSRPTTags(t *testing.T) {
	for _, c := range []struct {
		tagging string
		size    int64
		want    map[int64]uint8 // stream offset -> class
	}{
		{baselines.TagRemaining, 5_000, map[int64]uint8{0: 1}},
		{baselines.TagRemaining, 100_000, map[int64]uint8{0: 4, 43_000: 4, 44_000: 3, 71_000: 3, 72_000: 2, 90_000: 2, 91_000: 1}},
		{baselines.TagRemaining, 5_000_000, map[int64]uint8{0: 7, 1_285_000: 7, 1_286_000: 6}},
		{baselines.TagSingle, 100_000, map[int64]uint8{0: 3, 99_000: 3}},
	} {
		p := baselines.DefaultSRPTParams()
		p.Tagging = c.tagging
		p.Guard = baselines.GuardOff
		r := schedtest.NewRig(t, schedtest.Config{Hosts: 2}, baselines.NewSRPT(p))
		log := newClassLog()
		r.Net.HostPorts[0].Observer = log
		m := r.PostAt(0, 0, 1, c.size, 0)
		if !r.Run(engine.Second) {
			t.Fatal(r.Stuck())
		}
		for off, want := range c.want {
			if got := log.class[[2]int64{m.QPID, off}]; got != want {
				t.Errorf("%s %d B: packet at %d (remaining %d) in class %d, want %d", c.tagging, c.size, off, c.size-off, got, want)
			}
		}
	}
}

// PIAS levels by bytes already sent, 4-queue WebSearch equal split (24,
// 72, 1448 KiB): sent <= 24576 -> class 1, <= 73728 -> 2, <= 1482752 -> 3,
// else 4.
func TestPIASLevels(t *testing.T) {
	r := schedtest.NewRig(t, schedtest.Config{Hosts: 2}, baselines.NewPIAS(baselines.DefaultPIASParams()))
	log := newClassLog()
	r.Net.HostPorts[0].Observer = log
	m := r.PostAt(0, 0, 1, 2_000_000, 0)
	if !r.Run(engine.Second) {
		t.Fatal(r.Stuck())
	}
	for off, want := range map[int64]uint8{0: 1, 24_000: 1, 25_000: 2, 73_000: 2, 74_000: 3, 1_482_000: 3, 1_483_000: 4, 1_999_000: 4} {
		if got := log.class[[2]int64{m.QPID, off}]; got != want {
			t.Errorf("packet after %d B sent in class %d, want %d", off, got, want)
		}
	}
}

// Round robin within a PIAS class: N backlogged QPs in one level get equal
// bytes within one packet at every instant while all are backlogged (the
// fair-sharing micro-oracle of docs/model.md §11.2, inside one class).
func TestPIASRoundRobin(t *testing.T) {
	p := baselines.PIASParams{Thresholds: []int64{1 << 40}, Guard: baselines.GuardOff}
	for _, n := range []int{2, 5, 16} {
		r := schedtest.NewRig(t, schedtest.Config{Hosts: n + 1}, baselines.NewPIAS(p))
		log := newClassLog()
		r.Net.HostPorts[0].Observer = log
		for d := 1; d <= n; d++ {
			r.PostAt(0, 0, d, 2_000_000, 0)
		}
		worst := int64(0)
		for step := 1; step <= 100; step++ {
			r.Sim.Run(engine.Time(step*n) * engine.Microsecond) // 100*n us: before any QP finishes (n*2 MB take 168*n us)
			if len(log.sent) < n {
				continue
			}
			lo, hi := int64(1<<62), int64(0)
			for _, b := range log.sent {
				lo, hi = min(lo, b), max(hi, b)
			}
			worst = max(worst, hi-lo)
		}
		if worst > 1000 {
			t.Errorf("%d QPs: bytes sent differ by %d, want <= one MTU (1000)", n, worst)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		err   error
		field string
	}{
		{"srpt defaults", baselines.DefaultSRPTParams().Validate(), ""},
		{"pias defaults", baselines.DefaultPIASParams().Validate(), ""},
		{"srpt tagging", func() error { p := baselines.DefaultSRPTParams(); p.Tagging = "size"; return p.Validate() }(), "tagging"},
		{"srpt class", func() error {
			p := baselines.DefaultSRPTParams()
			p.Tagging, p.Class = baselines.TagSingle, 0
			return p.Validate()
		}(), "class"},
		{"srpt thresholds order", func() error {
			p := baselines.DefaultSRPTParams()
			p.Thresholds = []int64{10, 10}
			return p.Validate()
		}(), "thresholds"},
		{"srpt thresholds count", func() error {
			p := baselines.DefaultSRPTParams()
			p.Thresholds = []int64{1, 2, 3, 4, 5, 6, 7}
			return p.Validate()
		}(), "thresholds"},
		{"srpt guard", func() error { p := baselines.DefaultSRPTParams(); p.Guard = "on"; return p.Validate() }(), "guard"},
		{"pias empty", baselines.PIASParams{Guard: baselines.GuardOff}.Validate(), "thresholds"},
		{"pias negative", baselines.PIASParams{Thresholds: []int64{-1}, Guard: baselines.GuardOff}.Validate(), "thresholds"},
		{"pias guard", baselines.PIASParams{Thresholds: []int64{1}}.Validate(), "guard"},
	} {
		var pe *cc.ParamError
		switch {
		case c.field == "" && c.err != nil:
			t.Errorf("%s: %v, want valid", c.name, c.err)
		case c.field != "" && (!errors.As(c.err, &pe) || pe.Field != c.field):
			t.Errorf("%s: got %v, want a *cc.ParamError for field %s", c.name, c.err, c.field)
		}
	}
}

func TestEqualSplit(t *testing.T) {
	// A piecewise-linear quantile with a point mass: sizes 1000 below p =
	// 0.5, then linear up to 9000.
	q := func(p float64) int64 {
		if p <= 0.5 {
			return 1000
		}
		return 1000 + int64((p-0.5)/0.5*8000)
	}
	got, err := baselines.EqualSplit(q, 4)
	if want := []int64{1000, 1001, 5000}; err != nil || !slices.Equal(got, want) {
		t.Errorf("EqualSplit = %v, %v; want %v (strictly increasing)", got, err, want)
	}
	if _, err := baselines.EqualSplit(q, 8); err == nil {
		t.Error("EqualSplit with 8 levels: no error, want one (class 0 is control)")
	}
}

func TestPIASTable(t *testing.T) {
	for _, c := range []struct {
		table  string
		queues int
		want   []int64
	}{
		{"websearch-equal", 4, []int64{24 * 1024, 72 * 1024, 1448 * 1024}},
		{"websearch", 4, []int64{70 * 1024, 1785 * 1024, 3180 * 1024}},
		{"websearch", 2, []int64{965816}},
		{"datamining", 4, []int64{1024, 9 * 1024, 167 * 1024}},
	} {
		got, ok := baselines.PIASTable(c.table, c.queues)
		if !ok || !slices.Equal(got, c.want) {
			t.Errorf("PIASTable(%s, %d) = %v, %v; want %v", c.table, c.queues, got, ok, c.want)
		}
	}
	if _, ok := baselines.PIASTable("websearch", 8); ok {
		t.Error("PIASTable(websearch, 8): ok, want false (level 1 would be class 0)")
	}
}

// The guard option keeps SRPT's promotions from reordering: the same
// incast of class-changing messages gives NACKs without it and none with
// it, and the stalls are counted.
func TestSRPTGuard(t *testing.T) {
	for _, g := range []string{baselines.GuardOff, baselines.GuardStall, baselines.GuardInherit} {
		p := baselines.DefaultSRPTParams()
		p.Guard = g
		r := schedtest.NewRig(t, schedtest.Config{Hosts: 5, Fabric: func(f *fabric.Config) { f.Strict = 0xff }}, baselines.NewSRPT(p))
		for s := 1; s <= 4; s++ {
			r.PostAt(0, s, 0, 2_000_000, 0)
		}
		if !r.Run(engine.Second) {
			t.Fatal(r.Stuck())
		}
		nacks, stalls := r.Cluster.Counters.Nacks, baselines.Counters(r.Cluster.Hosts)["srpt.guard_stalls"]
		t.Logf("guard %s: %d NACKs, %d stalls", g, nacks, stalls)
		switch {
		case g == baselines.GuardOff && nacks == 0:
			t.Errorf("guard off: 0 NACKs, want > 0 (the case must reorder)")
		case g != baselines.GuardOff && nacks != 0:
			t.Errorf("guard %s: %d NACKs, want 0", g, nacks)
		case g == baselines.GuardStall && stalls == 0:
			t.Errorf("guard stall: 0 stalls counted")
		}
	}
}

// Counters sums only SRPT's and PIAS's counts. STORM's schedulers have a
// Counters method too; summing it made storm.grant_latency_min_ns the sum
// of every host's minimum (issue #12). Two senders are granted by one
// receiver here, so two hosts have a minimum grant latency.
func TestCountersIgnoreOtherSchedulers(t *testing.T) {
	r := schedtest.NewRig(t, schedtest.Config{Hosts: 3}, storm.New(storm.DefaultParams(), storm.Env{}))
	r.PostAt(0, 1, 0, 400_000, 0)
	r.PostAt(0, 2, 0, 400_000, 0)
	if !r.Run(engine.Second) {
		t.Fatal(r.Stuck())
	}
	if got := baselines.Counters(r.Cluster.Hosts); len(got) != 0 {
		t.Errorf("baselines.Counters on STORM hosts = %v, want an empty map", got)
	}
	var hostMins []engine.Time
	for _, h := range r.Cluster.Hosts {
		if m := h.Scheduler().(*storm.Scheduler).Stats().GrantLatencyMin; m > 0 {
			hostMins = append(hostMins, m)
		}
	}
	if len(hostMins) != 2 {
		t.Fatalf("%d hosts received grants, want 2", len(hostMins))
	}
	want := min(hostMins[0], hostMins[1]).Nanoseconds()
	if got := storm.Counters(r.Cluster.Hosts)["storm.grant_latency_min_ns"]; got != want {
		t.Errorf("storm.grant_latency_min_ns = %d, want %d (the smaller of %v)", got, want, hostMins)
	}
}
