package isolation

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// Exact transitions of one detector with HCDTh 32 KB, LCDTh 16 KB, FCTh
// 32 KB and CRT 1 us (times in ns).
func TestDetectorTransitions(t *testing.T) {
	th := Thresholds{HCDTh: 32000, LCDTh: 16000, FCTh: 32000, CRT: engine.Microsecond}
	ns := engine.Nanosecond
	d := NewDetector()
	for i, st := range []struct {
		now       engine.Time
		occ, free int64
		to        State
		wake      engine.Time
	}{
		{0, 10000, 64000, Normal, 0},
		{100 * ns, 32000, 64000, Normal, 0},          // at HCDTh: not above
		{200 * ns, 32001, 64000, Branch, 1200 * ns},  // root condition starts: candidate until CRT
		{700 * ns, 40000, 40000, Branch, 1200 * ns},  // still held
		{1199 * ns, 40000, 40000, Branch, 1200 * ns}, // 1 ns short
		{1200 * ns, 40000, 40000, Root, 0},           // CRT held: root
		{1300 * ns, 20000, 40000, Root, 0},           // between the thresholds: stays root
		{1400 * ns, 40000, 40000, Root, 0},           // above HCDTh again: still a root, no new wait
		{2400 * ns, 40000, 32000, Branch, 0},         // downstream at FCTh: a branch, timer reset
		{2500 * ns, 40000, 50000, Branch, 3500 * ns}, // candidate again
		{3500 * ns, 40000, 50000, Root, 0},           // root
		{3600 * ns, 50000, 0, Branch, 0},             // downstream full: the root becomes a branch
		{3700 * ns, 15999, 0, Normal, 0},             // below LCDTh
		{3800 * ns, 16000, 64000, Normal, 0},         // at LCDTh, from normal: stays normal
	} {
		from := d.State()
		gotFrom, to, wake := d.Observe(st.now, st.occ, st.free, &th)
		if gotFrom != from || to != st.to || wake != st.wake {
			t.Errorf("step %d at %v (occ %d, free %d): got %v -> %v wake %v, want %v -> %v wake %v",
				i, st.now, st.occ, st.free, gotFrom, to, wake, from, st.to, st.wake)
		}
	}
}

// A Branch that dropped into the band restarts its root timer: it needs
// a full CRT above HCDTh again before it is a root.
func TestDetectorBandRestartsTimer(t *testing.T) {
	th := Thresholds{HCDTh: 100, LCDTh: 50, FCTh: 100, CRT: 10}
	d := NewDetector()
	d.Observe(0, 200, 200, &th)
	d.Observe(5, 80, 200, &th)
	if _, to, wake := d.Observe(12, 200, 200, &th); to != Branch || wake != 22 {
		t.Errorf("got %v wake %v, want branch wake 22", to, wake)
	}
	if _, to, _ := d.Observe(21, 200, 200, &th); to != Branch {
		t.Errorf("at 21 got %v, want branch", to)
	}
	if _, to, _ := d.Observe(22, 200, 200, &th); to != Root {
		t.Errorf("at 22 got %v, want root", to)
	}
}
