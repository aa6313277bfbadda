package simai

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dcsim/dcsim/engine"
)

func mustModel(t testing.TB, name string) Model {
	t.Helper()
	m, err := ModelByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustGenerate(t testing.TB, m Model, p Parallelism, gpuName string) *Workload {
	t.Helper()
	gpu, err := GPUByName(gpuName)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Generate(m, p, gpu)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestModelParams checks the parameter counts of the whole models (TP 1)
// against their published sizes: LLaMA's exactly (the Hugging Face
// checkpoints hold 6,738,415,616 and 65,285,660,672), GPT-3's within 2% of
// the nominal 13B and 175B (Megatron's layout; hidden 5120 instead of the
// paper's 5140 puts 13B at 12.85B).
func TestModelParams(t *testing.T) {
	tests := []struct {
		name  string
		exact int64
		near  float64
	}{
		{"gpt3-13b", 0, 13e9}, {"gpt3-175b", 0, 175e9},
		{"llama-7b", 6_738_415_616, 0}, {"llama-65b", 65_285_660_672, 0},
	}
	for _, tt := range tests {
		got := mustModel(t, tt.name).Params(Parallelism{}).Total
		if tt.exact != 0 && got != tt.exact {
			t.Errorf("%s: got %d parameters, want %d", tt.name, got, tt.exact)
		}
		if tt.near != 0 && math.Abs(float64(got)/tt.near-1) > 0.02 {
			t.Errorf("%s: got %d parameters, want within 2%% of %.0f", tt.name, got, tt.near)
		}
	}
	var names []string
	for _, m := range Models() {
		names = append(names, m.Name)
	}
	if want := []string{"gpt3-13b", "gpt3-175b", "llama-7b", "llama-65b", "mixtral-8x7b"}; !cmp.Equal(names, want) {
		t.Errorf("got models %v, want %v", names, want)
	}
	if PaddedVocab(50257, 8) != 51200 || PaddedVocab(32000, 2) != 32000 || PaddedVocab(32000, 8) != 32768 {
		t.Errorf("PaddedVocab: got %d %d %d, want 51200 32000 32768", PaddedVocab(50257, 8), PaddedVocab(32000, 2), PaddedVocab(32000, 8))
	}
}

// aicbParams is the per-rank parameter count that AICB's July 2024 mocked
// Megatron model gives (inferred from the shipped files, which it
// reproduces exactly): transformer GEMM weights only, a word embedding
// of 2*V/TP x h with V unpadded, and a position table s x h.
func aicbParams(m Model, tp int) int64 {
	h, f, v, s, t := int64(m.Hidden), int64(m.FFN), int64(m.Vocab), int64(m.SeqLen), int64(tp)
	gemms := int64(2)
	if m.SwiGLU {
		gemms = 3
	}
	return int64(m.Layers)*(4*h*h+gemms*h*f)/t + 2*v*h/t + s*h
}

// TestGenerateVsShipped compares the generated communication with the
// AICB files; every difference is listed in doc.go.
func TestGenerateVsShipped(t *testing.T) {
	gpt := mustModel(t, "gpt3-13b")
	gpt32k := gpt
	gpt32k.Vocab = 32000 // AICB generated its GPT-13B file with LLaMA's vocabulary
	llama := mustModel(t, "llama-7b")
	tests := []struct {
		file    string
		m       Model
		aicbM   Model
		p       Parallelism
		aicbP   int64 // AICB's per-rank parameters
		params  int64 // ours
		shipped map[string]int
		gen     map[string]int
	}{
		{gptFile, gpt, gpt32k, Parallelism{TP: 8, DP: 16}, 1_624_309_760, 1_617_536_000,
			map[string]int{
				"fwd ALLREDUCE 20971520": 81, "ig ALLREDUCE 20971520": 81, "fwd ALLREDUCE 8192": 3, "fwd ALLREDUCE 4": 4,
				"fwd BROADCAST 16384": 1, "fwd ALLGATHER 3248619520": 1, "ig ALLREDUCE 3248619520": 1,
				"fwd ALLREDUCE 327680000": 1, "wg REDUCESCATTER 6497239040": 1,
			},
			map[string]int{
				"fwd ALLREDUCE 20971520": 81, "ig ALLREDUCE 20971520": 81, "fwd ALLREDUCE 8192": 3, "fwd ALLREDUCE 4": 4,
				"wg ALLGATHER 3235072000": 1, "wg REDUCESCATTER 6470144000": 1,
			}},
		{llamaFile, llama, llama, Parallelism{TP: 2, DP: 64}, 3_377_463_296, 3_369_340_928,
			map[string]int{
				"fwd ALLREDUCE 16777216": 65, "ig ALLREDUCE 16777216": 65, "fwd ALLREDUCE 8192": 3, "fwd ALLREDUCE 4": 4,
				"fwd BROADCAST 16384": 1, "fwd ALLGATHER 6754926592": 1, "ig ALLREDUCE 6754926592": 1,
				"fwd ALLREDUCE 262144000": 1, "wg REDUCESCATTER 13509853184": 1,
			},
			map[string]int{
				"fwd ALLREDUCE 16777216": 65, "ig ALLREDUCE 16777216": 65, "fwd ALLREDUCE 8192": 3, "fwd ALLREDUCE 4": 4,
				"wg ALLGATHER 6738681856": 1, "wg REDUCESCATTER 13477363712": 1,
			}},
	}
	for _, tt := range tests {
		shipped := mustShipped(t, tt.file)
		gen := mustGenerate(t, tt.m, tt.p, "a100")
		if diff := cmp.Diff(tt.shipped, collectiveCounts(shipped)); diff != "" {
			t.Errorf("%s shipped (-want +got):\n%s", tt.file, diff)
		}
		if diff := cmp.Diff(tt.gen, collectiveCounts(gen)); diff != "" {
			t.Errorf("%s generated (-want +got):\n%s", gen.Name, diff)
		}
		if got := aicbParams(tt.aicbM, tt.p.TP); got != tt.aicbP || 2*got != shipped.Lines[1].Fwd.Comm.Bytes || 4*got != shipped.Lines[1].WG.Comm.Bytes {
			t.Errorf("%s: AICB formula gives %d parameters, want %d = AG/2 = RS/4 of the file", tt.file, got, tt.aicbP)
		}
		if got := tt.m.Params(tt.p).Total; got != tt.params {
			t.Errorf("%s: got %d parameters per rank, want %d", gen.Name, got, tt.params)
		}
		// The embedding-gradient all-reduce AICB writes is 2 x V x h with V = 32000.
		if got := shipped.Lines[len(shipped.Lines)-8].Fwd.Comm.Bytes; got != 2*32000*int64(tt.m.Hidden) {
			t.Errorf("%s: embedding_norm %d B, want 2*32000*h", tt.file, got)
		}
		var sCompute, gCompute engine.Time
		for _, l := range shipped.Lines {
			sCompute += l.Fwd.Compute + l.IG.Compute + l.WG.Compute
		}
		for _, l := range gen.Lines {
			gCompute += l.Fwd.Compute + l.IG.Compute + l.WG.Compute
		}
		t.Logf("%s: compute per iteration shipped %v, generated (A100 x %.2f) %v", tt.file, sCompute, DefaultEfficiency, gCompute)
		for _, name := range []string{"attention_layer", "mlp_layer"} {
			s, g := findLine(shipped, name), findLine(gen, name)
			t.Logf("  %s fwd/ig/wg: shipped %d/%d/%d ns, generated %d/%d/%d ns", name,
				s.Fwd.Compute.Nanoseconds(), s.IG.Compute.Nanoseconds(), s.WG.Compute.Nanoseconds(),
				g.Fwd.Compute.Nanoseconds(), g.IG.Compute.Nanoseconds(), g.WG.Compute.Nanoseconds())
		}
	}
}

func findLine(w *Workload, name string) Line {
	for _, l := range w.Lines {
		if l.Name == name {
			return l
		}
	}
	return Line{}
}

// TestGenerateCompute: the compute times add up to the FLOPs of one
// iteration at the effective rate: per micro-batch and rank, layers x
// (3 x (8bsh^2 + gemms*b*s*h*f) + 3 x 4bs^2h) + 3 x 2bshV, over TP.
func TestGenerateCompute(t *testing.T) {
	for _, m := range Models() {
		for _, gpu := range GPUs() {
			p := Parallelism{TP: 8, PP: 2, DP: 2, GA: 3}
			w, err := Generate(m, p, gpu)
			if err != nil {
				t.Fatal(err)
			}
			b, s, h, f := float64(m.MicroBatch), float64(m.SeqLen), float64(m.Hidden), float64(m.FFN)
			gemms := 4.0
			if m.SwiGLU {
				gemms = 6
			}
			if m.Experts > 0 {
				gemms *= float64(m.TopK) // every token through TopK experts
			}
			layer := 3*(8*b*s*h*h+gemms*b*s*h*f) + 3*4*b*s*s*h
			fl := float64(p.GA) * (float64(m.Layers/p.PP)*layer + 3*2*b*s*h*float64(PaddedVocab(m.Vocab, p.TP))) / float64(p.TP)
			want := fl / (gpu.PeakFLOPS * gpu.Efficiency) * 1e9
			got := float64(w.Compute().Nanoseconds())
			// Each line's time is rounded to the ns: at most 0.5 ns per stage.
			if math.Abs(got-want) > 1.5*float64(len(w.Lines)) {
				t.Errorf("%s on %s: got %.0f ns of compute, want %.0f", m.Name, gpu.Name, got, want)
			}
		}
	}
}

// TestGenerateMoE: Mixtral 8x7B at TP 1, EP 4, DP 8 (32 GPUs): every
// layer's MLP is dispatch, experts, combine, with an EP all-to-all of
// TopK x b x s x h x 2 B = 2 x 2048 x 4096 x 2 = 33,554,432 B each way in
// the forward and the backward; the experts' gradients (2 of 8 experts per
// rank, 3hf each) are reduced over DP_EP, the rest over DP.
func TestGenerateMoE(t *testing.T) {
	m := mustModel(t, "mixtral-8x7b")
	w, err := Generate(m, Parallelism{TP: 1, DP: 8, EP: 4}, GPUs()[0])
	if err != nil {
		t.Fatal(err)
	}
	var a2a, moe int
	for _, l := range w.Lines {
		switch l.Name {
		case "moe_dispatch", "moe_combine":
			moe++
			for _, c := range []Comm{l.Fwd.Comm, l.IG.Comm} {
				if c.Op != OpAllToAll || c.Group != GroupEP || c.Bytes != 33554432 {
					t.Errorf("%s: got %+v, want ALLTOALL_EP of 33554432 B", l.Name, c)
				}
				a2a++
			}
		}
	}
	if moe != 64 || a2a != 128 {
		t.Errorf("got %d MoE lines and %d all-to-alls, want 64 and 128", moe, a2a)
	}
	pc := m.Params(Parallelism{TP: 1, DP: 8, EP: 4})
	if want := int64(32 * 2 * 3 * 4096 * 14336); pc.Expert != want {
		t.Errorf("got %d expert parameters per rank, want %d", pc.Expert, want)
	}
	rs := findLine(w, "grad_reduce_experts").WG.Comm
	if rs.Op != OpReduceScatter || rs.Group != GroupDPEP || rs.Bytes != 4*pc.Expert {
		t.Errorf("got expert gradient reduction %+v, want REDUCESCATTER_DP_EP of %d B", rs, 4*pc.Expert)
	}
	if _, err := Generate(m, Parallelism{TP: 1, DP: 6, EP: 3}, GPUs()[0]); err == nil {
		t.Error("EP 3 with 8 experts: got no error")
	}
	if _, err := NewRun(w, DefaultRunConfig()); err != nil {
		t.Errorf("NewRun: %v", err)
	}
}

func TestGenerateLayout(t *testing.T) {
	llama := mustModel(t, "llama-7b")
	gpt := mustModel(t, "gpt3-13b")
	tests := []struct {
		name  string
		m     Model
		p     Parallelism
		lines int
		check func(t *testing.T, w *Workload)
	}{
		{"distributed optimizer", llama, Parallelism{TP: 2, DP: 4}, 2 + 1 + 64 + 1 + 3 + 4, func(t *testing.T, w *Workload) {
			if w.Lines[0].Name != "grad_gather" || w.Lines[1].Name != "grad_reduce" {
				t.Errorf("got first lines %s, %s, want grad_gather, grad_reduce", w.Lines[0].Name, w.Lines[1].Name)
			}
		}},
		{"ddp all-reduce", llama, Parallelism{TP: 2, DP: 4, DPAllReduce: true}, 1 + 1 + 64 + 1 + 3 + 4, func(t *testing.T, w *Workload) {
			if c := w.Lines[0].WG.Comm; w.Lines[0].Name != "grad_allreduce" || c.Op != OpAllReduce || c.Bytes != 4*llama.Params(Parallelism{TP: 2}).Total {
				t.Errorf("got %s %+v, want grad_allreduce of 4P", w.Lines[0].Name, c)
			}
		}},
		{"overlap, ga 2", llama, Parallelism{TP: 2, DP: 4, GA: 2, OverlapGradReduce: true}, 1 + 2*(1+64+1+3) + 4, func(t *testing.T, w *Workload) {
			var rs int64
			for i, l := range w.Lines {
				if c := l.WG.Comm; c.Op == OpReduceScatter {
					rs += c.Bytes
					if i > 1+69 {
						t.Errorf("line %d (%s): reduce-scatter outside the first micro-batch", i, l.Name)
					}
				}
			}
			if want := 4 * llama.Params(Parallelism{TP: 2}).Total; rs != want {
				t.Errorf("got %d B reduce-scattered, want 4P = %d", rs, want)
			}
			if w.GA != 2 {
				t.Errorf("got ga %d, want 2", w.GA)
			}
		}},
		{"no dp, no tp", llama, Parallelism{}, 1 + 64 + 1 + 3 + 4, func(t *testing.T, w *Workload) {
			for _, l := range w.Lines {
				for p := Fwd; p <= WG; p++ {
					if l.Stage(p).Comm.Op != OpNone {
						t.Errorf("%s %s: got a collective with TP = DP = 1", l.Name, p)
					}
				}
			}
		}},
		{"pipeline", gpt, Parallelism{TP: 8, PP: 4, DP: 2}, 2 + 1 + 20 + 1 + 3 + 4, func(t *testing.T, w *Workload) {
			if w.PP != 4 || w.VPP != 10 || w.PPComm != 2*2048*5120 || w.AllGPUs != 64 {
				t.Errorf("got pp %d vpp %d pp_comm %d all_gpus %d, want 4 10 %d 64", w.PP, w.VPP, w.PPComm, 2*2048*5120, w.AllGPUs)
			}
			pc := gpt.Params(Parallelism{TP: 8, PP: 4})
			if pc.Output != 2*5120+51200/8*5120 {
				t.Errorf("tied output with pp > 1: got %d output parameters, want the final norm and a copy of the embedding", pc.Output)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := mustGenerate(t, tt.m, tt.p, "h100")
			if len(w.Lines) != tt.lines {
				t.Errorf("got %d lines, want %d", len(w.Lines), tt.lines)
			}
			tt.check(t, w)
		})
	}
}

// TestGeneratedRuns: a generated workload runs on its all_gpus and its
// iterations carry its compute.
func TestGeneratedRuns(t *testing.T) {
	w := mustGenerate(t, mustModel(t, "llama-7b"), Parallelism{TP: 2, DP: 4, GA: 2, OverlapGradReduce: true}, "h100")
	cfg := DefaultRunConfig()
	cfg.CommScale = 1.0 / 64
	r := newRun(t, w, cfg)
	runIdeal(t, r, LinkTime(100*engine.Gbps, 2*engine.Microsecond))
	it := r.Iterations()
	if len(it) != 1 || it[0].Compute != w.Compute() || it[0].Duration < w.Compute() {
		t.Errorf("got %+v, want compute %v", it, w.Compute())
	}
	t.Logf("%s at comm_scale 1/64 on 8 hosts, ideal 100G: iteration %v, compute %v", w.Name, it[0].Duration, it[0].Compute)
}

func TestGenerateErrors(t *testing.T) {
	gpt := mustModel(t, "gpt3-13b")
	a100, _ := GPUByName("A100")
	tests := []struct {
		name string
		m    Model
		p    Parallelism
		gpu  GPU
		want string
	}{
		{"ep", gpt, Parallelism{EP: 2}, a100, "ep: 2, but the model gpt3-13b has no experts"},
		{"tp heads", gpt, Parallelism{TP: 3}, a100, "tp: 3 must divide heads 40 and ffn 20480"},
		{"pp layers", gpt, Parallelism{PP: 3}, a100, "pp: 3 does not divide layers 40"},
		{"negative", gpt, Parallelism{DP: -1}, a100, "dp: must be >= 1, got -1"},
		{"efficiency", gpt, Parallelism{}, GPU{Name: "x", PeakFLOPS: 1e12}, "gpu x: efficiency must be in (0, 1], got 0"},
		{"peak", gpt, Parallelism{}, GPU{Name: "y", Efficiency: 0.5}, "gpu y: peak FLOPS must be positive, got 0"},
		{"layers", Model{Name: "z"}, Parallelism{}, a100, "layers: must be >= 1, got 0"},
	}
	for _, tt := range tests {
		_, err := Generate(tt.m, tt.p, tt.gpu)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := ModelByName("gpt4"); err == nil || !strings.Contains(err.Error(), "gpt3-13b, gpt3-175b, llama-7b, llama-65b") {
		t.Errorf("ModelByName(gpt4): got %v, want the valid names", err)
	}
	if _, err := GPUByName("v100"); err == nil {
		t.Errorf("GPUByName(v100): got no error")
	}
}
