package analysis

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// flow builds an in-window flow; a negative slowdown means unfinished.
func flow(id, size int64, slowdown float64) FlowRecord {
	f := FlowRecord{FlowID: id, SizeBytes: size, InWindow: true, IdealFctNs: 1000}
	if slowdown >= 0 {
		sd := slowdown
		f.Slowdown = &sd
	}
	return f
}

var nan = math.NaN()

// equateNaN makes NaN statistics (no data) compare equal.
var equateNaN = cmpopts.EquateNaNs()

func TestPctl(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		p    float64
		want float64
	}{
		{0, 1}, {0.5, 6}, {0.95, 10}, {0.99, 10}, {0.1, 2}, {0.09, 1}, {1, 10},
	}
	for _, tc := range tests {
		if got := Pctl(a, tc.p); got != tc.want {
			t.Errorf("Pctl(1..10, %v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := Pctl(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Pctl(nil, 0.5) = %v, want NaN", got)
	}
	// int(100*0.57) is 56 in IEEE doubles (0.57*100 = 56.99999999999999),
	// as in the reference's Python; the rule must not round.
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(i)
	}
	if got := Pctl(hundred, 0.57); got != 56 {
		t.Errorf("Pctl(0..99, 0.57) = %v, want 56", got)
	}
}

func TestSummarize(t *testing.T) {
	outside := flow(99, 1, 50)
	outside.InWindow = false
	tests := []struct {
		name  string
		flows []FlowRecord
		want  Summary
	}{
		{"empty", nil, Summary{Mean: nan, P50: nan, P95: nan, P99: nan}},
		{"only unfinished", []FlowRecord{flow(1, 10, -1), flow(2, 10, -1)},
			Summary{Unfinished: 2, Mean: nan, P50: nan, P95: nan, P99: nan}},
		{"one flow", []FlowRecord{flow(1, 10, 2.5)}, Summary{Count: 1, Mean: 2.5, P50: 2.5, P95: 2.5, P99: 2.5}},
		// 0.5 and 0.9 clamp to 1 and are counted below one; mean of
		// {1, 1, 1, 3} = 1.5; sorted[int(4*0.5)] = sorted[2] = 1,
		// sorted[int(3.8)] = sorted[3] = 3.
		{"clamped", []FlowRecord{flow(1, 10, 0.5), flow(2, 10, 3), flow(3, 10, 0.9), flow(4, 10, 1), flow(5, 10, -1), outside},
			Summary{Count: 4, Unfinished: 1, BelowOne: 2, Mean: 1.5, P50: 1, P95: 3, P99: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Summarize(tc.flows)
			if diff := cmp.Diff(tc.want, got, equateNaN); diff != "" {
				t.Errorf("Summarize mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarizeDoesNotChangeFlows(t *testing.T) {
	flows := []FlowRecord{flow(1, 10, 0.5), flow(2, 10, 3)}
	Summarize(flows)
	Buckets(flows, 50)
	SplitAt(flows, 10)
	if got := *flows[0].Slowdown; got != 0.5 {
		t.Errorf("slowdown after Summarize = %v, want 0.5 (unclamped)", got)
	}
}

func TestSplitAt(t *testing.T) {
	flows := []FlowRecord{flow(1, 100, 2), flow(2, 102500, 4), flow(3, 102501, 8), flow(4, 200000, -1), flow(5, 50, 0.5)}
	small, large := SplitAt(flows, 102500)
	wantSmall := Summary{Count: 3, BelowOne: 1, Mean: 7.0 / 3, P50: 2, P95: 4, P99: 4}
	wantLarge := Summary{Count: 1, Unfinished: 1, Mean: 8, P50: 8, P95: 8, P99: 8}
	if diff := cmp.Diff(wantSmall, small, equateNaN, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("small mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLarge, large, equateNaN); diff != "" {
		t.Errorf("large mismatch (-want +got):\n%s", diff)
	}
}

func TestBuckets(t *testing.T) {
	// Ten flows of sizes 10..100 with slowdown size/10; flow 70 unfinished.
	var ten []FlowRecord
	for i := int64(1); i <= 10; i++ {
		sd := float64(i)
		if i == 7 {
			sd = -1
		}
		ten = append(ten, flow(i, 10*i, sd))
	}
	one := func(sd float64) Summary {
		return Summary{Count: 1, Mean: sd, P50: sd, P95: sd, P99: sd}
	}
	tests := []struct {
		name  string
		flows []FlowRecord
		step  int
		want  []Bucket
	}{
		{"empty", nil, 5, nil},
		// 30% of 10 flows: [0,3) [3,6) [6,9) [9,10) in integer arithmetic.
		{"step 30", ten, 30, []Bucket{
			{Percent: 30, MinSize: 10, MaxSize: 30, Summary: Summary{Count: 3, Mean: 2, P50: 2, P95: 3, P99: 3}},
			{Percent: 60, MinSize: 40, MaxSize: 60, Summary: Summary{Count: 3, Mean: 5, P50: 5, P95: 6, P99: 6}},
			{Percent: 90, MinSize: 70, MaxSize: 90, Summary: Summary{Count: 2, Unfinished: 1, Mean: 8.5, P50: 9, P95: 9, P99: 9}},
			{Percent: 100, MinSize: 100, MaxSize: 100, Summary: one(10)},
		}},
		// 5% of 10 flows: [i*10/100, (i+5)*10/100) is empty for every
		// other i; empty buckets are left out, so each 10% holds one flow.
		{"step 5 with 10 flows", ten, 5, []Bucket{
			{Percent: 10, MinSize: 10, MaxSize: 10, Summary: one(1)},
			{Percent: 20, MinSize: 20, MaxSize: 20, Summary: one(2)},
			{Percent: 30, MinSize: 30, MaxSize: 30, Summary: one(3)},
			{Percent: 40, MinSize: 40, MaxSize: 40, Summary: one(4)},
			{Percent: 50, MinSize: 50, MaxSize: 50, Summary: one(5)},
			{Percent: 60, MinSize: 60, MaxSize: 60, Summary: one(6)},
			{Percent: 70, MinSize: 70, MaxSize: 70, Summary: Summary{Unfinished: 1, Mean: nan, P50: nan, P95: nan, P99: nan}},
			{Percent: 80, MinSize: 80, MaxSize: 80, Summary: one(8)},
			{Percent: 90, MinSize: 90, MaxSize: 90, Summary: one(9)},
			{Percent: 100, MinSize: 100, MaxSize: 100, Summary: one(10)},
		}},
		{"step 25 with 4 flows", ten[:4], 25, []Bucket{
			{Percent: 25, MinSize: 10, MaxSize: 10, Summary: one(1)},
			{Percent: 50, MinSize: 20, MaxSize: 20, Summary: one(2)},
			{Percent: 75, MinSize: 30, MaxSize: 30, Summary: one(3)},
			{Percent: 100, MinSize: 40, MaxSize: 40, Summary: one(4)},
		}},
		{"step 100 is one bucket", ten[:3], 100, []Bucket{
			{Percent: 100, MinSize: 10, MaxSize: 30, Summary: Summary{Count: 3, Mean: 2, P50: 2, P95: 3, P99: 3}},
		}},
		{"step 0 clamps to 1", ten[:1], 0, []Bucket{{Percent: 100, MinSize: 10, MaxSize: 10, Summary: one(1)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Buckets(tc.flows, tc.step)
			if diff := cmp.Diff(tc.want, got, equateNaN); diff != "" {
				t.Errorf("Buckets(step %d) mismatch (-want +got):\n%s", tc.step, diff)
			}
		})
	}
}

// Bucket boundaries follow [i*n/100, (i+step)*n/100) on the size-sorted
// flows, whatever the input order; every in-window flow lands in exactly
// one bucket; the summaries do not depend on input order.
func TestBucketsProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 300).Draw(t, "n")
		step := rapid.IntRange(1, 100).Draw(t, "step")
		flows := make([]FlowRecord, n)
		for i := range flows {
			size := rapid.Int64Range(1, 50).Draw(t, "size")
			sd := rapid.Float64Range(0.5, 20).Draw(t, "sd")
			if rapid.IntRange(0, 9).Draw(t, "unfinished") == 0 {
				sd = -1
			}
			flows[i] = flow(int64(i), size, sd)
			flows[i].InWindow = rapid.IntRange(0, 9).Draw(t, "out") != 0
		}
		inWindow := 0
		for _, f := range flows {
			if f.InWindow {
				inWindow++
			}
		}
		bs := Buckets(flows, step)
		total, prevMax := 0, int64(0)
		for _, b := range bs {
			total += b.Total()
			if b.MinSize < prevMax || b.MaxSize < b.MinSize {
				t.Fatalf("bucket sizes out of order: %+v after max %d", b, prevMax)
			}
			prevMax = b.MaxSize
		}
		if total != inWindow {
			t.Fatalf("buckets hold %d flows, want the %d in-window flows", total, inWindow)
		}
		s := Summarize(flows)
		if s.Total() != inWindow {
			t.Fatalf("Summarize saw %d flows, want %d", s.Total(), inWindow)
		}
		small, large := SplitAt(flows, 25)
		if small.Total()+large.Total() != inWindow || small.BelowOne+large.BelowOne != s.BelowOne {
			t.Fatalf("SplitAt %+v + %+v does not add up to %+v", small, large, s)
		}
		shuffled := slices.Clone(flows)
		perm := rapid.Permutation(shuffled).Draw(t, "perm")
		if diff := cmp.Diff(s, Summarize(perm), equateNaN); diff != "" {
			t.Fatalf("Summarize depends on order (-sorted +shuffled):\n%s", diff)
		}
	})
}

// referenceBuckets transcribes the reference analysis loop (docs/model.md
// §8.3) for finished flows: stable sort by size, bucket [l, r), the largest
// size res[r-1], percentiles of the sorted clamped slowdowns. It drops
// nothing, as dcsim keeps the reference's last flow.
func referenceBuckets(sizes []int64, sds []float64, step int) [][4]float64 {
	type pair struct {
		size int64
		sd   float64
	}
	res := make([]pair, len(sizes))
	for i := range sizes {
		sd := sds[i]
		if sd < 1 {
			sd = 1
		}
		res[i] = pair{sizes[i], sd}
	}
	slices.SortStableFunc(res, func(a, b pair) int { return int(a.size - b.size) })
	var out [][4]float64
	for i := 0; i < 100; i += step {
		l, r := i*len(res)/100, (i+step)*len(res)/100
		r = min(r, len(res))
		if l >= r {
			continue
		}
		var fct []float64
		for _, p := range res[l:r] {
			fct = append(fct, p.sd)
		}
		slices.Sort(fct)
		out = append(out, [4]float64{float64(res[r-1].size), Pctl(fct, 0.5), Pctl(fct, 0.95), Pctl(fct, 0.99)})
	}
	return out
}

func TestBucketsMatchReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 400).Draw(t, "n")
		step := rapid.SampledFrom([]int{1, 2, 5, 10, 20, 25, 33, 50}).Draw(t, "step")
		sizes := rapid.SliceOfN(rapid.Int64Range(1, 30), n, n).Draw(t, "sizes")
		sds := rapid.SliceOfN(rapid.Float64Range(0.5, 100), n, n).Draw(t, "sds")
		flows := make([]FlowRecord, n)
		for i := range flows {
			flows[i] = flow(int64(i), sizes[i], sds[i])
		}
		var got [][4]float64
		for _, b := range Buckets(flows, step) {
			got = append(got, [4]float64{float64(b.MaxSize), b.P50, b.P95, b.P99})
		}
		if diff := cmp.Diff(referenceBuckets(sizes, sds, step), got); diff != "" {
			t.Fatalf("Buckets differs from the reference loop (-ref +got):\n%s", diff)
		}
	})
}
