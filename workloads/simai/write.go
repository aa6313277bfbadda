package simai

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/engine"
)

// Write writes w in the workload file format, the way AICB does: fields
// separated by tabs, one line per layer. The header is the old one
// ("POLICY<TAB>model_parallel_NPU_group: T checkpoints: ... checkpoint_initiates: ...")
// unless w.FullHeader is set or a key beyond the TP size differs from its
// default; then it is the current one with ep, pp, vpp, ga, all_gpus (when
// known), the checkpoint lists, any extra pairs, and pp_comm. A MICRO
// workload with default values writes the bare policy. Parse(Write(w))
// equals w (up to Name); the shipped old-format files come back
// byte-identical. Write validates w first.
func (w *Workload) Write(out io.Writer) error {
	if err := w.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(out)
	bw.WriteString(w.headerLine())
	bw.WriteByte('\n')
	bw.WriteString(strconv.Itoa(len(w.Lines)))
	bw.WriteByte('\n')
	var buf []byte
	for i := range w.Lines {
		l := &w.Lines[i]
		buf = append(buf[:0], l.Name...)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, int64(l.Dep), 10)
		for p := Fwd; p <= WG; p++ {
			s := l.Stage(p)
			buf = append(buf, '\t')
			buf = strconv.AppendInt(buf, int64(s.Compute/engine.Nanosecond), 10)
			buf = append(buf, '\t')
			buf = append(buf, s.Comm.Token(p)...)
			buf = append(buf, '\t')
			buf = strconv.AppendInt(buf, s.Comm.Bytes, 10)
		}
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, int64(l.Update/engine.Nanosecond), 10)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

func (w *Workload) headerLine() string {
	full := w.FullHeader || w.EP != 1 || w.PP != 1 || w.VPP != 1 || w.GA != 1 || w.AllGPUs != 0 || w.PPComm != 0
	var b strings.Builder
	b.WriteString(string(w.Policy))
	if w.Policy == PolicyMicro && !full && w.TP == 1 && len(w.Checkpoints) == 0 && len(w.CheckpointInitiates) == 0 && len(w.ExtraHeader) == 0 {
		return b.String()
	}
	kv := func(k string, v int64) {
		b.WriteByte(' ')
		b.WriteString(k)
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(v, 10))
	}
	list := func(k string, ids []int) {
		kv(k, int64(len(ids)))
		for _, id := range ids {
			b.WriteByte(' ')
			b.WriteString(strconv.Itoa(id))
		}
	}
	if full {
		b.WriteString(" model_parallel_NPU_group: " + strconv.Itoa(w.TP))
		kv("ep:", int64(w.EP))
		kv("pp:", int64(w.PP))
		kv("vpp:", int64(w.VPP))
		kv("ga:", int64(w.GA))
		if w.AllGPUs != 0 {
			kv("all_gpus:", int64(w.AllGPUs))
		}
	} else {
		b.WriteString("\tmodel_parallel_NPU_group: " + strconv.Itoa(w.TP))
	}
	list("checkpoints:", w.Checkpoints)
	list("checkpoint_initiates:", w.CheckpointInitiates)
	for i := 0; i < len(w.ExtraHeader); i += 2 {
		b.WriteByte(' ')
		b.WriteString(w.ExtraHeader[i])
		b.WriteByte(' ')
		b.WriteString(w.ExtraHeader[i+1])
	}
	if full {
		kv("pp_comm:", w.PPComm)
	}
	return b.String()
}
