package simai

import (
	"testing"

	"github.com/dcsim/dcsim/engine"
)

// BenchmarkRunGPT13B runs one iteration of the GPT-13B file on 128 GPUs
// (TP 8, DP 16) over the ideal network: the executor's own cost per
// transfer, heap of RunIdeal included.
func BenchmarkRunGPT13B(b *testing.B) {
	w := mustShipped(b, gptFile)
	cfg := DefaultRunConfig()
	cfg.GPUs = 128
	var transfers int
	for b.Loop() {
		r := newRun(b, w, cfg)
		runIdeal(b, r, LinkTime(100*engine.Gbps, 2*engine.Microsecond))
		transfers, _ = r.Transfers()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(transfers), "ns/transfer")
	b.ReportMetric(float64(transfers), "transfers")
}
