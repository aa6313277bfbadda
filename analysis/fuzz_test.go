package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds adds every file writeAll makes, whole and cut, as seeds.
func fuzzSeeds(f *testing.F) {
	dir := f.TempDir()
	r, params := sampleRun()
	must := func(err error) {
		if err != nil {
			f.Fatal(err)
		}
	}
	must(WriteFlows(filepath.Join(dir, FlowsFile), sampleFlows(20)))
	must(WriteSamples(filepath.Join(dir, SamplesFile), sampleSamples()))
	must(WriteRun(filepath.Join(dir, RunFile), r, params))
	for _, name := range []string{FlowsFile, SamplesFile, RunFile} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		must(err)
		f.Add(data)
		f.Add(data[:len(data)/2])
		f.Add(data[len(data)/2:])
	}
	f.Add([]byte("PAR1"))
	f.Add([]byte("PAR1PAR1"))
}

// FuzzDecodeFlows: arbitrary bytes never panic the flows reader, and what it
// accepts survives a write and a second read unchanged.
func FuzzDecodeFlows(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		flows, err := decodeRecords[FlowRecord](bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := encodeRecords(&buf, flows); err != nil {
			t.Fatalf("re-encode %d accepted flows: %v", len(flows), err)
		}
		again, err := decodeRecords[FlowRecord](bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil || len(again) != len(flows) {
			t.Fatalf("re-read: %d flows, %v; want %d", len(again), err, len(flows))
		}
		Analyze(flows, DefaultStepPercent, 102_500)
	})
}

// FuzzDecodeRun: arbitrary bytes never panic the run reader.
func FuzzDecodeRun(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, params, err := decodeRun(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		// What was read is writable again (names may be arbitrary in a
		// foreign file; then WriteRun must refuse, not panic).
		WriteRun(filepath.Join(t.TempDir(), RunFile), r, params)
	})
}
