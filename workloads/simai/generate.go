package simai

import (
	"fmt"
	"math"
	"strings"

	"github.com/dcsim/dcsim/engine"
)

// Model holds the hyper-parameters of a decoder-only transformer.
type Model struct {
	Name       string
	Layers     int // transformer layers
	Hidden     int // hidden size h
	Heads      int // attention heads
	FFN        int // MLP inner size f
	SeqLen     int // sequence length s (also the learned position table size)
	Vocab      int // vocabulary before Megatron's padding
	MicroBatch int // micro-batch size b
	// SwiGLU selects a gated MLP of three h x f GEMMs (LLaMA) instead of
	// two (GPT).
	SwiGLU bool
	// Bias gives every linear layer a bias and makes the norms LayerNorm
	// (weight and bias, GPT); otherwise no biases and RMSNorm (weight only,
	// LLaMA).
	Bias bool
	// LearnedPositions adds a SeqLen x h position table (GPT); LLaMA's
	// rotary embedding has no parameters.
	LearnedPositions bool
	// TiedEmbeddings shares the input embedding with the output layer
	// (GPT); LLaMA has a separate output matrix.
	TiedEmbeddings bool
	// Experts > 0 makes every MLP a mixture of Experts expert MLPs (each
	// of FFN inner size) with a router; each token goes to TopK of them.
	Experts, TopK int
}

// Models returns the built-in models: "gpt3-13b", "gpt3-175b", "llama-7b"
// and "llama-65b", all with sequence length 2048 and micro-batch 1.
// GPT-3 13B uses hidden 5120 (Megatron's and AICB's configuration; the
// GPT-3 paper lists 5140) and the GPT-2 vocabulary of 50257 tokens.
func Models() []Model {
	gpt := func(name string, layers, hidden, heads int) Model {
		return Model{Name: name, Layers: layers, Hidden: hidden, Heads: heads, FFN: 4 * hidden, SeqLen: 2048,
			Vocab: 50257, MicroBatch: 1, Bias: true, LearnedPositions: true, TiedEmbeddings: true}
	}
	llama := func(name string, layers, hidden, heads, ffn int) Model {
		return Model{Name: name, Layers: layers, Hidden: hidden, Heads: heads, FFN: ffn, SeqLen: 2048,
			Vocab: 32000, MicroBatch: 1, SwiGLU: true}
	}
	return []Model{
		gpt("gpt3-13b", 40, 5120, 40),
		gpt("gpt3-175b", 96, 12288, 96),
		llama("llama-7b", 32, 4096, 32, 11008),
		llama("llama-65b", 80, 8192, 64, 22016),
		mixtral,
	}
}

// mixtral is Mixtral 8x7B's shape: 8 SwiGLU experts of f = 14336, top-2
// routing, on LLaMA's layout (its grouped-query attention is counted as
// full multi-head attention).
var mixtral = Model{Name: "mixtral-8x7b", Layers: 32, Hidden: 4096, Heads: 32, FFN: 14336, SeqLen: 2048,
	Vocab: 32000, MicroBatch: 1, SwiGLU: true, Experts: 8, TopK: 2}

// ModelByName returns the built-in model called name.
func ModelByName(name string) (Model, error) {
	var names []string
	for _, m := range Models() {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Model{}, fmt.Errorf("unknown model %q (valid: %s)", name, strings.Join(names, ", "))
}

// Parallelism is the Megatron layout of one training job. Zero sizes mean 1.
type Parallelism struct {
	TP, PP, DP, EP int
	// GA is the number of micro-batches per iteration per data-parallel
	// rank (gradient accumulation).
	GA int
	// DPAllReduce reduces gradients with one fp32 all-reduce (plain DDP)
	// instead of the distributed optimizer's reduce-scatter of fp32
	// gradients and all-gather of bf16 parameters.
	DPAllReduce bool
	// OverlapGradReduce reduces each line's gradients as soon as that line's
	// backward is done (Megatron's --overlap-grad-reduce) instead of in one
	// collective after the whole backward pass.
	OverlapGradReduce bool
}

func (p Parallelism) withDefaults() Parallelism {
	for _, v := range []*int{&p.TP, &p.PP, &p.DP, &p.EP, &p.GA} {
		if *v == 0 {
			*v = 1
		}
	}
	return p
}

// GPU is the compute model: dense BF16 peak and the fraction of it a
// training step achieves.
type GPU struct {
	Name       string
	PeakFLOPS  float64 // FLOP/s
	Efficiency float64 // in (0, 1]
}

// Peak dense BF16 throughput (no sparsity) from the vendor data sheets, and
// the default efficiency (model FLOPs utilisation).
const (
	A100PeakFLOPS     = 312e12
	H100PeakFLOPS     = 989e12 // H100 SXM
	DefaultEfficiency = 0.5
)

// GPUs returns the built-in GPUs "a100" and "h100" at DefaultEfficiency.
func GPUs() []GPU {
	return []GPU{{"a100", A100PeakFLOPS, DefaultEfficiency}, {"h100", H100PeakFLOPS, DefaultEfficiency}}
}

// GPUByName returns a built-in GPU by name, ignoring case.
func GPUByName(name string) (GPU, error) {
	for _, g := range GPUs() {
		if strings.EqualFold(g.Name, name) {
			return g, nil
		}
	}
	return GPU{}, fmt.Errorf("unknown gpu %q (valid: a100, h100)", name)
}

// DefaultUpdate is the update delay Generate writes on every line, AICB's
// value.
const DefaultUpdate = 100 * engine.Nanosecond

// ParamCounts are the parameters one tensor-parallel rank of the generated
// pipeline stage holds, by line kind.
type ParamCounts struct {
	Attention int64 // one attention_layer: QKV and projection (+ biases, + its norm)
	MLP       int64 // one mlp_layer (+ biases, + its norm)
	Embedding int64 // word embeddings (Vp/TP x h) and learned positions
	Output    int64 // output matrix when not shared with the embedding, plus the final norm
	Total     int64 // Layers/PP*(Attention+MLP) + Embedding + Output
	// Expert is the part of Total in expert MLPs (Layers/PP x Experts/EP
	// experts), reduced over the DP_EP group instead of DP.
	Expert int64
}

// PaddedVocab is Megatron's vocabulary padding: up to a multiple of
// 128*TP.
func PaddedVocab(vocab, tp int) int {
	m := 128 * tp
	return (vocab + m - 1) / m * m
}

// Params counts the parameters per tensor-parallel rank of one pipeline
// stage as Megatron-LM lays them out (see doc.go).
func (m Model) Params(p Parallelism) ParamCounts {
	p = p.withDefaults()
	h, f, t := int64(m.Hidden), int64(m.FFN), int64(p.TP)
	vp := int64(PaddedVocab(m.Vocab, p.TP))
	norm := h
	if m.Bias {
		norm = 2 * h
	}
	gemms := int64(2)
	if m.SwiGLU {
		gemms = 3
	}
	var c ParamCounts
	c.Attention = 4*h*h/t + norm
	c.MLP = gemms*h*f/t + norm
	if m.Experts > 0 {
		expert := int64(m.Experts/p.EP) * gemms * h * f / t
		c.MLP = expert + h*int64(m.Experts) + norm // + the router
		c.Expert = int64(m.Layers/p.PP) * expert
	}
	if m.Bias {
		c.Attention += 3*h/t + h
		c.MLP += (gemms-1)*f/t + h
	}
	c.Embedding = vp / t * h
	if m.LearnedPositions {
		c.Embedding += int64(m.SeqLen) * h
	}
	c.Output = norm
	if !m.TiedEmbeddings || p.PP > 1 {
		c.Output += vp / t * h
	}
	c.Total = int64(m.Layers/p.PP)*(c.Attention+c.MLP) + c.Embedding + c.Output
	return c
}

// flops are the floating-point operations of one micro-batch on one
// tensor-parallel rank, per phase.
type flops struct{ fwd, ig, wg float64 }

// layerFLOPs returns the attention, MLP and output-layer FLOPs per rank:
// 2 FLOPs per multiply-add; an attention block has 8bsh^2 of GEMMs and
// 4bs^2h of score and value products; every GEMM's input gradient and
// weight gradient each cost as much as its forward, the score and value
// products' backward (input gradient only) twice their forward.
func (m Model) layerFLOPs(p Parallelism) (att, mlp, out flops) {
	b, s, h, f := float64(m.MicroBatch), float64(m.SeqLen), float64(m.Hidden), float64(m.FFN)
	t := float64(p.TP)
	vp := float64(PaddedVocab(m.Vocab, p.TP))
	gemm := 8 * b * s * h * h / t
	core := 4 * b * s * s * h / t
	att = flops{gemm + core, gemm + 2*core, gemm}
	k := 4.0
	if m.SwiGLU {
		k = 6
	}
	g := k * b * s * h * f / t
	if m.Experts > 0 {
		// Balanced routing: every rank's experts process TopK tokens per
		// token of its micro-batch.
		g *= float64(m.TopK)
	}
	mlp = flops{g, g, g}
	o := 2 * b * s * h * vp / t
	out = flops{o, o, o}
	return att, mlp, out
}

// computeTime converts FLOPs to whole nanoseconds on gpu.
func computeTime(fl float64, gpu GPU) engine.Time {
	perNs := gpu.PeakFLOPS * gpu.Efficiency / 1e9
	return engine.Time(math.Round(fl/perNs)) * engine.Nanosecond
}

// Generate writes the workload of one iteration of Megatron-LM training of
// m with layout p on gpu, in SimAI's format: the lines of one pipeline
// stage, every micro-batch's forward before any backward. See doc.go for
// the line layout, the communication sizes and the compute model.
func Generate(m Model, p Parallelism, gpu GPU) (*Workload, error) {
	p = p.withDefaults()
	for _, f := range []struct {
		name string
		v    int
	}{{"layers", m.Layers}, {"hidden", m.Hidden}, {"heads", m.Heads}, {"ffn", m.FFN}, {"seq_len", m.SeqLen},
		{"vocab", m.Vocab}, {"micro_batch", m.MicroBatch}, {"tp", p.TP}, {"pp", p.PP}, {"dp", p.DP}, {"ep", p.EP}, {"ga", p.GA}} {
		if f.v < 1 {
			return nil, fmt.Errorf("%s: must be >= 1, got %d", f.name, f.v)
		}
	}
	switch {
	case m.Hidden%m.Heads != 0:
		return nil, fmt.Errorf("heads: %d does not divide hidden %d", m.Heads, m.Hidden)
	case m.Heads%p.TP != 0 || m.FFN%p.TP != 0:
		return nil, fmt.Errorf("tp: %d must divide heads %d and ffn %d", p.TP, m.Heads, m.FFN)
	case m.Layers%p.PP != 0:
		return nil, fmt.Errorf("pp: %d does not divide layers %d", p.PP, m.Layers)
	case p.EP != 1 && m.Experts == 0:
		return nil, fmt.Errorf("ep: %d, but the model %s has no experts", p.EP, m.Name)
	case m.Experts > 0 && (m.Experts%p.EP != 0 || m.TopK < 1 || m.TopK > m.Experts):
		return nil, fmt.Errorf("ep: %d must divide the %d experts (top-%d)", p.EP, m.Experts, m.TopK)
	case !(gpu.PeakFLOPS > 0) || math.IsInf(gpu.PeakFLOPS, 0):
		return nil, fmt.Errorf("gpu %s: peak FLOPS must be positive, got %v", gpu.Name, gpu.PeakFLOPS)
	case !(gpu.Efficiency > 0 && gpu.Efficiency <= 1):
		return nil, fmt.Errorf("gpu %s: efficiency must be in (0, 1], got %v", gpu.Name, gpu.Efficiency)
	}
	pc := m.Params(p)
	b, s, h := int64(m.MicroBatch), int64(m.SeqLen), int64(m.Hidden)
	tpAR := 2 * b * s * h
	tpComm := func(bytes int64) Comm {
		if p.TP == 1 {
			return Comm{}
		}
		return Comm{Op: OpAllReduce, Group: GroupTP, Bytes: bytes}
	}
	dpComm := func(op Op, bytes int64) Comm {
		if p.DP == 1 {
			return Comm{}
		}
		return Comm{Op: op, Group: GroupDP, Bytes: bytes}
	}
	gradOp := OpReduceScatter
	if p.DPAllReduce {
		gradOp = OpAllReduce
	}
	stage := func(fl float64, c Comm) Stage { return Stage{Compute: computeTime(fl, gpu), Comm: c} }
	line := func(name string, fwd, ig, wg Stage) Line {
		return Line{Name: name, Dep: -1, Fwd: fwd, IG: ig, WG: wg, Update: DefaultUpdate}
	}
	att, mlp, out := m.layerFLOPs(p)

	// Expert parameters are replicated over DP_EP only (DP/EP ranks).
	expertComm := func(op Op, bytes int64) Comm {
		if p.DP/p.EP == 1 || bytes == 0 {
			return Comm{}
		}
		return Comm{Op: op, Group: GroupDPEP, Bytes: bytes}
	}
	dense := pc.Total - pc.Expert
	var lines []Line
	if !p.DPAllReduce && p.DP > 1 {
		lines = append(lines, line("grad_gather", Stage{}, Stage{}, Stage{Comm: dpComm(OpAllGather, 2*dense)}))
		if c := expertComm(OpAllGather, 2*pc.Expert); c.Active() {
			lines = append(lines, line("grad_gather_experts", Stage{}, Stage{}, Stage{Comm: c}))
		}
	}
	if !p.OverlapGradReduce && p.DP > 1 {
		name := "grad_reduce"
		if p.DPAllReduce {
			name = "grad_allreduce"
		}
		lines = append(lines, line(name, Stage{}, Stage{}, Stage{Comm: dpComm(gradOp, 4*dense)}))
		if c := expertComm(gradOp, 4*pc.Expert); c.Active() {
			lines = append(lines, line(name+"_experts", Stage{}, Stage{}, Stage{Comm: c}))
		}
	}
	// MoE: tokens go to their experts and come back by all-to-alls over
	// the EP group, TopK x b x s x h bf16 values per rank each way, in the
	// forward and again (the gradients) in the backward.
	a2a := Comm{}
	if m.Experts > 0 && p.EP > 1 {
		a2a = Comm{Op: OpAllToAll, Group: GroupEP, Bytes: 2 * int64(m.TopK) * b * s * h}
	}
	for mb := 0; mb < p.GA; mb++ {
		// The last micro-batch's backward is the one that runs last: with
		// overlap its lines carry the gradient reduction.
		grad := func(params int64) Comm {
			if mb != 0 || !p.OverlapGradReduce {
				return Comm{}
			}
			return dpComm(gradOp, 4*params)
		}
		lines = append(lines, line("embedding_layer", Stage{Comm: tpComm(tpAR)}, Stage{}, Stage{Comm: grad(pc.Embedding)}))
		for l := 0; l < m.Layers/p.PP; l++ {
			lines = append(lines,
				line("attention_layer", stage(att.fwd, tpComm(tpAR)), stage(att.ig, tpComm(tpAR)), Stage{Compute: computeTime(att.wg, gpu), Comm: grad(pc.Attention)}))
			if m.Experts == 0 {
				lines = append(lines, line("mlp_layer", stage(mlp.fwd, tpComm(tpAR)), stage(mlp.ig, tpComm(tpAR)), Stage{Compute: computeTime(mlp.wg, gpu), Comm: grad(pc.MLP)}))
				continue
			}
			perLayer := pc.Expert / int64(m.Layers/p.PP)
			expertGrad := Comm{}
			if mb == 0 && p.OverlapGradReduce {
				expertGrad = expertComm(gradOp, 4*perLayer)
			}
			lines = append(lines,
				line("moe_dispatch", Stage{Comm: a2a}, Stage{Comm: a2a}, Stage{Comm: grad(pc.MLP - perLayer)}),
				line("moe_experts", stage(mlp.fwd, tpComm(tpAR)), stage(mlp.ig, tpComm(tpAR)), Stage{Compute: computeTime(mlp.wg, gpu), Comm: expertGrad}),
				line("moe_combine", Stage{Comm: a2a}, Stage{Comm: a2a}, Stage{}))
		}
		lines = append(lines, line("output_layer", stage(out.fwd, Comm{}), stage(out.ig, tpComm(tpAR)), Stage{Compute: computeTime(out.wg, gpu), Comm: grad(pc.Output)}))
		for i := 1; i <= 3; i++ {
			lines = append(lines, line(fmt.Sprintf("cross_entropy%d", i), Stage{Comm: tpComm(4 * b * s)}, Stage{}, Stage{}))
		}
	}
	for i := 1; i <= 4; i++ {
		lines = append(lines, line(fmt.Sprintf("optimizer%d", i), Stage{Comm: tpComm(4)}, Stage{}, Stage{}))
	}
	var ppComm int64
	if p.PP > 1 {
		ppComm = tpAR
	}
	w := &Workload{
		Name:   fmt.Sprintf("%s-tp%d-pp%d-dp%d-ga%d-mbs%d-%s", m.Name, p.TP, p.PP, p.DP, p.GA, m.MicroBatch, gpu.Name),
		Policy: PolicyTransformer, TP: p.TP, EP: p.EP, PP: p.PP, VPP: m.Layers / p.PP, GA: p.GA,
		AllGPUs: p.TP * p.PP * p.DP, PPComm: ppComm, FullHeader: true, Lines: lines,
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("simai: generated workload invalid: %w", err)
	}
	return w, nil
}
