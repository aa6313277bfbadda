package simai

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/internal/textline"
)

const (
	gptFile   = "G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt"
	llamaFile = "L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt"
	microFile = "microAllReduce.txt"
)

func mustShipped(t testing.TB, name string) *Workload {
	t.Helper()
	w, err := Shipped(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// collectiveCounts counts the collectives of w as written, keyed
// "phase TOKEN bytes"; NONE columns are skipped, unknown tokens counted.
func collectiveCounts(w *Workload) map[string]int {
	got := map[string]int{}
	for i := range w.Lines {
		l := &w.Lines[i]
		for p := Fwd; p <= WG; p++ {
			c := l.Stage(p).Comm
			if c.Op == OpNone && c.Unknown == "" {
				continue
			}
			got[fmt.Sprintf("%s %s %d", p, c.Token(p), c.Bytes)]++
		}
	}
	return got
}

// TestShippedFiles checks the parser against docs/model.md §7.4's tables.
func TestShippedFiles(t *testing.T) {
	tests := []struct {
		file                string
		tp, allGPUs         int
		full                bool
		lines               int
		fwd, ig, wg, update int64 // ns
		colls               map[string]int
	}{
		{gptFile, 8, 0, false, 92, 74_645_010, 73_471_011, 60_080_012, 9_200, map[string]int{
			"fwd ALLREDUCE 20971520": 81, "fwd ALLGATHER 3248619520": 1, "fwd ALLREDUCE 327680000": 1,
			"fwd ALLREDUCE 8192": 3, "fwd ALLREDUCE 4": 4, "fwd BROADCAST 16384": 1,
			"ig ALLREDUCE 20971520": 81, "ig ALLREDUCE 3248619520": 1,
			"wg REDUCESCATTER 6497239040": 1,
		}},
		{llamaFile, 2, 0, false, 76, 32_842_123, 35_888_012, 35_888_012, 7_600, map[string]int{
			"fwd ALLREDUCE 16777216": 65, "fwd ALLGATHER 6754926592": 1, "fwd ALLREDUCE 262144000": 1,
			"fwd ALLREDUCE 8192": 3, "fwd ALLREDUCE 4": 4, "fwd BROADCAST 16384": 1,
			"ig ALLREDUCE 16777216": 65, "ig ALLREDUCE 6754926592": 1,
			"wg REDUCESCATTER 13509853184": 1,
		}},
		{microFile, 8, 8, true, 2, 1_112_000, 2, 2, 2, map[string]int{
			"fwd ALLREDUCE 16777216": 1, "fwd ALLREDUCE 67108864": 1,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			w := mustShipped(t, tt.file)
			if w.Policy != PolicyTransformer || w.TP != tt.tp || w.AllGPUs != tt.allGPUs || w.FullHeader != tt.full {
				t.Errorf("got policy %s tp %d all_gpus %d full %v, want %s %d %d %v", w.Policy, w.TP, w.AllGPUs, w.FullHeader,
					PolicyTransformer, tt.tp, tt.allGPUs, tt.full)
			}
			if len(w.Lines) != tt.lines {
				t.Fatalf("got %d lines, want %d", len(w.Lines), tt.lines)
			}
			var fwd, ig, wg, upd engine.Time
			for _, l := range w.Lines {
				fwd += l.Fwd.Compute
				ig += l.IG.Compute
				wg += l.WG.Compute
				upd += l.Update
			}
			got := [4]int64{fwd.Nanoseconds(), ig.Nanoseconds(), wg.Nanoseconds(), upd.Nanoseconds()}
			if want := [4]int64{tt.fwd, tt.ig, tt.wg, tt.update}; got != want {
				t.Errorf("got sums fwd/ig/wg/update %v ns, want %v", got, want)
			}
			if w.Compute() != fwd+ig+wg {
				t.Errorf("got Compute %v, want %v", w.Compute(), fwd+ig+wg)
			}
			if diff := cmp.Diff(tt.colls, collectiveCounts(w)); diff != "" {
				t.Errorf("collectives (-want +got):\n%s", diff)
			}
			for _, l := range w.Lines {
				for p := Fwd; p <= WG; p++ {
					c := l.Stage(p).Comm
					switch {
					case c.Op == OpNone && c.Group != GroupNone:
						t.Errorf("%s %s: no collective but group %v", l.Name, p, c.Group)
					case c.Op != OpNone && p != WG && c.Group != GroupTP:
						t.Errorf("%s %s: got group %v, want tp", l.Name, p, c.Group)
					case c.Op != OpNone && p == WG && c.Group != GroupDP:
						t.Errorf("%s %s: got group %v, want dp", l.Name, p, c.Group)
					}
				}
			}
		})
	}
}

// TestShippedMatchesData guards the copies in testdata against drift from
// the shared data directory when it is present.
func TestShippedMatchesData(t *testing.T) {
	dir := "../../../shared/data/simai"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("shared data directory not present")
	}
	for _, name := range append(ShippedNames(), "README.md") {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("testdata/%s differs from %s", name, dir)
		}
	}
}

func TestForwardMinimum(t *testing.T) {
	w := mustShipped(t, gptFile)
	tests := []struct {
		line  int
		phase Phase
		want  int64
	}{
		{0, Fwd, 16384},     // BROADCAST: no collective, size kept
		{88, Fwd, 4096},     // optimizer1: 4 B forward all-reduce runs as 4096
		{85, Fwd, 8192},     // cross_entropy1
		{4, Fwd, 20971520},  // attention_layer
		{1, WG, 6497239040}, // grad_norm reduce-scatter
		{2, IG, 3248619520}, // layernorm
		{3, IG, 20971520},   // embedding_layer
		{91, IG, 0},         // optimizer4 ig NONE
	}
	for _, tt := range tests {
		if got := w.Lines[tt.line].CommBytes(tt.phase); got != tt.want {
			t.Errorf("line %d (%s) %s: got %d bytes, want %d", tt.line, w.Lines[tt.line].Name, tt.phase, got, tt.want)
		}
	}
	if w.Lines[0].Fwd.Comm.Active() {
		t.Errorf("BROADCAST: got active, want no collective")
	}
	l := Line{IG: Stage{Comm: Comm{Op: OpAllReduce, Group: GroupTP, Bytes: 4}}}
	if got := l.CommBytes(IG); got != 4 {
		t.Errorf("ig 4 B: got %d, want 4 (the minimum is forward only)", got)
	}
}

func TestParseHeader(t *testing.T) {
	body := "\n1\nl -1 0 NONE 0 0 NONE 0 0 NONE 0 0\n"
	tests := []struct {
		name, header string
		want         Workload
	}{
		{"old", "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 8 checkpoints: 0 checkpoint_initiates: 0",
			Workload{Policy: PolicyTransformer, TP: 8, EP: 1, PP: 1, VPP: 1, GA: 1}},
		{"old minimal", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2",
			Workload{Policy: PolicyTransformer, TP: 2, EP: 1, PP: 1, VPP: 1, GA: 1}},
		{"full", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 4 pp: 2 vpp: 20 ga: 16 all_gpus: 128 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 2621440",
			Workload{Policy: PolicyTransformer, TP: 8, EP: 4, PP: 2, VPP: 20, GA: 16, AllGPUs: 128, PPComm: 2621440, FullHeader: true}},
		{"pp_comm without colon, keys reordered", "HYBRID_TRANSFORMER_FWD_IN_BCKWD pp_comm 2621440 all_gpus: 16 model_parallel_NPU_group: 8 pp: 2",
			Workload{Policy: PolicyTransformer, TP: 8, EP: 1, PP: 2, VPP: 1, GA: 1, AllGPUs: 16, PPComm: 2621440, FullHeader: true}},
		{"pp_comm float", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 pp: 2 pp_comm: 1310720.0",
			Workload{Policy: PolicyTransformer, TP: 8, EP: 1, PP: 2, VPP: 1, GA: 1, PPComm: 1310720, FullHeader: true}},
		{"checkpoint ids", "HYBRID_TRANSFORMER model_parallel_NPU_group: 1 checkpoints: 1 0 checkpoint_initiates: 1 0",
			Workload{Policy: PolicyTransformerPlain, TP: 1, EP: 1, PP: 1, VPP: 1, GA: 1, Checkpoints: []int{0}, CheckpointInitiates: []int{0}}},
		{"unknown key kept", "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 8 expert_parallel_npu_group: 1 pp: 1",
			Workload{Policy: PolicyTransformer, TP: 8, EP: 1, PP: 1, VPP: 1, GA: 1, FullHeader: true,
				ExtraHeader: []string{"expert_parallel_npu_group:", "1"}}},
		{"micro", "MICRO", Workload{Policy: PolicyMicro, TP: 1, EP: 1, PP: 1, VPP: 1, GA: 1}},
		{"bom and crlf", "\ufeffHYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4\r",
			Workload{Policy: PolicyTransformer, TP: 4, EP: 1, PP: 1, VPP: 1, GA: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Parse("h.txt", strings.NewReader(tt.header+body))
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Name = "h.txt"
			tt.want.Lines = w.Lines
			if diff := cmp.Diff(&tt.want, w); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTokens(t *testing.T) {
	tests := []struct {
		policy Policy
		phase  Phase
		token  string
		want   Comm
	}{
		{PolicyTransformer, Fwd, "ALLREDUCE", Comm{Op: OpAllReduce, Group: GroupTP, Bytes: 10}},
		{PolicyTransformer, IG, "ALLGATHER", Comm{Op: OpAllGather, Group: GroupTP, Bytes: 10}},
		{PolicyTransformer, WG, "REDUCESCATTER", Comm{Op: OpReduceScatter, Group: GroupDP, Bytes: 10}},
		{PolicyTransformer, WG, "ALLGATHER", Comm{Op: OpAllGather, Group: GroupDP, Bytes: 10}},
		{PolicyTransformer, Fwd, "ALLTOALL_EP", Comm{Op: OpAllToAll, Group: GroupEP, Bytes: 10}},
		{PolicyTransformer, IG, "ALLTOALL_EP", Comm{Op: OpAllToAll, Group: GroupEP, Bytes: 10}},
		{PolicyTransformer, WG, "ALLGATHER_DP_EP", Comm{Op: OpAllGather, Group: GroupDPEP, Bytes: 10}},
		{PolicyTransformer, WG, "REDUCESCATTER_DP_EP", Comm{Op: OpReduceScatter, Group: GroupDPEP, Bytes: 10}},
		{PolicyTransformer, Fwd, "ALLREDUCE_DP_EP", Comm{Op: OpAllReduce, Group: GroupDPEP, Bytes: 10}},
		{PolicyTransformer, Fwd, "ALLREDUCEALLTOALL", Comm{Op: OpAllReduceAllToAll, Group: GroupTP, Bytes: 10}},
		{PolicyTransformer, WG, "ALLREDUCEALLTOALL_EP", Comm{Op: OpAllReduceAllToAll, Group: GroupEP, Bytes: 10}},
		{PolicyMicro, WG, "ALLREDUCE", Comm{Op: OpAllReduce, Group: GroupWorld, Bytes: 10}},
		{PolicyTransformer, Fwd, "NONE", Comm{Bytes: 10}},
		{PolicyTransformer, Fwd, "BROADCAST", Comm{Bytes: 10, Unknown: "BROADCAST"}},
	}
	for _, tt := range tests {
		fields := []string{"NONE", "0", "NONE", "0", "NONE", "0"}
		fields[2*int(tt.phase)] = tt.token
		fields[2*int(tt.phase)+1] = "10"
		head := string(tt.policy)
		if tt.policy != PolicyMicro {
			head += " model_parallel_NPU_group: 2"
		}
		src := fmt.Sprintf("%s\n1\nx -1 1 %s %s 2 %s %s 3 %s %s 4\n", head, fields[0], fields[1], fields[2], fields[3], fields[4], fields[5])
		w, err := Parse("t.txt", strings.NewReader(src))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.phase, tt.token, err)
		}
		if got := w.Lines[0].Stage(tt.phase).Comm; got != tt.want {
			t.Errorf("%s %s %s: got %+v, want %+v", tt.policy, tt.phase, tt.token, got, tt.want)
		}
		if got := w.Lines[0].Stage(tt.phase).Comm.Token(tt.phase); got != tt.token {
			t.Errorf("%s %s: Token() = %q, want %q", tt.phase, tt.token, got, tt.token)
		}
	}
}

func TestParseErrors(t *testing.T) {
	const hdr = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2\n"
	const ok = "l -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "e.txt:1: policy: empty file"},
		{"blank header", "\n1\n", "e.txt:1: policy: empty header line"},
		{"bad policy", "DATA\n1\n", `e.txt:1: policy: unsupported "DATA" (supported: HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER, MICRO)`},
		{"no tp", "HYBRID_TRANSFORMER_FWD_IN_BCKWD ep: 1\n0\n", "e.txt:1: model_parallel_NPU_group: missing"},
		{"tp zero", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 0\n0\n", `e.txt:1: model_parallel_NPU_group: want an integer in [1, 2147483647], got "0"`},
		{"tp no value", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group:\n0\n", "e.txt:1: model_parallel_NPU_group: missing value"},
		{"duplicate", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 ep: 2\n0\n", "e.txt:1: ep: appears twice"},
		{"duplicate pp_comm", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 pp_comm 1 pp_comm: 2\n0\n", "e.txt:1: pp_comm: appears twice"},
		{"stray token", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 foo\n0\n", `e.txt:1: header: unexpected token "foo" (want key: value)`},
		{"extra key without value", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 foo:\n0\n", "e.txt:1: foo: missing value"},
		{"checkpoint ids short", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 3 1\n0\n", "e.txt:1: checkpoints: declares 3 line ids, 1 follow"},
		{"checkpoint out of range", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 5\n1\n" + ok, "e.txt:1: checkpoints: line 5 out of range [0, 1)"},
		{"pp_comm fraction", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 pp_comm: 1.5\n0\n", `e.txt:1: pp_comm: want a whole number of bytes, got "1.5"`},
		{"pp_comm negative", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 pp_comm: -1\n0\n", `e.txt:1: pp_comm: want a non-negative integer, got "-1"`},
		{"no count", hdr, "e.txt:2: layer count: missing"},
		{"bad count", hdr + "x\n", `e.txt:2: layer count: want a non-negative integer, got "x"`},
		{"two counts", hdr + "1 2\n", `e.txt:2: layer count: want one integer, got "1 2"`},
		{"too few", hdr + "3\n" + ok + ok, "e.txt:5: layer lines: line 2 declares 3, the file has 2"},
		{"too many", hdr + "1\n" + ok + "\n" + ok, "e.txt:5: layer lines: more than the 1 declared on line 2"},
		{"11 fields", hdr + "1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0\n", "e.txt:3: fields: want 12, got 11"},
		{"13 fields", hdr + "1\n" + strings.TrimSuffix(ok, "\n") + " 7\n", "e.txt:3: fields: want 12, got 13"},
		{"bad dep", hdr + "1\nl x 1 NONE 0 1 NONE 0 1 NONE 0 1\n", `e.txt:3: dep: want an integer, got "x"`},
		{"negative fwd", hdr + "1\nl -1 -1 NONE 0 1 NONE 0 1 NONE 0 1\n", `e.txt:3: fwd_ns: want an integer in [0, 9223372036854775], got "-1"`},
		{"float ig", hdr + "1\nl -1 1 NONE 0 1.5 NONE 0 1 NONE 0 1\n", `e.txt:3: ig_ns: want an integer in [0, 9223372036854775], got "1.5"`},
		{"huge wg", hdr + "1\nl -1 1 NONE 0 1 NONE 0 9223372036854776 NONE 0 1\n", `e.txt:3: wg_ns: want an integer in [0, 9223372036854775], got "9223372036854776"`},
		{"negative bytes", hdr + "1\nl -1 1 ALLREDUCE -5 1 NONE 0 1 NONE 0 1\n", `e.txt:3: fwd_bytes: want a non-negative integer, got "-5"`},
		{"bad wg bytes", hdr + "1\nl -1 1 NONE 0 1 NONE 0 1 NONE 1e3 1\n", `e.txt:3: wg_bytes: want a non-negative integer, got "1e3"`},
		{"bad update", hdr + "1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 x\n", `e.txt:3: update_ns: want an integer in [0, 9223372036854775], got "x"`},
		{"layer count above the limit", hdr + "1048577\n", "e.txt:2: layer count: 1048577 is above the limit of 1048576"},
		{"long line", hdr + "1\n" + strings.Repeat("x", textline.MaxLine+1) + "\n", "e.txt:3: line longer than 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("e.txt", strings.NewReader(tt.src))
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got error %q, want %q", err, tt.want)
			}
		})
	}
}

func TestParseBlankLines(t *testing.T) {
	src := "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2\n2\n\n a -1 1 NONE 0 1 NONE 0 1 NONE 0 1 \n\t\nb\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tNONE\t0\t1\n\n\n"
	w, err := Parse("b.txt", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Lines) != 2 || w.Lines[0].Name != "a" || w.Lines[1].Name != "b" {
		t.Errorf("got %d lines %+v, want a and b", len(w.Lines), w.Lines)
	}
}

func TestParseOp(t *testing.T) {
	tests := []struct {
		in   string
		want Op
	}{
		{"allreduce", OpAllReduce}, {"all-reduce", OpAllReduce}, {"ALLREDUCE", OpAllReduce}, {"all_reduce", OpAllReduce},
		{"reduce-scatter", OpReduceScatter}, {"ReduceScatter", OpReduceScatter}, {"all-gather", OpAllGather},
		{"all-to-all", OpAllToAll}, {"alltoall", OpAllToAll}, {"none", OpNone}, {"allreducealltoall", OpAllReduceAllToAll},
	}
	for _, tt := range tests {
		got, err := ParseOp(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseOp(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
		if back, _ := ParseOp(got.String()); back != got {
			t.Errorf("ParseOp(%q.String()) = %v, want %v", got, back, got)
		}
	}
	if _, err := ParseOp("broadcast"); err == nil {
		t.Errorf("ParseOp(broadcast): got no error")
	}
}

// A collective token that is neither SimAI's nor one AICB writes is an
// error at its line, not silently no collective (issue #15, item 9).
func TestUnknownCollectiveRejected(t *testing.T) {
	for _, tok := range []string{"NONE_EP", "allreduce", "ALLREDUCE_TP", "_EP", "ALLREDUC"} {
		src := "HYBRID_TRANSFORMER model_parallel_NPU_group: 2\n1\nx -1 1 " + tok + " 10 2 NONE 0 3 NONE 0 4\n"
		_, err := Parse("t.txt", strings.NewReader(src))
		want := `t.txt:3: fwd_coll: unknown collective "` + tok + `" (valid: NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, ALLREDUCEALLTOALL, optionally with _EP or _DP_EP, and BROADCAST, which run as no collective)`
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", tok, err, want)
		}
	}
}
