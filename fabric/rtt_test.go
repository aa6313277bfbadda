package fabric

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// TestBaseRTTOneRounding: each hop's doubled delay is truncated to whole
// ns, the same for a Path, for MaxRTTBDP (the NIC's maxRtt) and for
// analysis's ideal FCT. Four 1.25 ns links: 4 * (2.5 ns -> 2 ns) = 8 ns,
// plus 4 hops of 1000 B at 100 Gbps = 80 ns each.
func TestBaseRTTOneRounding(t *testing.T) {
	d := 1250 * engine.Picosecond
	p := Path{Rates: []engine.Rate{100 * engine.Gbps, 100 * engine.Gbps, 100 * engine.Gbps, 100 * engine.Gbps},
		Delays: []engine.Time{d, d, d, d}}
	if got, want := p.BaseRTT(1000), 328*engine.Nanosecond; got != want {
		t.Errorf("BaseRTT: got %v, want %v", got, want)
	}
	if got, want := BDP(8200*engine.Nanosecond, 100*engine.Gbps), int64(102_500); got != want {
		t.Errorf("BDP(8.2us, 100G): got %d, want %d", got, want)
	}
}
