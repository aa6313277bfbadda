package analysis

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestHumanSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0B"}, {1, "1B"}, {999, "999B"}, {1000, "1KB"}, {1024, "1.02KB"}, {1500, "1.5KB"},
		{10_000, "10KB"}, {102_500, "102.5KB"}, {999_940, "999.9KB"}, {999_960, "1MB"},
		{1_000_000, "1MB"}, {1_234_567, "1.23MB"}, {30_000_000, "30MB"}, {2_500_000_000, "2.5GB"},
		{-1500, "-1.5KB"},
	}
	for _, tc := range tests {
		if got := HumanSize(tc.n); got != tc.want {
			t.Errorf("HumanSize(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestFormatSummary(t *testing.T) {
	// A small WebSearch-like mix: many small flows, a few large ones, two
	// unfinished, one faster than ideal.
	var flows []FlowRecord
	sizes := []int64{500, 1200, 3000, 7000, 20_000, 50_000, 102_500, 300_000, 1_000_000, 30_000_000}
	for i := range 40 {
		size := sizes[i%len(sizes)]
		sd := 1 + float64(i%7)*0.75 + float64(size)/1e7
		switch i {
		case 3:
			sd = 0.98
		case 19, 39:
			sd = -1
		}
		flows = append(flows, flow(int64(i), size, sd))
	}
	var buf bytes.Buffer
	if err := FormatSummary(&buf, Analyze(flows, 20, 102_500)); err != nil {
		t.Fatal(err)
	}
	if err := FormatSummary(&buf, Analyze(nil, 5, 0)); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.golden", buf.Bytes())
}
