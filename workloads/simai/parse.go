package simai

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/internal/textline"
)

// maxNs is the largest time in ns that fits engine.Time.
const maxNs = math.MaxInt64 / int64(engine.Nanosecond)

// maxLayers bounds the layer lines of a workload file, which are held in
// memory (the shipped ones have a few hundred): the declared count is the
// only bound on a file's length.
const maxLayers = 1 << 20

// lineFields are the names of the 12 fields of a layer line, used in errors.
var lineFields = [12]string{"name", "dep", "fwd_ns", "fwd_coll", "fwd_bytes", "ig_ns", "ig_coll", "ig_bytes", "wg_ns", "wg_coll", "wg_bytes", "update_ns"}

// Parse reads a SimAI workload file (docs/model.md §7.4; lines of at most
// 1 MiB, internal/textline): the header line, the layer count N (at most
// 2^20) on line 2, then exactly N lines of 12 whitespace-separated fields.
// Blank lines after line 2 are skipped;
// anything after the N-th layer line other than blank lines is an error.
//
// The header may be the current one (model_parallel_NPU_group, ep, pp, vpp,
// ga, all_gpus, checkpoints, checkpoint_initiates, pp_comm with or without
// its colon) or the old one that gives only model_parallel_NPU_group and the
// checkpoint lists; absent keys take the defaults ep = pp = vpp = ga = 1,
// all_gpus = 0 (unknown), pp_comm = 0. Unknown "key:" pairs (AICB has
// written some, e.g. expert_parallel_npu_group:) are ignored as SimAI does,
// and kept for Write.
//
// Collective tokens are NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL
// and ALLREDUCEALLTOALL, optionally suffixed _EP or _DP_EP; BROADCAST is
// no collective; any other token is an error. Sizes are kept as written: the forward
// minimum of 4096 B is applied by Line.CommBytes.
//
// Errors read "name:LINE: field: reason".
func Parse(name string, r io.Reader) (*Workload, error) {
	sc := textline.NewScanner(r)
	lineNo := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		lineNo++
		return sc.Text(), true
	}
	scanErr := func() error {
		if err := textline.ScanErr(sc, lineNo); err != nil {
			return fmt.Errorf("%s:%d: %w", name, lineNo+1, err)
		}
		return nil
	}

	header, ok := next()
	if !ok {
		if err := scanErr(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s:1: policy: empty file", name)
	}
	w := &Workload{Name: name}
	if err := parseHeader(w, strings.TrimPrefix(header, "\ufeff")); err != nil {
		return nil, fmt.Errorf("%s:1: %w", name, err)
	}

	countLine, ok := next()
	if !ok {
		if err := scanErr(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s:2: layer count: missing", name)
	}
	f := strings.Fields(countLine)
	if len(f) != 1 {
		return nil, fmt.Errorf("%s:2: layer count: want one integer, got %q", name, strings.TrimSpace(countLine))
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%s:2: layer count: want a non-negative integer, got %q", name, f[0])
	}
	if n > maxLayers {
		return nil, fmt.Errorf("%s:2: layer count: %d is above the limit of %d", name, n, maxLayers)
	}

	for {
		text, ok := next()
		if !ok {
			break
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		if int64(len(w.Lines)) == n {
			return nil, fmt.Errorf("%s:%d: layer lines: more than the %d declared on line 2", name, lineNo, n)
		}
		l, err := parseLine(w.Policy, fields)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		w.Lines = append(w.Lines, l)
	}
	if err := scanErr(); err != nil {
		return nil, err
	}
	if int64(len(w.Lines)) != n {
		return nil, fmt.Errorf("%s:%d: layer lines: line 2 declares %d, the file has %d", name, lineNo+1, n, len(w.Lines))
	}
	for _, list := range []struct {
		key string
		ids []int
	}{{"checkpoints", w.Checkpoints}, {"checkpoint_initiates", w.CheckpointInitiates}} {
		for _, id := range list.ids {
			if id >= len(w.Lines) {
				return nil, fmt.Errorf("%s:1: %s: line %d out of range [0, %d)", name, list.key, id, len(w.Lines))
			}
		}
	}
	return w, nil
}

// parseHeader reads line 1 into w.
func parseHeader(w *Workload, line string) error {
	tok := strings.Fields(line)
	if len(tok) == 0 {
		return fmt.Errorf("policy: empty header line")
	}
	w.Policy = Policy(tok[0])
	switch w.Policy {
	case PolicyTransformer, PolicyTransformerPlain, PolicyMicro:
	default:
		return fmt.Errorf("policy: unsupported %q (supported: %s, %s, %s)", tok[0], PolicyTransformer, PolicyTransformerPlain, PolicyMicro)
	}
	seen := map[string]bool{}
	intVal := func(i int, key string, min int64) (int64, error) {
		if i+1 >= len(tok) {
			return 0, fmt.Errorf("%s: missing value", key)
		}
		v, err := strconv.ParseInt(tok[i+1], 10, 64)
		if err != nil || v < min || v > math.MaxInt32 {
			return 0, fmt.Errorf("%s: want an integer in [%d, %d], got %q", key, min, math.MaxInt32, tok[i+1])
		}
		return v, nil
	}
	// The header's counts, each at least 1, by their key as written.
	counts := map[string]*int{"model_parallel_NPU_group:": &w.TP, "ep:": &w.EP, "pp:": &w.PP, "vpp:": &w.VPP,
		"ga:": &w.GA, "all_gpus:": &w.AllGPUs}
	for i := 1; i < len(tok); {
		t := tok[i]
		key := strings.TrimSuffix(t, ":")
		if seen[key] {
			return fmt.Errorf("%s: appears twice", key)
		}
		switch dst, isCount := counts[t]; {
		case isCount:
			v, err := intVal(i, key, 1)
			if err != nil {
				return err
			}
			*dst = int(v)
			if key != "model_parallel_NPU_group" {
				w.FullHeader = true
			}
			i += 2
		case t == "checkpoints:" || t == "checkpoint_initiates:":
			c, err := intVal(i, key, 0)
			if err != nil {
				return err
			}
			if int64(len(tok)-i-2) < c {
				return fmt.Errorf("%s: declares %d line ids, %d follow", key, c, len(tok)-i-2)
			}
			var ids []int // nil when empty, so Parse(Write(w)) == w
			for j := 0; j < int(c); j++ {
				v, err := intVal(i+1+j, key, 0)
				if err != nil {
					return err
				}
				ids = append(ids, int(v))
			}
			if key == "checkpoints" {
				w.Checkpoints = ids
			} else {
				w.CheckpointInitiates = ids
			}
			i += 2 + int(c)
		case t == "pp_comm:" || t == "pp_comm":
			if i+1 >= len(tok) {
				return fmt.Errorf("pp_comm: missing value")
			}
			v, err := parsePPComm(tok[i+1])
			if err != nil {
				return err
			}
			w.PPComm = v
			w.FullHeader = true
			i += 2
		default:
			if !strings.HasSuffix(t, ":") || len(t) == 1 {
				return fmt.Errorf("header: unexpected token %q (want key: value)", t)
			}
			if i+1 >= len(tok) || strings.HasSuffix(tok[i+1], ":") {
				return fmt.Errorf("%s: missing value", key)
			}
			w.ExtraHeader = append(w.ExtraHeader, t, tok[i+1])
			i += 2
		}
		seen[key] = true
	}
	if w.TP == 0 {
		if w.Policy != PolicyMicro {
			return fmt.Errorf("model_parallel_NPU_group: missing")
		}
		w.TP = 1
	}
	w.defaults()
	return nil
}

// parsePPComm reads pp_comm: a non-negative integer, also written by AICB
// as a float with a zero fraction ("1310720.0") when sequence parallelism
// divides it; SimAI's stoi reads the integer part.
func parsePPComm(s string) (int64, error) {
	intPart, frac, hasDot := strings.Cut(s, ".")
	if hasDot && strings.Trim(frac, "0") != "" {
		return 0, fmt.Errorf("pp_comm: want a whole number of bytes, got %q", s)
	}
	v, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || v < 0 || (hasDot && intPart == "") {
		return 0, fmt.Errorf("pp_comm: want a non-negative integer, got %q", s)
	}
	return v, nil
}

// parseLine reads the 12 fields of a layer line.
func parseLine(pol Policy, f []string) (Line, error) {
	var l Line
	if len(f) != len(lineFields) {
		return l, fmt.Errorf("fields: want %d, got %d", len(lineFields), len(f))
	}
	l.Name = f[0]
	dep, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || dep < math.MinInt32 || dep > math.MaxInt32 {
		return l, fmt.Errorf("dep: want an integer, got %q", f[1])
	}
	l.Dep = int(dep)
	for p := Fwd; p <= WG; p++ {
		i := 2 + 3*int(p)
		s := l.Stage(p)
		if s.Compute, err = parseNs(lineFields[i], f[i]); err != nil {
			return l, err
		}
		b, err := strconv.ParseInt(f[i+2], 10, 64)
		if err != nil || b < 0 {
			return l, fmt.Errorf("%s: want a non-negative integer, got %q", lineFields[i+2], f[i+2])
		}
		if s.Comm, err = parseComm(pol, p, f[i+1], b); err != nil {
			return l, fmt.Errorf("%s: %v", lineFields[i+1], err)
		}
	}
	if l.Update, err = parseNs("update_ns", f[11]); err != nil {
		return l, err
	}
	return l, nil
}

func parseNs(field, s string) (engine.Time, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > maxNs {
		return 0, fmt.Errorf("%s: want an integer in [0, %d], got %q", field, maxNs, s)
	}
	return engine.Time(v) * engine.Nanosecond, nil
}

// parseComm decodes a collective token of column p.
func parseComm(pol Policy, p Phase, tok string, bytes int64) (Comm, error) {
	op, suffix, ok := lookupToken(tok)
	if !ok {
		if !slices.Contains(noCollectiveTokens, tok) {
			return Comm{}, fmt.Errorf("unknown collective %q (valid: %s, optionally with _EP or _DP_EP, and %s, which run as no collective)",
				tok, strings.Join(opTokens[:], ", "), strings.Join(noCollectiveTokens, ", "))
		}
		return Comm{Bytes: bytes, Unknown: tok}, nil
	}
	if op == OpNone {
		return Comm{Bytes: bytes}, nil
	}
	g := suffix
	if g == GroupNone {
		g = defaultGroup(pol, p)
	}
	return Comm{Op: op, Group: g, Bytes: bytes}, nil
}

// noCollectiveTokens are the tokens AICB writes that SimAI runs as no
// collective (its Workload.cc falls through to NONE for them): AICB's
// "norm" line is a BROADCAST (aliyun/aicb
// workload_generator/SimAI_training_workload_generator.py, commented out
// in newer versions, present in the shipped files). Any other token is a
// typo and an error.
var noCollectiveTokens = []string{"BROADCAST"}

// lookupToken decodes a known collective token into its op and explicit
// group suffix (GroupNone when unsuffixed). Matching is exact and
// case-sensitive, as in SimAI.
func lookupToken(tok string) (Op, GroupKind, bool) {
	base, suffix := tok, GroupNone
	if b, ok := strings.CutSuffix(tok, "_DP_EP"); ok {
		base, suffix = b, GroupDPEP
	} else if b, ok := strings.CutSuffix(tok, "_EP"); ok {
		base, suffix = b, GroupEP
	}
	i := slices.Index(opTokens[:], base)
	if i < 0 || (Op(i) == OpNone && suffix != GroupNone) {
		return OpNone, GroupNone, false
	}
	return Op(i), suffix, true
}
