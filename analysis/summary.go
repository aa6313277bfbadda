package analysis

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// DefaultStepPercent is the reference analysis's bucket width (5%).
const DefaultStepPercent = 5

// Summary describes the slowdowns of a set of in-window flows.
//
// Count is the number of finished flows summarised, Unfinished the number
// that had no finish (they are reported, never dropped, and take no part in
// the statistics), BelowOne the number of finished flows whose unclamped
// slowdown was below 1. Mean, P50, P95 and P99 are over the finished
// flows' slowdowns clamped at 1; they are NaN when Count is 0.
type Summary struct {
	Count, Unfinished, BelowOne int
	Mean, P50, P95, P99         float64
}

// Total is the number of in-window flows the summary saw.
func (s Summary) Total() int { return s.Count + s.Unfinished }

// Pctl is the reference analysis's percentile: sorted[int(len*p)], the
// index clamped to the last element. sorted must be ascending; NaN when
// empty.
func Pctl(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(float64(len(sorted)) * p)
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// FlowStat is what the summaries need of one in-window flow: its size and
// its unclamped slowdown, NaN when it did not finish. 16 bytes against a
// FlowRecord's ~150 plus its nullable fields, so that a report over
// hundreds of runs of millions of flows fits in memory.
type FlowStat struct {
	SizeBytes int64
	Slowdown  float64
}

// Finished reports whether the flow finished (its slowdown is not NaN).
func (f FlowStat) Finished() bool { return !math.IsNaN(f.Slowdown) }

// Stats returns the FlowStats of the in-window flows, in input order.
func Stats(flows []FlowRecord) []FlowStat {
	return AppendStats(make([]FlowStat, 0, len(flows)), flows)
}

// AppendStats appends the FlowStats of the in-window flows to out, in
// input order.
func AppendStats(out []FlowStat, flows []FlowRecord) []FlowStat {
	for i := range flows {
		f := &flows[i]
		if !f.InWindow {
			continue
		}
		sd := math.NaN()
		if f.Finished() {
			sd = *f.Slowdown
		}
		out = append(out, FlowStat{SizeBytes: f.SizeBytes, Slowdown: sd})
	}
	return out
}

// Summarize summarises the in-window flows (in_window true); flows outside
// the window are ignored. The result does not depend on the order of flows.
func Summarize(flows []FlowRecord) Summary { return SummarizeStats(Stats(flows)) }

// SummarizeStats is Summarize over in-window flows' stats.
func SummarizeStats(flows []FlowStat) Summary { return summarizeParts([][]FlowStat{flows}) }

// summarizeParts is SummarizeStats over the concatenation of parts.
func summarizeParts(parts [][]FlowStat) Summary {
	sd := make([]float64, 0, totalLen(parts))
	unfinished := 0
	for _, part := range parts {
		for _, f := range part {
			if !f.Finished() {
				unfinished++
				continue
			}
			sd = append(sd, f.Slowdown)
		}
	}
	return summarize(sd, unfinished)
}

func totalLen(parts [][]FlowStat) int {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	return n
}

// summarize builds a Summary from raw slowdowns; it clamps and sorts sd in
// place.
func summarize(sd []float64, unfinished int) Summary {
	s := Summary{Count: len(sd), Unfinished: unfinished}
	for i, v := range sd {
		if v < 1 {
			s.BelowOne++
			sd[i] = 1
		}
	}
	if len(sd) == 0 {
		nan := math.NaN()
		s.Mean, s.P50, s.P95, s.P99 = nan, nan, nan, nan
		return s
	}
	// Sorting first makes the mean's rounding independent of input order.
	slices.Sort(sd)
	s.Mean = stat.Mean(sd, nil)
	s.P50, s.P95, s.P99 = Pctl(sd, 0.5), Pctl(sd, 0.95), Pctl(sd, 0.99)
	return s
}

// SplitAt summarises the in-window flows of at most bytes (small) and
// those larger (large) separately; with bytes = BDP this is the split
// STORM's design uses.
func SplitAt(flows []FlowRecord, bytes int64) (small, large Summary) {
	return SplitStats(Stats(flows), bytes)
}

// SplitStats is SplitAt over in-window flows' stats.
func SplitStats(flows []FlowStat, bytes int64) (small, large Summary) {
	return splitParts([][]FlowStat{flows}, bytes)
}

func splitParts(parts [][]FlowStat, bytes int64) (small, large Summary) {
	var sdSmall, sdLarge []float64
	var unSmall, unLarge int
	for _, part := range parts {
		for _, f := range part {
			sd, un := &sdLarge, &unLarge
			if f.SizeBytes <= bytes {
				sd, un = &sdSmall, &unSmall
			}
			if f.Finished() {
				*sd = append(*sd, f.Slowdown)
			} else {
				*un++
			}
		}
	}
	return summarize(sdSmall, unSmall), summarize(sdLarge, unLarge)
}

// Bucket is one equal-count size bucket of Buckets: the flows' sizes span
// [MinSize, MaxSize] and Summary describes their slowdowns.
type Bucket struct {
	// Percent is the bucket's upper edge in percent of the flows (the
	// reference's i+step), so buckets read as "up to the p-th percentile of
	// size".
	Percent          int
	MinSize, MaxSize int64
	Summary
}

// Buckets cuts the in-window flows, sorted by size, into equal-count
// buckets of stepPercent percent (docs/model.md §8.3): bucket i holds the
// sorted flows [i*n/100, min((i+step)*n/100, n)) for i = 0, step, 2*step,
// ... < 100, in integer arithmetic. Unfinished flows take their place in
// the size order, so bucket edges do not depend on which flows finished,
// and are counted in each bucket's Unfinished. Empty buckets (fewer flows
// than buckets) are left out. Unlike the reference script, the largest flow
// is kept. Ties in size keep the flows' order in the input (flow_id order
// as written). A stepPercent outside 1..100 is clamped into that range.
func Buckets(flows []FlowRecord, stepPercent int) []Bucket {
	return BucketStats(Stats(flows), stepPercent)
}

// BucketStats is Buckets over in-window flows' stats.
func BucketStats(flows []FlowStat, stepPercent int) []Bucket {
	return bucketParts([][]FlowStat{flows}, stepPercent)
}

func bucketParts(parts [][]FlowStat, stepPercent int) []Bucket {
	step := min(max(stepPercent, 1), 100)
	// Keys sorted by (size, index) are a stable sort by size, at pdqsort's
	// speed rather than a stable merge's, on a compact array. The index is
	// the position in the concatenation of parts; the key carries the
	// slowdown, so the parts are not indexed again.
	type key struct {
		size, idx int64
		sd        float64
	}
	kept := make([]key, 0, totalLen(parts))
	for _, part := range parts {
		for _, f := range part {
			kept = append(kept, key{f.SizeBytes, int64(len(kept)), f.Slowdown})
		}
	}
	slices.SortFunc(kept, func(a, b key) int {
		if a.size != b.size {
			return cmp.Compare(a.size, b.size)
		}
		return cmp.Compare(a.idx, b.idx)
	})
	n := len(kept)
	var out []Bucket
	for i := 0; i < 100; i += step {
		lo, hi := i*n/100, min((i+step)*n/100, n)
		if lo >= hi {
			continue
		}
		var sd []float64
		unfinished := 0
		for _, k := range kept[lo:hi] {
			if !math.IsNaN(k.sd) {
				sd = append(sd, k.sd)
			} else {
				unfinished++
			}
		}
		out = append(out, Bucket{
			Percent: min(i+step, 100),
			MinSize: kept[lo].size,
			MaxSize: kept[hi-1].size,
			Summary: summarize(sd, unfinished),
		})
	}
	return out
}

// Analysis is everything FormatSummary prints about one set of flows.
type Analysis struct {
	Overall Summary
	// SplitBytes is the boundary of Small (size <= SplitBytes) and Large;
	// 0 means no split was asked for.
	SplitBytes   int64
	Small, Large Summary
	StepPercent  int
	Buckets      []Bucket
}

// Analyze summarises flows overall, split at splitBytes (0 for no split)
// and in buckets of stepPercent percent.
func Analyze(flows []FlowRecord, stepPercent int, splitBytes int64) Analysis {
	return AnalyzeStats(Stats(flows), stepPercent, splitBytes)
}

// AnalyzeStats is Analyze over in-window flows' stats.
func AnalyzeStats(flows []FlowStat, stepPercent int, splitBytes int64) Analysis {
	return AnalyzeParts([][]FlowStat{flows}, stepPercent, splitBytes)
}

// AnalyzeParts is AnalyzeStats over the concatenation of parts (several
// runs' flows pooled, in order) without building it.
func AnalyzeParts(parts [][]FlowStat, stepPercent int, splitBytes int64) Analysis {
	a := Analysis{
		Overall:     summarizeParts(parts),
		SplitBytes:  splitBytes,
		StepPercent: min(max(stepPercent, 1), 100),
		Buckets:     bucketParts(parts, stepPercent),
	}
	if splitBytes > 0 {
		a.Small, a.Large = splitParts(parts, splitBytes)
	}
	return a
}
