package simai

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcsim/dcsim/engine"
)

func roundTrip(t *testing.T, w *Workload) (*Workload, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := w.Write(&buf); err != nil {
		t.Fatalf("Write: %v", err)
	}
	back, err := Parse(w.Name, bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("Parse(Write): %v\n%s", err, buf.String())
	}
	return back, buf.Bytes()
}

func TestWriteRoundTripShipped(t *testing.T) {
	for _, name := range ShippedNames() {
		t.Run(name, func(t *testing.T) {
			w := mustShipped(t, name)
			back, out := roundTrip(t, w)
			if diff := cmp.Diff(w, back); diff != "" {
				t.Errorf("Parse(Write(w)) != w (-want +got):\n%s", diff)
			}
			// The AICB files are written the way AICB writes them.
			if name != microFile {
				orig, _ := shippedFS.ReadFile("testdata/" + name)
				if !bytes.Equal(out, orig) {
					t.Errorf("Write is not byte-identical to %s", name)
				}
			}
		})
	}
}

func TestWriteRoundTripGenerated(t *testing.T) {
	gpu, _ := GPUByName("a100")
	for _, m := range Models() {
		for _, p := range []Parallelism{{TP: 8, DP: 4}, {TP: 8, PP: 2, DP: 2, GA: 2, OverlapGradReduce: true}, {TP: 1, DP: 8, DPAllReduce: true}} {
			w, err := Generate(m, p, gpu)
			if err != nil {
				t.Fatal(err)
			}
			back, _ := roundTrip(t, w)
			if diff := cmp.Diff(w, back); diff != "" {
				t.Errorf("%s: Parse(Write(w)) != w (-want +got):\n%s", w.Name, diff)
			}
		}
	}
}

func TestWriteHeaders(t *testing.T) {
	line := []Line{{Name: "x", Dep: -1, WG: Stage{Comm: Comm{Op: OpAllReduce, Group: GroupWorld, Bytes: 4096}}, Update: engine.Nanosecond}}
	tests := []struct {
		name string
		w    Workload
		want string
	}{
		{"micro", Workload{Policy: PolicyMicro, TP: 1, EP: 1, PP: 1, VPP: 1, GA: 1, Lines: line},
			"MICRO\n1\nx\t-1\t0\tNONE\t0\t0\tNONE\t0\t0\tALLREDUCE\t4096\t1\n"},
		{"old", Workload{Policy: PolicyTransformer, TP: 4, EP: 1, PP: 1, VPP: 1, GA: 1},
			"HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 4 checkpoints: 0 checkpoint_initiates: 0\n0\n"},
		{"non-default pp forces full", Workload{Policy: PolicyTransformer, TP: 4, EP: 1, PP: 2, VPP: 1, GA: 1, PPComm: 8},
			"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 ep: 1 pp: 2 vpp: 1 ga: 1 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 8\n0\n"},
		{"full with extras", Workload{Policy: PolicyTransformer, TP: 8, EP: 1, PP: 1, VPP: 8, GA: 1, AllGPUs: 8, FullHeader: true, ExtraHeader: []string{"foo:", "bar"}},
			"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 1 vpp: 8 ga: 1 all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0 foo: bar pp_comm: 0\n0\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := tt.w.Write(&buf); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if buf.String() != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, buf.String(), tt.want)
		}
	}
}

func TestWriteInvalid(t *testing.T) {
	base := func() *Workload {
		return &Workload{Policy: PolicyTransformer, TP: 2, EP: 1, PP: 1, VPP: 1, GA: 1,
			Lines: []Line{{Name: "l", Dep: -1, Fwd: Stage{Comm: Comm{Op: OpAllReduce, Group: GroupTP, Bytes: 10}}}}}
	}
	tests := []struct {
		name   string
		mutate func(w *Workload)
		want   string
	}{
		{"policy", func(w *Workload) { w.Policy = "DATA" }, `policy: unsupported "DATA"`},
		{"tp", func(w *Workload) { w.TP = 0 }, "model_parallel_NPU_group: must be >= 1, got 0"},
		{"name with space", func(w *Workload) { w.Lines[0].Name = "a b" }, `line 0 (a b): name: must be one non-empty token, got "a b"`},
		{"empty name", func(w *Workload) { w.Lines[0].Name = "" }, "name: must be one non-empty token"},
		{"fractional ns", func(w *Workload) { w.Lines[0].IG.Compute = 1500 }, "ig_ns: must be whole non-negative nanoseconds, got 1500ps"},
		{"negative update", func(w *Workload) { w.Lines[0].Update = -engine.Nanosecond }, "update_ns: must be whole non-negative nanoseconds"},
		{"negative bytes", func(w *Workload) { w.Lines[0].Fwd.Comm.Bytes = -1 }, "fwd_bytes: must be >= 0, got -1"},
		{"dp in fwd", func(w *Workload) { w.Lines[0].Fwd.Comm.Group = GroupDP }, "fwd_coll: group dp cannot be written in the fwd column"},
		{"world in wg", func(w *Workload) {
			w.Lines[0].WG.Comm = Comm{Op: OpAllReduce, Group: GroupWorld, Bytes: 1}
		}, "wg_coll: group world cannot be written in the wg column"},
		{"none with group", func(w *Workload) { w.Lines[0].Fwd.Comm.Op = OpNone }, "fwd_coll: no collective but group tp"},
		{"known token as unknown", func(w *Workload) { w.Lines[0].IG.Comm = Comm{Unknown: "ALLREDUCE"} }, `ig_coll: "ALLREDUCE" is not an unknown token`},
		{"op with unknown", func(w *Workload) { w.Lines[0].Fwd.Comm.Unknown = "X" }, `fwd_coll: op allreduce with unknown token "X"`},
		{"checkpoint range", func(w *Workload) { w.Checkpoints = []int{1} }, "checkpoints: line 1 out of range [0, 1)"},
		{"extra key", func(w *Workload) { w.ExtraHeader = []string{"ep:", "1"} }, `header: "ep:" is not an unknown key ending in ':'`},
	}
	for _, tt := range tests {
		w := base()
		tt.mutate(w)
		err := w.Write(&bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}
