package cloud

import (
	"math/rand/v2"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// H25-4 on 432 hosts: 108 senders split over four trees of 27, disjoint
// and never a destination; every sender posts one 1 MB message per 80 us
// (1 MB at 100 Gbps) from 100 us until 300 us: 3 rounds of 108.
func TestHotSpotsH25x4(t *testing.T) {
	hosts := make([]int, 432)
	for i := range hosts {
		hosts[i] = i
	}
	cfg := HotSpotConfig{Hosts: hosts, Fraction: 0.25, Trees: 4, FlowSize: 1000000, HostRate: 100 * engine.Gbps,
		Start: 100 * engine.Microsecond, Stop: 300 * engine.Microsecond}
	g, err := NewHotSpots(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, d := range g.Dsts {
		seen[d] = true
	}
	for tr, s := range g.Senders {
		if len(s) != 27 {
			t.Errorf("tree %d: got %d senders, want 27", tr, len(s))
		}
		for _, h := range s {
			if seen[h] {
				t.Errorf("tree %d: host %d takes part twice", tr, h)
			}
			seen[h] = true
		}
	}
	var n int
	last := engine.Time(0)
	for f, ok := g.Next(); ok; f, ok = g.Next() {
		if f.Start < last || f.Size != 1000000 || f.Dst != g.Dsts[(n/27)%4] {
			t.Fatalf("flow %d: %+v", n, f)
		}
		last = f.Start
		n++
	}
	if n != 3*108 || last != 260*engine.Microsecond {
		t.Errorf("got %d flows, the last at %v; want 324, at 260us", n, last)
	}
}

func TestHotSpotsValidate(t *testing.T) {
	hosts := []int{0, 1, 2, 3}
	for _, tc := range []struct {
		cfg  HotSpotConfig
		want string
	}{
		{HotSpotConfig{Hosts: hosts, Fraction: 1, Trees: 1, FlowSize: 1, HostRate: 1}, "fraction: 1 is not in (0, 1)"},
		{HotSpotConfig{Hosts: hosts, Fraction: 0.1, Trees: 1, FlowSize: 1, HostRate: 1}, "fraction: 0 senders per tree for 1 trees among 4 hosts"},
		{HotSpotConfig{Hosts: hosts, Fraction: 0.75, Trees: 3, FlowSize: 1, HostRate: 1}, "fraction: 1 senders per tree for 3 trees among 4 hosts"},
	} {
		if err := tc.cfg.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
	}
}
