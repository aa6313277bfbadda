package cloud

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dcsim/dcsim/engine"
)

// event groups the flows of one incast or fan-out event by tag.
type event struct {
	tag   string
	start engine.Time
	flows []Flow
}

// groupByTag splits flows into events, checking that each tag's flows are
// contiguous and share one start time.
func groupByTag(t *testing.T, flows []Flow) []event {
	t.Helper()
	var evs []event
	seen := map[string]bool{}
	for _, f := range flows {
		if n := len(evs); n > 0 && evs[n-1].tag == f.Tag {
			if f.Start != evs[n-1].start {
				t.Fatalf("%s: flows start at %v and %v, want one time", f.Tag, evs[n-1].start, f.Start)
			}
			evs[n-1].flows = append(evs[n-1].flows, f)
			continue
		}
		if seen[f.Tag] {
			t.Fatalf("tag %s appears in two separate runs of flows", f.Tag)
		}
		seen[f.Tag] = true
		evs = append(evs, event{tag: f.Tag, start: f.Start, flows: []Flow{f}})
	}
	return evs
}

func TestIncastPeriodicShape(t *testing.T) {
	cfg := IncastConfig{Hosts: hostRange(16), Senders: 5, Receiver: 3, FlowSize: 500 * engine.KB,
		Period: 100 * engine.Microsecond, Start: 50 * engine.Microsecond, Stop: engine.Millisecond}
	g, err := NewIncast(cfg, engine.NewStream(1, "incast"))
	if err != nil {
		t.Fatal(err)
	}
	evs := groupByTag(t, drain(t, g, cfg.Start, cfg.Stop))
	// Events at 50, 150, ..., 950 us.
	if got, want := len(evs), 10; got != want {
		t.Fatalf("got %d events, want %d", got, want)
	}
	for i, ev := range evs {
		if want := fmt.Sprintf("incast-%d", i); ev.tag != want {
			t.Errorf("event %d: got tag %q, want %q", i, ev.tag, want)
		}
		if want := cfg.Start + engine.Time(i)*cfg.Period; ev.start != want {
			t.Errorf("%s: got start %v, want %v", ev.tag, ev.start, want)
		}
		if len(ev.flows) != cfg.Senders {
			t.Fatalf("%s: got %d flows, want %d", ev.tag, len(ev.flows), cfg.Senders)
		}
		for j, f := range ev.flows {
			if f.Dst != 3 || f.Size != 500000 || f.Generator != "incast" {
				t.Errorf("%s: got flow %+v, want dst 3, 500000 B, generator incast", ev.tag, f)
			}
			if j > 0 && f.Src <= ev.flows[j-1].Src {
				t.Errorf("%s: senders %d then %d, want distinct and ascending", ev.tag, ev.flows[j-1].Src, f.Src)
			}
		}
	}
}

func TestIncastRandomReceiverAndSenderUniformity(t *testing.T) {
	const n, k = 10, 4
	cfg := IncastConfig{Hosts: hostRange(n), Senders: k, Receiver: RandomReceiver, FlowSize: 1000,
		Period: engine.Microsecond, Stop: 20 * engine.Millisecond}
	g, err := NewIncast(cfg, engine.NewStream(1, "incast"))
	if err != nil {
		t.Fatal(err)
	}
	evs := groupByTag(t, drain(t, g, cfg.Start, cfg.Stop))
	if len(evs) != 20000 {
		t.Fatalf("got %d events, want 20000", len(evs))
	}
	var recv [n]float64
	var pair [n][n]float64 // receiver x sender
	for _, ev := range evs {
		r := ev.flows[0].Dst
		recv[r]++
		for _, f := range ev.flows {
			if f.Dst != r {
				t.Fatalf("%s: receivers %d and %d in one event", ev.tag, r, f.Dst)
			}
			pair[r][f.Src]++
		}
	}
	// Receivers: uniform over n hosts, df n-1. Senders given the receiver:
	// each of the n-1 others with probability k/(n-1); Pearson's statistic
	// over the n*(n-1) cells (each row total fixed) has n*(n-2) df. Both
	// must stay under the 0.999 quantile.
	var rs, ss float64
	e := float64(len(evs)) / n
	for r := range n {
		rs += (recv[r] - e) * (recv[r] - e) / e
		if pair[r][r] != 0 {
			t.Fatalf("receiver %d was also a sender %v times", r, pair[r][r])
		}
		es := recv[r] * k / (n - 1)
		for s := range n {
			if s != r {
				ss += (pair[r][s] - es) * (pair[r][s] - es) / es
			}
		}
	}
	if crit := (distuv.ChiSquared{K: n - 1}).Quantile(0.999); rs > crit {
		t.Errorf("receiver chi-square got %.1f, want < %.1f", rs, crit)
	}
	if crit := (distuv.ChiSquared{K: n * (n - 2)}).Quantile(0.999); ss > crit {
		t.Errorf("sender chi-square got %.1f, want < %.1f", ss, crit)
	}
}

// Poisson incast at 2% of load, 60 senders x 500 KB (docs/model.md §7.3) over
// 128 hosts at 100 Gbps: 1067 events/s. Over 20 s about 21,300 events; the
// event count is Poisson, so the relative sd of the offered load is
// 1/sqrt(21300) = 0.69% and 3% is over 4 sd.
func TestIncastPoissonLoad(t *testing.T) {
	cfg := IncastConfig{Hosts: hostRange(128), Senders: 60, Receiver: RandomReceiver,
		FlowSize: 500 * engine.KB, Load: 0.02, HostRate: 100 * engine.Gbps, Stop: 20 * engine.Second}
	g, err := NewIncast(cfg, engine.NewStream(4, "incast"))
	if err != nil {
		t.Fatal(err)
	}
	flows := drain(t, g, cfg.Start, cfg.Stop)
	evs := groupByTag(t, flows)
	for _, ev := range evs {
		if len(ev.flows) != 60 {
			t.Fatalf("%s: got %d flows, want 60", ev.tag, len(ev.flows))
		}
	}
	var bytes float64
	for _, f := range flows {
		bytes += float64(f.Size)
	}
	got := bytes * 8 / (128 * 100e9 * 20)
	if math.Abs(got/0.02-1) > 0.03 {
		t.Errorf("incast load got %.5f (%d events), want 0.02 +- 3%%", got, len(evs))
	}
}

func TestIncastDeterministicAndAllocs(t *testing.T) {
	cfg := IncastConfig{Hosts: hostRange(32), Senders: 8, Receiver: RandomReceiver, FlowSize: 1000,
		Load: 0.1, HostRate: 100 * engine.Gbps, Stop: engine.Millisecond}
	run := func() []Flow {
		g, err := NewIncast(cfg, engine.NewStream(8, "incast"))
		if err != nil {
			t.Fatal(err)
		}
		return drain(t, g, cfg.Start, cfg.Stop)
	}
	if a, b := run(), run(); !slices.Equal(a, b) || len(a) == 0 {
		t.Errorf("two runs with one seed differ or are empty (%d, %d flows)", len(a), len(b))
	}
	cfg.Stop = engine.Never - 1
	g, _ := NewIncast(cfg, engine.NewStream(8, "incast"))
	// One tag string per event of 8 flows.
	if n := testing.AllocsPerRun(8000, func() { g.Next() }); n > 1.0/8+0.01 {
		t.Errorf("Next got %v allocs per flow, want at most 1/8 (the event tag)", n)
	}
}

func TestIncastValidate(t *testing.T) {
	good := IncastConfig{Hosts: hostRange(8), Senders: 3, Receiver: 0, FlowSize: 100, Period: engine.Microsecond, Stop: engine.Millisecond}
	tests := []struct {
		name string
		edit func(*IncastConfig)
		want string
	}{
		{"no hosts", func(c *IncastConfig) { c.Hosts = nil }, "hosts: need at least 1"},
		{"bad receiver", func(c *IncastConfig) { c.Receiver = -5 }, "receiver: -5 is neither"},
		{"zero senders", func(c *IncastConfig) { c.Senders = 0 }, "senders: must be at least 1"},
		{"too many senders", func(c *IncastConfig) { c.Senders = 8 }, "senders: 8 exceeds the 7 hosts"},
		{"too many, random receiver", func(c *IncastConfig) { c.Senders = 8; c.Receiver = RandomReceiver }, "senders: 8 exceeds the 7"},
		{"zero size", func(c *IncastConfig) { c.FlowSize = 0 }, "flow_size: must be at least 1 B"},
		{"negative period", func(c *IncastConfig) { c.Period = -1 }, "period: negative"},
		{"both", func(c *IncastConfig) { c.Load = 0.1; c.HostRate = engine.Gbps }, "not both"},
		{"load without rate", func(c *IncastConfig) { c.Period = 0; c.Load = 0.1 }, "host_rate: must be positive"},
		{"inf load", func(c *IncastConfig) { c.Period = 0; c.Load = math.Inf(1) }, "load: must be a finite"},
		{"stop before start", func(c *IncastConfig) { c.Start = 2 * engine.Millisecond }, "stop: 1ms is before start 2ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.edit(&cfg)
			_, err := NewIncast(cfg, engine.NewStream(1, "a"))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "incast workload: ") {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// A fixed receiver outside Hosts leaves every host as a sender.
	cfg := good
	cfg.Receiver, cfg.Senders = 99, 8
	g, err := NewIncast(cfg, engine.NewStream(1, "a"))
	if err != nil {
		t.Fatalf("receiver outside hosts: got error %v", err)
	}
	if f, _ := g.Next(); f.Dst != 99 {
		t.Errorf("got dst %d, want 99", f.Dst)
	}
	// Neither load nor period: no events.
	cfg = good
	cfg.Period = 0
	g, err = NewIncast(cfg, engine.NewStream(1, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := g.Next(); ok {
		t.Errorf("got flow %+v with no load and no period, want none", f)
	}
}

func TestStorageShape(t *testing.T) {
	servers := []int{0, 1, 2, 3, 4, 5, 6, 7}
	cfg := StorageConfig{Clients: []int{0, 9}, Servers: servers, FanOut: 4, ResponseSize: 64 * engine.KiB,
		MeanInterval: 10 * engine.Microsecond, Stop: 50 * engine.Millisecond}
	run := func() []Flow {
		g, err := NewStorage(cfg, engine.NewStream(1, "storage"))
		if err != nil {
			t.Fatal(err)
		}
		return drain(t, g, cfg.Start, cfg.Stop)
	}
	flows := run()
	if again := run(); !slices.Equal(flows, again) {
		t.Fatalf("two runs with one seed differ")
	}
	evs := groupByTag(t, flows)
	perClient := map[int]int{}
	for i, ev := range evs {
		if want := fmt.Sprintf("fanout-%d", i); ev.tag != want {
			t.Fatalf("request %d: got tag %q, want %q", i, ev.tag, want)
		}
		if len(ev.flows) != 4 {
			t.Fatalf("%s: got %d responses, want 4", ev.tag, len(ev.flows))
		}
		client := ev.flows[0].Dst
		perClient[client]++
		for j, f := range ev.flows {
			if f.Dst != client || f.Size != 65536 || f.Generator != "storage" || !slices.Contains(servers, f.Src) {
				t.Fatalf("%s: got flow %+v, want a 65536 B response from a server to client %d", ev.tag, f, client)
			}
			if j > 0 && f.Src <= ev.flows[j-1].Src {
				t.Fatalf("%s: servers %d then %d, want distinct and ascending", ev.tag, ev.flows[j-1].Src, f.Src)
			}
		}
	}
	// Each client: Poisson count with mean 50ms/10us = 5000, sd 71; 5 sd = 354.
	for _, c := range cfg.Clients {
		if got := perClient[c]; math.Abs(float64(got)-5000) > 354 {
			t.Errorf("client %d: got %d requests, want 5000 +- 354", c, got)
		}
	}
}

// Responses carry Load of the client's link: for fbhdp responses, fan-out 8
// and load 0.4 at 100 Gbps one client gets 5.19e3 requests/s; over 30 s,
// 1.56e5 requests and 1.25e6 responses. The bytes are compound Poisson
// over requests, so their relative sd is
// sqrt((E[X^2]/E[X]^2 - 1)/1.25e6 + 1/1.56e5) = 0.56%, and 3% is over 5 sd.
func TestStorageLoad(t *testing.T) {
	c := mustCDF(t, "fbhdp")
	cfg := StorageConfig{Clients: []int{100}, Servers: hostRange(16), FanOut: 8, ResponseCDF: c,
		Load: 0.4, HostRate: 100 * engine.Gbps, Stop: 30 * engine.Second}
	g, err := NewStorage(cfg, engine.NewStream(3, "storage"))
	if err != nil {
		t.Fatal(err)
	}
	var bytes float64
	for _, f := range drain(t, g, cfg.Start, cfg.Stop) {
		bytes += float64(f.Size)
	}
	if got := bytes * 8 / (100e9 * 30); math.Abs(got/0.4-1) > 0.03 {
		t.Errorf("client link load got %.4f, want 0.4 +- 3%%", got)
	}
}

func TestStorageValidate(t *testing.T) {
	good := StorageConfig{Clients: []int{0}, Servers: hostRange(4), FanOut: 3, ResponseSize: 10,
		MeanInterval: engine.Microsecond, Stop: engine.Millisecond}
	c := mustCDF(t, "websearch")
	tests := []struct {
		name string
		edit func(*StorageConfig)
		want string
	}{
		{"no clients", func(s *StorageConfig) { s.Clients = nil }, "clients: need at least 1"},
		{"dup server", func(s *StorageConfig) { s.Servers = []int{1, 1} }, "servers: host 1 listed twice"},
		{"zero fan-out", func(s *StorageConfig) { s.FanOut = 0 }, "fan_out: must be at least 1"},
		{"fan-out too wide", func(s *StorageConfig) { s.FanOut = 4 }, "fan_out: 4 exceeds the 3 servers available to client 0"},
		{"both sizes", func(s *StorageConfig) { s.ResponseCDF = c }, "response_size: set either"},
		{"no size", func(s *StorageConfig) { s.ResponseSize = 0 }, "response_size: must be at least 1 B"},
		{"both rates", func(s *StorageConfig) { s.Load = 0.5; s.HostRate = engine.Gbps }, "load: set either load or mean_interval"},
		{"load without rate", func(s *StorageConfig) { s.MeanInterval = 0; s.Load = 0.5 }, "host_rate: must be positive"},
		{"negative interval", func(s *StorageConfig) { s.MeanInterval = -1 }, "mean_interval: negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.edit(&cfg)
			_, err := NewStorage(cfg, engine.NewStream(1, "a"))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "storage workload: ") {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
