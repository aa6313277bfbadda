package analysis

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/parquet-go/parquet-go"
)

// sampleFlows makes n flows from a fixed seed, a mix of finished and
// unfinished, in and out of the window.
func sampleFlows(n int) []FlowRecord {
	rng := rand.New(rand.NewPCG(1, 2))
	flows := make([]FlowRecord, n)
	for i := range flows {
		f := FlowRecord{
			RunID: "run-0001", FlowID: int64(i), Generator: []string{"cloud", "incast"}[i%2],
			Tag: fmt.Sprintf("step%d", i%3), Src: int32(rng.IntN(128)), Dst: int32(rng.IntN(128)),
			QP: int64(rng.IntN(1000)), PriorityClass: int32(1 + i%7), SizeBytes: 1 + rng.Int64N(30_000_000),
			StartNs: rng.Int64N(10_000_000), IdealFctNs: 8203 + rng.Int64N(100_000),
			InWindow: i%5 != 0, RetransmittedBytes: int64(i%4) * 1000,
		}
		if i%9 != 4 {
			f.SetFinish(f.StartNs + f.IdealFctNs/2 + rng.Int64N(1_000_000))
		}
		flows[i] = f
	}
	return flows
}

func sampleRun() (RunRecord, []Param) {
	r := RunRecord{
		RunID: "run-0001", Scenario: "default", Scheduler: "storm", CC: "dcqcn", Workload: "cloud", Load: ptr(0.5),
		Seed: 7, Version: "v0.1.0", SimTimeNs: 12_345_678, WallSeconds: 3.25, Events: 99_999_999,
		FlowsTotal: 1000, FlowsDone: 990, AchievedLoad: 0.49, MeanSlowdown: 2.5, P50Slowdown: 1.5,
		P95Slowdown: 8, P99Slowdown: 20.25, FlowsBelowOne: 3, BytesDropped: 0, PFCPauseFrames: 12,
		NACKs: 4, RTOTimeouts: 1, CNPs: 300,
		Counters: map[string]int64{"storm.guard_stalls": 17, "fabric.ecn_marks": 4000, "rnic.grants": 12, "a": -1},
	}
	params := []Param{
		{"workload.load", 0.5}, {"nic.scheduler", "storm"}, {"nic.storm.slots_backlog", int64(7)}, {"switch.pfc", true},
	}
	return r, params
}

func sampleIterations() []IterationRecord {
	return []IterationRecord{
		{RunID: "r", Iteration: 0, StartNs: 0, EndNs: 1000, DurationNs: 1000, ComputeNs: 600, ExposedCommNs: 400},
		{RunID: "r", Iteration: 1, StartNs: 1000, EndNs: 2100, DurationNs: 1100, ComputeNs: 600, ExposedCommNs: 500},
	}
}

func sampleBatches() []BatchRecord {
	return []BatchRecord{
		{RunID: "r", Batch: 0, Pair: 3, SrcRank: 1, DstRank: 2, Src: 1, Dst: 2, Particles: 64, Bytes: 8192, Writes: 1,
			HeadReads: 1, Hops: 2, Packets: 9, Reordered: 2, ReadPostedNs: 0, PostedNs: 4019, DataVisibleNs: 6800,
			TailExecutedNs: 6700, TailVisibleNs: 6700, CompletedNs: 8800, PublishLatencyNs: 2681, Violation: true, Stale: 5},
		{RunID: "r", Batch: 1, Pair: 0, Src: 5, Dst: 4, Particles: 64, Bytes: 8192, Writes: 1, Packets: 9,
			ReadPostedNs: -1, PostedNs: 0, DataVisibleNs: 2700, TailExecutedNs: 2700, TailVisibleNs: 2700, CompletedNs: 4700, PublishLatencyNs: 2700},
	}
}

func sampleCollectives() []CollectiveRecord {
	return []CollectiveRecord{
		{RunID: "r", Iteration: 0, Name: "layer0.grad", Op: "allreduce", Group: "dp0", Bytes: 1 << 26, StartNs: 10, EndNs: 900},
		{RunID: "r", Iteration: 0, Name: "layer1.act", Op: "allgather", Group: "tp3", Bytes: 1 << 20, StartNs: 20, EndNs: 300},
	}
}

func sampleSamples() []SampleRecord {
	return []SampleRecord{
		{RunID: "r", TimeNs: 1000, Component: "leaf0.port3", Metric: "queue_bytes", Value: 12345},
		{RunID: "r", TimeNs: 1000, Component: "host5.qp2", Metric: "rate_bps", Value: 5e10},
		{RunID: "r", TimeNs: 2000, Component: "leaf0.port3", Metric: "pause_fraction", Value: math.NaN()},
	}
}

// writeAll writes one of every file into dir.
func writeAll(t *testing.T, dir string) {
	t.Helper()
	r, params := sampleRun()
	for _, err := range []error{
		WriteFlows(filepath.Join(dir, FlowsFile), sampleFlows(3000)),
		WriteIterations(filepath.Join(dir, IterationsFile), sampleIterations()),
		WriteCollectives(filepath.Join(dir, CollectivesFile), sampleCollectives()),
		WriteSamples(filepath.Join(dir, SamplesFile), sampleSamples()),
		WriteBatches(filepath.Join(dir, BatchesFile), sampleBatches()),
		WriteRun(filepath.Join(dir, RunFile), r, params),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

var allFiles = []string{FlowsFile, IterationsFile, CollectivesFile, SamplesFile, BatchesFile, RunFile}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	writeAll(t, dir)
	opts := cmp.Options{cmpopts.EquateNaNs(), cmpopts.EquateEmpty()}
	check := func(name string, want, got any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		if diff := cmp.Diff(want, got, opts); diff != "" {
			t.Errorf("%s round trip mismatch (-want +got):\n%s", name, diff)
		}
	}
	flows, err := ReadFlows(filepath.Join(dir, FlowsFile))
	check(FlowsFile, sampleFlows(3000), flows, err)
	its, err := ReadIterations(filepath.Join(dir, IterationsFile))
	check(IterationsFile, sampleIterations(), its, err)
	cs, err := ReadCollectives(filepath.Join(dir, CollectivesFile))
	check(CollectivesFile, sampleCollectives(), cs, err)
	ss, err := ReadSamples(filepath.Join(dir, SamplesFile))
	check(SamplesFile, sampleSamples(), ss, err)
	bs, err := ReadBatches(filepath.Join(dir, BatchesFile))
	check(BatchesFile, sampleBatches(), bs, err)

	wantRun, wantParams := sampleRun()
	gotRun, gotParams, err := ReadRun(filepath.Join(dir, RunFile))
	check(RunFile, wantRun, gotRun, err)
	// Values come back normalised: ints as int64, floats as float64.
	check(RunFile+" params", wantParams, gotParams, nil)

	// Nullable columns really are null for an unfinished flow.
	for _, f := range flows {
		if (f.FinishNs == nil) != (f.FctNs == nil) || (f.FinishNs == nil) != (f.Slowdown == nil) {
			t.Fatalf("flow %d: finish %v, fct %v, slowdown %v: want all set or all null", f.FlowID, f.FinishNs, f.FctNs, f.Slowdown)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// A run whose workload takes no load writes a null load column, which
// reads back as nil (and as NULL in SQL, NaN-free in pandas).
func TestRunNullLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), RunFile)
	r, _ := sampleRun()
	r.Load = nil
	if err := WriteRun(path, r, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Load != nil {
		t.Fatalf("load read back as %v, want null", *got.Load)
	}
	if diff := cmp.Diff(r, got); diff != "" {
		t.Fatalf("run record changed (-want +got):\n%s", diff)
	}
}

func TestRunParamsNormalised(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, RunFile)
	in := []Param{
		{"a.int", 3}, {"a.int32", int32(-4)}, {"a.uint16", uint16(5)}, {"a.float32", float32(0.25)},
		{"a.time", engine.Microsecond}, {"a.rate", 100 * engine.Gbps}, {"a.bool", false}, {"a.string", ""},
	}
	want := []Param{
		{"a.int", int64(3)}, {"a.int32", int64(-4)}, {"a.uint16", int64(5)}, {"a.float32", 0.25},
		{"a.time", "1us"}, {"a.rate", "100Gbps"}, {"a.bool", false}, {"a.string", ""},
	}
	if err := WriteRun(path, RunRecord{}, in); err != nil {
		t.Fatal(err)
	}
	_, got, err := ReadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("params mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteRunRejects(t *testing.T) {
	tests := []struct {
		name    string
		params  []Param
		wantErr string
	}{
		{"pinned name", []Param{{"load", 0.5}}, `swept parameter "load": clashes with a pinned run column`},
		{"twice", []Param{{"a.b", 1}, {"a.b", 2}}, `swept parameter "a.b": given twice`},
		{"empty name", []Param{{"", 1}}, "swept parameter 0: empty name"},
		{"comma", []Param{{"a,b", 1}}, `swept parameter 0: name "a,b": character ',' not allowed`},
		{"quote", []Param{{`a"b`, 1}}, `character '"' not allowed`},
		{"slice value", []Param{{"a.b", []int{1}}}, `swept parameter "a.b": value [1] of type []int`},
		{"nil value", []Param{{"a.b", nil}}, `swept parameter "a.b": value <nil>`},
		{"huge uint", []Param{{"a.b", uint64(math.MaxUint64)}}, "above the int64 range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), RunFile)
			err := WriteRun(path, RunRecord{}, tc.params)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("WriteRun error = %v, want one containing %q", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if _, statErr := os.Stat(path); !os.IsNotExist(statErr) {
				t.Errorf("WriteRun left %s behind after an error", path)
			}
		})
	}
}

// Same records => byte-identical files, whatever the Go map order of the
// counters (Go randomises it on every range, so five writes of 200
// counters would differ if run.parquet did not sort them).
func TestDeterministicBytes(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeAll(t, a)
	r, params := sampleRun()
	counters := map[string]int64{}
	for i := range 200 {
		counters[fmt.Sprintf("c%03d", 199-i)] = int64(i)
	}
	r.Counters = counters
	writeAll(t, b)
	for _, name := range allFiles {
		x, err1 := os.ReadFile(filepath.Join(a, name))
		y, err2 := os.ReadFile(filepath.Join(b, name))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s: two writes of the same records differ (%d vs %d bytes)", name, len(x), len(y))
		}
	}
	var first []byte
	for i := range 5 {
		path := filepath.Join(a, fmt.Sprintf("run%d.parquet", i))
		if err := WriteRun(path, r, params); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Fatalf("run.parquet with 200 counters: write %d differs from write 0", i)
		}
	}
}

// TestSchema pins the schema of every file: column names, order,
// repetition, physical and logical types, and the compression codec. A
// change here changes what users' notebooks read; update the golden file
// (go test -update) only on purpose, and the doc.go table with it.
func TestSchema(t *testing.T) {
	dir := t.TempDir()
	writeAll(t, dir)
	var out bytes.Buffer
	for _, name := range allFiles {
		pf := openTestFile(t, filepath.Join(dir, name))
		md := pf.Metadata()
		fmt.Fprintf(&out, "== %s (created_by %q)\n", name, md.CreatedBy)
		schema := pf.Schema()
		for i, path := range schema.Columns() {
			leaf, _ := schema.Lookup(path...)
			codec := md.RowGroups[0].Columns[i].MetaData.Codec
			fmt.Fprintf(&out, "%-28s %-40s %s\n", strings.Join(path, "."), describeNode(leaf.Node), codec)
		}
	}
	golden(t, "schema.golden", out.Bytes())
}

func openTestFile(t *testing.T, path string) *parquet.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	writeAll(t, dir)
	// A parquet file lacking a pinned column: flows read as iterations.
	_, err := ReadIterations(filepath.Join(dir, FlowsFile))
	wantErr(t, err, "column iteration: missing", FlowsFile)
	// A column with the wrong type: samples.time_ns is INT64, flows'
	// start_ns too, but samples.value is DOUBLE where a struct wants INT64.
	type wrong struct {
		Value int64 `parquet:"value"`
	}
	_, err = readRecords[wrong](filepath.Join(dir, SamplesFile))
	wantErr(t, err, "column value: got required DOUBLE, want required INT64 (INT(64,true))", SamplesFile)
	// Flows read as a run: not one row.
	_, _, err = ReadRun(filepath.Join(dir, FlowsFile))
	wantErr(t, err, "run file has 3000 rows, want 1", FlowsFile)
	// Not parquet at all.
	bad := filepath.Join(dir, "bad.parquet")
	os.WriteFile(bad, []byte("name: default\n"), 0o644)
	_, err = ReadFlows(bad)
	wantErr(t, err, "not a parquet file", "bad.parquet")
	_, _, err = ReadRun(bad)
	wantErr(t, err, "not a parquet file", "bad.parquet")
	_, err = ReadFlows(filepath.Join(dir, "missing.parquet"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFlows(missing) = %v, want a not-exist error", err)
	}
	// Truncated files: every prefix fails cleanly.
	data, _ := os.ReadFile(filepath.Join(dir, RunFile))
	for _, n := range []int{0, 4, len(data) / 2, len(data) - 8, len(data) - 1} {
		if _, _, err := decodeRun(bytes.NewReader(data[:n]), int64(n)); err == nil {
			t.Errorf("decodeRun of %d of %d bytes: no error", n, len(data))
		}
	}
}

func wantErr(t *testing.T, err error, want, file string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) {
		t.Errorf("error = %v, want one containing %q and naming %s", err, want, file)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFileAtomic(path, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("partial", 1<<18)) // past the buffer
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("WriteFileAtomic error = %v, want boom naming %s", err, path)
	}
	assertDir(t, dir, map[string]string{"out.txt": "old"})

	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	assertDir(t, dir, map[string]string{"out.txt": "new"})
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", st.Mode().Perm())
	}

	// A directory that does not exist: an error, nothing created.
	err = WriteFileAtomic(filepath.Join(dir, "no", "such.txt"), func(io.Writer) error { return nil })
	if err == nil {
		t.Error("WriteFileAtomic into a missing directory: no error")
	}
}

// A parquet write that fails midway (an unsupported value deep in the
// encoder) must leave neither the target nor a temporary file.
func TestWriteRunFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	err := WriteRun(filepath.Join(dir, RunFile), RunRecord{}, []Param{{"x", struct{}{}}})
	if err == nil {
		t.Fatal("WriteRun with a struct value: no error")
	}
	assertDir(t, dir, nil)
}

// assertDir checks that dir holds exactly the files given, with contents.
func assertDir(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		got[e.Name()] = string(b)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("directory content mismatch (-want +got):\n%s", diff)
	}
}

func TestEmptyFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FlowsFile)
	if err := WriteFlows(path, nil); err != nil {
		t.Fatal(err)
	}
	flows, err := ReadFlows(path)
	if err != nil || len(flows) != 0 {
		t.Errorf("ReadFlows(empty file) = %d flows, %v; want 0, nil", len(flows), err)
	}
	if err := WriteRun(filepath.Join(dir, RunFile), RunRecord{}, nil); err != nil {
		t.Fatal(err)
	}
	r, params, err := ReadRun(filepath.Join(dir, RunFile))
	if err != nil || len(params) != 0 || r.Counters != nil {
		t.Errorf("ReadRun(zero record) = %+v, %v, %v; want zero record, no params", r, params, err)
	}
}

func TestSetFlowStats(t *testing.T) {
	flows := []FlowRecord{flow(1, 10, 0.5), flow(2, 10, 3), flow(3, 10, -1), flow(4, 10, 2)}
	flows[3].InWindow = false
	var r RunRecord
	r.SetFlowStats(flows)
	want := RunRecord{FlowsTotal: 4, FlowsDone: 3, MeanSlowdown: 2, P50Slowdown: 3, P95Slowdown: 3, P99Slowdown: 3, FlowsBelowOne: 1}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("SetFlowStats mismatch (-want +got):\n%s", diff)
	}
}

func TestSetFinish(t *testing.T) {
	f := FlowRecord{FlowID: 3, StartNs: 1000, IdealFctNs: 8203}
	f.SetFinish(1000 + 4000)
	if *f.FinishNs != 5000 || *f.FctNs != 4000 || *f.Slowdown != 4000.0/8203 {
		t.Errorf("SetFinish: finish %d, fct %d, slowdown %v; want 5000, 4000, %v (unclamped)", *f.FinishNs, *f.FctNs, *f.Slowdown, 4000.0/8203)
	}
	for _, bad := range []FlowRecord{{StartNs: 10, IdealFctNs: 0}, {StartNs: 10_000, IdealFctNs: 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetFinish(5000) on %+v did not panic", bad)
				}
			}()
			bad.SetFinish(5000)
		}()
	}
}

func TestRunColumns(t *testing.T) {
	got := RunColumns()
	if len(got) != 26 || got[0] != "run_id" || got[1] != "config_hash" || got[25] != "counters" {
		t.Errorf("RunColumns() = %v, want 26 columns from run_id, config_hash to counters", got)
	}
}

// ReadFlowStats, batch by batch, gives what Stats gives on the whole file
// (more rows than one 4096-row batch, unfinished and out-of-window flows
// among them), and AnalyzeStats on it equals Analyze on the records.
func TestReadFlowStats(t *testing.T) {
	dir := t.TempDir()
	writeAll(t, dir)
	path := filepath.Join(dir, "big.parquet")
	if err := WriteFlows(path, sampleFlows(10_000)); err != nil {
		t.Fatal(err)
	}
	flows, err := ReadFlows(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadFlowStats(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Stats(flows)
	if len(want) == len(flows) || len(want) == 0 {
		t.Fatalf("%d of %d flows in window: the sample should have both kinds", len(want), len(flows))
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
		t.Fatalf("ReadFlowStats differs from Stats(ReadFlows) (-want +got):\n%s", diff)
	}
	a, b := Analyze(flows, 5, 100_000), AnalyzeStats(got, 5, 100_000)
	if diff := cmp.Diff(a, b, cmpopts.EquateNaNs()); diff != "" {
		t.Fatalf("AnalyzeStats differs from Analyze (-want +got):\n%s", diff)
	}
	if _, err := ReadFlowStats(filepath.Join(dir, RunFile)); err == nil {
		t.Fatal("ReadFlowStats of run.parquet: no error")
	}
}

// AnalyzeParts over pieces equals AnalyzeStats over their concatenation,
// ties in size across pieces included (bucket edges keep input order).
func TestAnalyzePartsEqualsConcatenation(t *testing.T) {
	all := Stats(sampleFlows(5000))
	for i := range all {
		all[i].SizeBytes = all[i].SizeBytes % 50 // many ties, across parts too
	}
	parts := [][]FlowStat{all[:1], all[1:1700], nil, all[1700:]}
	want := AnalyzeStats(all, 5, 20)
	got := AnalyzeParts(parts, 5, 20)
	if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
		t.Fatalf("AnalyzeParts differs (-concatenated +parts):\n%s", diff)
	}
}

// Two files of one run's rows under different run ids, NaN samples
// included, are the same rows; another value is not.
func TestSameRows(t *testing.T) {
	rows := func(id string, v float64) []SampleRecord {
		return []SampleRecord{{RunID: id, TimeNs: 1, Metric: "m", Value: math.NaN()}, {RunID: id, TimeNs: 2, Metric: "m", Value: v}}
	}
	write := func(dir string, r []SampleRecord) string {
		path := filepath.Join(dir, SamplesFile)
		if err := WriteSamples(path, r); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := write(t.TempDir(), rows("0190a1b2-0000-7000-8000-000000000001", 3))
	for _, tc := range []struct {
		id   string
		v    float64
		same bool
	}{{"another-id", 3, true}, {"another-id", 4, false}} {
		same, err := SameRows(a, write(t.TempDir(), rows(tc.id, tc.v)))
		if err != nil || same != tc.same {
			t.Errorf("run id %s, value %v: got same %v (%v), want %v", tc.id, tc.v, same, err, tc.same)
		}
	}
	if _, err := SameRows(filepath.Join(t.TempDir(), RunFile), a); err == nil {
		t.Error("SameRows of run.parquet: no error")
	}
}

// A run.parquet written before config_hash existed still reads, with an
// empty config_hash: users' earlier results stay readable.
func TestReadRunWithoutConfigHash(t *testing.T) {
	var fields []reflect.StructField
	for f := range runType.Fields() {
		if columnName(f) != "config_hash" {
			fields = append(fields, f)
		}
	}
	old := reflect.New(reflect.StructOf(fields)).Elem()
	old.FieldByName("RunID").SetString("0123456789abcdef")
	old.FieldByName("Scenario").SetString("default")
	path := filepath.Join(t.TempDir(), RunFile)
	err := WriteFileAtomic(path, func(w io.Writer) error {
		pw := parquet.NewWriter(w, parquet.SchemaOf(old.Interface()))
		if err := pw.Write(old.Interface()); err != nil {
			return err
		}
		return pw.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := ReadRun(path)
	if err != nil || r.RunID != "0123456789abcdef" || r.ConfigHash != "" || r.Scenario != "default" {
		t.Errorf("got %q %q %q, %v; want the run id, no config_hash, default", r.RunID, r.ConfigHash, r.Scenario, err)
	}
}
