package analysis_test

import (
	"fmt"
	"os"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/engine"
)

// The default topology's inter-leaf path: host -> leaf -> spine -> leaf ->
// host, 1 us per link, 100G host links and 400G fabric links.
func ExampleIdealFCT() {
	us, g100, g400 := engine.Microsecond, 100*engine.Gbps, 400*engine.Gbps
	rtt := analysis.BaseRTT([]engine.Time{us, us, us, us}, []engine.Rate{g100, g400, g400, g100}, 1000)
	fmt.Println("base RTT:", rtt)
	fmt.Println("BDP:", analysis.BDP(rtt, g100), "B")
	fmt.Println("ideal FCT of 1 B:", analysis.IdealFCT(1, 1000, 48, rtt, g100))
	fmt.Println("ideal FCT of 1 MB:", analysis.IdealFCT(1_000_000, 1000, 48, rtt, g100))
	// Output:
	// base RTT: 8200ns
	// BDP: 102500 B
	// ideal FCT of 1 B: 8203ns
	// ideal FCT of 1 MB: 92040ns
}

func ExampleFormatSummary() {
	var flows []analysis.FlowRecord
	for i, size := range []int64{1000, 5000, 20_000, 100_000, 1_000_000, 10_000_000} {
		f := analysis.FlowRecord{FlowID: int64(i), SizeBytes: size, InWindow: true, IdealFctNs: 10_000}
		if i < 5 {
			f.SetFinish(int64(9_000 + 10_000*i)) // slowdowns 0.9, 1.9, ..., 4.9
		}
		flows = append(flows, f)
	}
	analysis.FormatSummary(os.Stdout, analysis.Analyze(flows, 50, 102_500))
	// Output:
	// slowdown of in-window flows (fct / ideal fct, clamped at 1; below1: faster than ideal)
	//   flows       finished  unfinished  below1  mean   p50   p95   p99
	//   all                5           1       1  2.92  2.90  4.90  4.90
	//   <= 102.5KB         4           0       1  2.42  2.90  3.90  3.90
	//   > 102.5KB          1           1       0  4.90  4.90  4.90  4.90
	//
	// by flow size (50% buckets)
	//   size           pct  finished  unfinished  below1  mean   p50   p95   p99
	//   1KB - 20KB     50%         3           0       1  1.93  1.90  2.90  2.90
	//   100KB - 10MB  100%         2           1       0  4.40  4.90  4.90  4.90
}
