package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestStreamMatchesWrite writes the same flows once with WriteFlows and
// once through a FlowStream in uneven batches, across a row-group
// boundary (2^20 rows), and wants the same bytes.
func TestStreamMatchesWrite(t *testing.T) {
	n := 1<<20 + 3000
	if testing.Short() {
		n = 5000
	}
	flows := make([]FlowRecord, n)
	for i := range flows {
		f := &flows[i]
		*f = FlowRecord{RunID: "r", FlowID: int64(i), Generator: "g", Src: int32(i % 7), Dst: int32(i % 5),
			SizeBytes: int64(1000 + i%977), StartNs: int64(i) * 13, IdealFctNs: 5000, InWindow: i%3 != 0}
		if i%11 != 0 {
			f.SetFinish(f.StartNs + int64(6000+i%4000))
		}
	}
	dir := t.TempDir()
	whole, streamed := filepath.Join(dir, "whole.parquet"), filepath.Join(dir, "streamed.parquet")
	if err := WriteFlows(whole, flows); err != nil {
		t.Fatal(err)
	}
	s, err := CreateFlowStream(streamed)
	if err != nil {
		t.Fatal(err)
	}
	for i, step := 0, 1; i < n; i, step = i+step, step*3%4099+1 {
		if err := s.Write(flows[i:min(i+step, n)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(whole)
	b, _ := os.ReadFile(streamed)
	if !bytes.Equal(a, b) {
		t.Errorf("streamed file: got %d bytes, want the %d of WriteFlows, byte for byte", len(b), len(a))
	}
}
