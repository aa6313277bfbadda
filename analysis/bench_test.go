package analysis

import (
	"bytes"
	"path/filepath"
	"testing"
)

// BenchmarkEncodeFlows measures encoding 100k flows to parquet in memory
// (no disk, no fsync).
func BenchmarkEncodeFlows(b *testing.B) {
	flows := sampleFlows(100_000)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := encodeRecords(&buf, flows); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/float64(len(flows)), "B/flow")
}

// BenchmarkReadFlows measures reading back 100k flows from a file.
func BenchmarkReadFlows(b *testing.B) {
	path := filepath.Join(b.TempDir(), FlowsFile)
	if err := WriteFlows(path, sampleFlows(100_000)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ReadFlows(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSummarize measures Analyze over 100k flows.
func BenchmarkAnalyze(b *testing.B) {
	flows := sampleFlows(100_000)
	for b.Loop() {
		Analyze(flows, DefaultStepPercent, 102_500)
	}
}
