package main

import "testing"

// Bins of 10 us, labelled by their end: background delivered 100 Gbps
// before a hot spot in [200, 300) us, 50 in the bins ending in (200,
// 350], 95 in the one ending at 360, 50 to 400, then 100. The mean
// before is 100, and recovery is the start of the first 50 us window
// starting at or after the stop with a mean of at least 90, less the
// stop.
func TestRecoveryAfterStop(t *testing.T) {
	r := &result{start: 200, stop: 300, end: 1000}
	for end := 10.0; end <= 1000; end += 10 {
		v := 100.0
		switch {
		case end > 200 && end <= 350:
			v = 50
		case end > 350 && end <= 360:
			v = 95
		case end > 360 && end <= 400:
			v = 50
		}
		r.bins = append(r.bins, bin{t: end, other: v})
	}
	s := r.summarise()
	// Windows start at 300, 310, ...; the window [lo, lo+50) holds the
	// bins ending at lo+10 .. lo+50. [350, 400): 95, 50, 50, 50, 50 ->
	// 59; [380, 430): 50, 50, 100, 100, 100 -> 80; [390, 440): 50, 100 x 4
	// -> 90, the first at 90% of 100.
	if s.bgBefore != 100 || s.recoveryStop != 90 {
		t.Errorf("got before %v recovery %v us, want 100 and 90", s.bgBefore, s.recoveryStop)
	}
	// Never within 10% before the end of arrivals: -1.
	r.end = 420
	if s := r.summarise(); s.recoveryStop != -1 {
		t.Errorf("arrivals ending at 420 us: got recovery %v, want -1", s.recoveryStop)
	}
}

// The trace experiment's incast: PTRANS at once; Inception-v3 (451 ms
// step, a third forward) when its last bucket is ready, the end of the
// backward pass, or its first, 25 MiB of 95.4 MB into the backward pass.
func TestIncastAt(t *testing.T) {
	if got := incastAt("ptrans", true, traceApps["ptrans"]); got != 0 {
		t.Errorf("ptrans: got %d ns, want 0", got)
	}
	sets := append([]string{"workload.hosts=" + hostList(432, 0, 6)}, traceApps["inception-v3"]...)
	if got := incastAt("inception-v3", true, sets); got != 451_000_000 {
		t.Errorf("inception-v3, last bucket: got %d ns, want 451,000,000", got)
	}
	if got := incastAt("inception-v3", false, sets); got != 232_945_563 {
		t.Errorf("inception-v3, first bucket: got %d ns, want 232,945,563", got)
	}
}
