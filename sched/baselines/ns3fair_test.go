package baselines

import (
	"strings"
	"testing"
)

type fakeQP struct {
	name          string
	ready, closed bool
}

func (q *fakeQP) Ready() bool  { return q.ready }
func (q *fakeQP) Closed() bool { return q.closed }

func names(qs []*fakeQP) string {
	var b []string
	for _, q := range qs {
		b = append(b, q.name)
	}
	return strings.Join(b, ",")
}

// TestNS3ScanShift is ns-3's round-robin index shift: C was served last
// (rrlast 2) when a scan that finds nothing ready drops finished A; rrlast
// keeps its number, now D's, so the next scan starts after D and serves B,
// where a round robin by QP order would serve D.
func TestNS3ScanShift(t *testing.T) {
	a, b, c, d := &fakeQP{name: "A", closed: true}, &fakeQP{name: "B"}, &fakeQP{name: "C"}, &fakeQP{name: "D"}
	qps, res := ns3Scan([]*fakeQP{a, b, c, d}, 2, false)
	if res != -1 || names(qps) != "B,C,D" {
		t.Fatalf("nothing ready: got res %d, list %s; want -1, B,C,D", res, names(qps))
	}
	b.ready, c.ready, d.ready = true, true, true
	qps, res = ns3Scan(qps, 2, false)
	if res != 0 || qps[res] != b {
		t.Fatalf("got res %d (%s), want 0 (B)", res, qps[res].name)
	}
}

// TestNS3ScanCompaction: a scan that passes finished QPs before the ready
// one drops every finished QP from the lowest one it met on, unscanned ones
// after the pick included, and returns the pick's new index; finished QPs
// before that point stay.
func TestNS3ScanCompaction(t *testing.T) {
	q := func(name string, ready, closed bool) *fakeQP {
		return &fakeQP{name: name, ready: ready, closed: closed}
	}
	list := []*fakeQP{q("A", false, true), q("B", true, false), q("C", false, true), q("D", false, true),
		q("E", true, false), q("F", false, true), q("G", true, false)}
	// rrlast 1 (B): the scan meets C and D (finished), picks E.
	qps, res := ns3Scan(list, 1, false)
	if got, want := names(qps), "A,B,E,G"; got != want {
		t.Errorf("list %s, want %s", got, want)
	}
	if res != 2 || qps[res].name != "E" {
		t.Errorf("res %d, want 2 (E)", res)
	}
	// With the data class paused nothing is picked, and the scan still
	// drops every finished QP.
	qps, res = ns3Scan(qps, 2, true)
	if res != -1 || names(qps) != "B,E,G" {
		t.Errorf("paused: res %d, list %s; want -1, B,E,G", res, names(qps))
	}
}
