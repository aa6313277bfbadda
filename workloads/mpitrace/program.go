package mpitrace

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
)

// Send is one message of a phase: Bytes to rank To.
type Send struct {
	To    int
	Bytes int64
}

// Phase is one communication step of a rank. It starts Gap after the
// rank's previous phase completed (or its iteration started), and not
// before At from the iteration's start; it posts Sends at once and
// completes when every one of them is acknowledged and Recvs messages of
// the same phase (the same index in the senders' lists) have reached the
// rank.
type Phase struct {
	Gap, At engine.Time
	Sends   []Send
	Recvs   int
}

// Program is an application's communication structure: every rank runs
// Iterations iterations of its Phases. An iteration ends Tail after its
// last phase completed, and not before Span from its start (compute that
// overlaps the phases); the next begins then.
type Program struct {
	Name       string
	Iterations int
	// Phases[r] are rank r's phases of one iteration; every rank has the
	// same number.
	Phases     [][]Phase
	Tail, Span engine.Time
}

// Ranks is the number of ranks.
func (p *Program) Ranks() int { return len(p.Phases) }

// Validate checks that every rank has the same number of phases, that
// sends name other existing ranks with a positive size, and that each
// phase's Recvs is the number of messages sent to it in that phase.
func (p *Program) Validate() error {
	n := len(p.Phases)
	if n < 2 {
		return fmt.Errorf("%s: %d ranks, need at least 2", p.Name, n)
	}
	if p.Iterations < 1 {
		return fmt.Errorf("%s: iterations: must be at least 1, got %d", p.Name, p.Iterations)
	}
	np := len(p.Phases[0])
	recvs := make([][]int, n)
	for r := range recvs {
		if len(p.Phases[r]) != np {
			return fmt.Errorf("%s: rank %d has %d phases, rank 0 %d", p.Name, r, len(p.Phases[r]), np)
		}
		recvs[r] = make([]int, np)
	}
	for r, phs := range p.Phases {
		for i, ph := range phs {
			if ph.Gap < 0 || ph.At < 0 {
				return fmt.Errorf("%s: rank %d phase %d: negative gap or start", p.Name, r, i)
			}
			for _, s := range ph.Sends {
				if s.To < 0 || s.To >= n || s.To == r || s.Bytes < 1 {
					return fmt.Errorf("%s: rank %d phase %d: bad send of %d B to rank %d", p.Name, r, i, s.Bytes, s.To)
				}
				recvs[s.To][i]++
			}
		}
	}
	for r, phs := range p.Phases {
		for i, ph := range phs {
			if ph.Recvs != recvs[r][i] {
				return fmt.Errorf("%s: rank %d phase %d expects %d messages, %d are sent to it", p.Name, r, i, ph.Recvs, recvs[r][i])
			}
		}
	}
	return nil
}

// Bytes is what one iteration sends over the network, all ranks together.
func (p *Program) Bytes() int64 {
	var b int64
	for _, phs := range p.Phases {
		for _, ph := range phs {
			for _, s := range ph.Sends {
				b += s.Bytes
			}
		}
	}
	return b
}

// PTRANSConfig is HPC Challenge PTRANS (parallel matrix transpose,
// C = C + A^T) on a P x Q process grid: an N x N matrix of doubles in
// NB x NB blocks, block (I, J) on process (I mod P, J mod Q), rank
// p*Q + q (row-major, as BLACS numbers a grid by default).
type PTRANSConfig struct {
	P, Q int
	// N is the matrix order, NB the block size (both in elements).
	N, NB      int
	Iterations int
	// Compute is the local update after each transpose.
	Compute engine.Time
}

// PTRANS builds the program: per iteration one phase in which every
// process sends each of its blocks (I, J) to the owner of block (J, I),
// (J mod P, I mod Q), one message per destination process with all the
// blocks for it (a block whose owner is the process itself does not
// travel), then Compute.
func PTRANS(c PTRANSConfig) (*Program, error) {
	switch {
	case c.P < 1 || c.Q < 1 || c.P*c.Q < 2:
		return nil, fmt.Errorf("ptrans: a %d x %d grid needs at least 2 processes", c.P, c.Q)
	case c.NB < 1 || c.N < c.NB:
		return nil, fmt.Errorf("ptrans: n %d and nb %d: need 1 <= nb <= n", c.N, c.NB)
	case c.Compute < 0:
		return nil, fmt.Errorf("ptrans: compute: negative")
	}
	n := c.P * c.Q
	blocks := (c.N + c.NB - 1) / c.NB
	// bytes[s][d] sums the blocks s sends to d; a last partial block row
	// or column holds N mod NB elements on that side.
	bytes := make([][]int64, n)
	for i := range bytes {
		bytes[i] = make([]int64, n)
	}
	side := func(b int) int64 {
		if b == blocks-1 && c.N%c.NB != 0 {
			return int64(c.N % c.NB)
		}
		return int64(c.NB)
	}
	for I := range blocks {
		for J := range blocks {
			src := (I%c.P)*c.Q + J%c.Q
			dst := (J%c.P)*c.Q + I%c.Q
			if src != dst {
				bytes[src][dst] += side(I) * side(J) * 8
			}
		}
	}
	p := &Program{Name: "ptrans", Iterations: c.Iterations, Phases: make([][]Phase, n), Tail: c.Compute}
	for s := range n {
		var ph Phase
		for d := range n {
			if bytes[s][d] > 0 {
				ph.Sends = append(ph.Sends, Send{To: d, Bytes: bytes[s][d]})
			}
			if bytes[d][s] > 0 {
				ph.Recvs++
			}
		}
		p.Phases[s] = []Phase{ph}
	}
	return p, p.Validate()
}

// InceptionConfig is data-parallel training of Inception-v3: Ranks GPUs,
// each computing a step (forward and backward) in StepTime, of which
// ForwardFraction is the forward pass; Params fp32 gradients (4 B each)
// allreduced in buckets of Bucket bytes as the backward pass produces
// them.
type InceptionConfig struct {
	Ranks           int
	Params          int64
	Bucket          int64
	StepTime        engine.Time
	ForwardFraction float64
	Iterations      int
}

// Inception builds the program. The backward pass produces the gradients
// at a uniform rate, so bucket b (the last Bucket bytes of the remaining
// gradients first, as DDP fills buckets in reverse layer order; the last
// one short) is ready after the forward pass plus the backward's share of
// the bytes produced until then. Each bucket is a ring allreduce
// (reduce-scatter then allgather, 2(n-1) steps, in each of which every
// rank sends one of n chunks of the bucket, ceil(bucket/n) B, to its
// successor and waits for its predecessor's); a bucket's allreduce starts
// when its gradients are ready and the previous bucket's is done, as on
// one communication stream. The iteration lasts at least StepTime.
func Inception(c InceptionConfig) (*Program, error) {
	switch {
	case c.Ranks < 2:
		return nil, fmt.Errorf("inception: ranks: need at least 2, got %d", c.Ranks)
	case c.Params < 1 || c.Bucket < 1:
		return nil, fmt.Errorf("inception: params and bucket must be positive")
	case c.StepTime < 0 || !(c.ForwardFraction >= 0 && c.ForwardFraction <= 1):
		return nil, fmt.Errorf("inception: step_time must not be negative and forward_fraction must be in [0, 1]")
	}
	n := c.Ranks
	total := c.Params * 4
	fwd := engine.Time(float64(c.StepTime) * c.ForwardFraction)
	bwd := c.StepTime - fwd
	p := &Program{Name: "inception-v3", Iterations: c.Iterations, Phases: make([][]Phase, n), Span: c.StepTime}
	var done int64
	for done < total {
		b := min(c.Bucket, total-done)
		done += b
		ready := fwd + engine.Time(float64(bwd)*float64(done)/float64(total))
		chunk := (b + int64(n) - 1) / int64(n)
		for step := range 2 * (n - 1) {
			for r := range n {
				ph := Phase{Sends: []Send{{To: (r + 1) % n, Bytes: chunk}}, Recvs: 1}
				if step == 0 {
					ph.At = ready
				}
				p.Phases[r] = append(p.Phases[r], ph)
			}
		}
	}
	return p, p.Validate()
}

// UpdateTime is PTRANS's local update C = C + A^T on the most loaded
// process: its elements (ceil(blocks/P) x ceil(blocks/Q) blocks of NB x
// NB) each stream 24 B (read A and C, write C) at rate.
func UpdateTime(p, q, n, nb int, rate engine.Rate) engine.Time {
	if p < 1 || q < 1 || nb < 1 || rate <= 0 {
		return 0
	}
	blocks := (n + nb - 1) / nb
	elems := int64((blocks+p-1)/p) * int64((blocks+q-1)/q) * int64(nb) * int64(nb)
	return rate.TxTime(elems * 24)
}
