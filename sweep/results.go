package sweep

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/scenario"
	"go.yaml.in/yaml/v3"
)

// RunResult is one complete run directory: its run.parquet row and
// swept parameters, the size and slowdown of its in-window flows, and its
// iterations when the run had a training workload. Only what the
// summaries need of a flow is kept (16 bytes, not a whole FlowRecord), so
// that a report over a 420-point sweep with millions of flows per point
// fits in memory; the flows themselves stay in each run's flows.parquet.
type RunResult struct {
	Dir        string
	Run        analysis.RunRecord
	Params     []analysis.Param
	Flows      []analysis.FlowStat
	Iterations []analysis.IterationRecord
	// Config identifies the run's resolved scenario but for its seed and
	// name: 12 hex digits of a hash of scenario.yaml without those two
	// lines, "-" when the directory has no scenario.yaml. Runs with equal
	// Config differ only in seed (and name); it is the "config" column.
	Config string
	// fields are the run's resolved scenario (scenario.yaml) as dotted
	// field paths and printed values, in file order (fieldOrder): every
	// scenario field is a column, so that runs of plain dcsim run, which
	// have no swept parameters, can be grouped by what tells them apart.
	fields     map[string]string
	fieldOrder []string
}

// Results are the runs found under some directories.
type Results struct {
	// Runs are the complete runs, ordered by directory.
	Runs []*RunResult
	// Failed are directories with an ErrorFile and no run.parquet: failed
	// sweep points.
	Failed []string
	// Repeats are run directories left out of Runs because they hold a
	// run already read from another directory: the same config_hash, so
	// the same scenario and seed, and so the same results (a run repeated
	// into a fresh --out, a sweep's --out copied). Each run counts once,
	// from the first of its directories: pooling it twice would weigh one
	// seed double.
	Repeats []Repeat
}

// Repeat is a run directory holding the run read from Of.
type Repeat struct{ Dir, Of string }

// Collect finds every run under dirs: a directory holding run.parquet is a
// run (a single run's --out, or a sweep point), searched for recursively,
// so a sweep's --out, several sweeps, or a mix all work. A directory
// reached twice is read once. Directories without run.parquet are
// incomplete and skipped; those with an ErrorFile are listed in Failed.
func Collect(dirs ...string) (*Results, error) {
	res := &Results{}
	seen := map[string]bool{}
	for _, root := range dirs {
		st, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s: not a directory", root)
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			abs, err := filepath.Abs(path)
			if err != nil {
				return err
			}
			if seen[abs] {
				return filepath.SkipDir
			}
			seen[abs] = true
			switch {
			case fileExists(filepath.Join(path, analysis.RunFile)):
				r, err := readRun(path)
				if err != nil {
					return err
				}
				res.Runs = append(res.Runs, r)
			case fileExists(filepath.Join(path, ErrorFile)):
				res.Failed = append(res.Failed, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(res.Runs, func(a, b *RunResult) int { return cmp.Compare(a.Dir, b.Dir) })
	slices.Sort(res.Failed)
	res.dropRepeats()
	return res, nil
}

// dropRepeats moves every run whose config_hash an earlier run (by
// directory) has to Repeats. A run.parquet from before config_hash has
// its run_id, which was the scenario hash then, in its place.
func (res *Results) dropRepeats() {
	first := map[string]string{}
	kept := res.Runs[:0]
	for _, r := range res.Runs {
		key := r.Run.ConfigHash
		if key == "" {
			key = r.Run.RunID
		}
		if of, ok := first[key]; ok {
			res.Repeats = append(res.Repeats, Repeat{Dir: r.Dir, Of: of})
			continue
		}
		first[key] = r.Dir
		kept = append(kept, r)
	}
	clear(res.Runs[len(kept):])
	res.Runs = kept
}

func readRun(dir string) (*RunResult, error) {
	rr, params, err := analysis.ReadRun(filepath.Join(dir, analysis.RunFile))
	if err != nil {
		return nil, err
	}
	r := &RunResult{Dir: dir, Run: rr, Params: params, Config: "-"}
	if yml, err := os.ReadFile(filepath.Join(dir, scenario.ScenarioFile)); err == nil {
		r.Config = configOf(yml)
		r.fields, r.fieldOrder = scenarioFields(yml)
	}
	if r.Flows, err = analysis.ReadFlowStats(filepath.Join(dir, analysis.FlowsFile)); err != nil {
		return nil, err
	}
	it := filepath.Join(dir, analysis.IterationsFile)
	if fileExists(it) {
		if r.Iterations, err = analysis.ReadIterations(it); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// configOf is RunResult.Config of a scenario file's contents.
func configOf(data []byte) string {
	h := sha256.New()
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.HasPrefix(line, "seed:") || strings.HasPrefix(line, "name:") {
			continue
		}
		h.Write([]byte(line + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// scenarioFields reads a scenario file's contents as dotted field paths
// (workload.load, switch.ecn.kmin, extra_workloads[0].kind) and their
// values as written, lists and maps in YAML's flow style; seed and name
// are left out (the seed is a run.parquet column; a name only labels).
// A file that does not parse has none.
func scenarioFields(data []byte) (map[string]string, []string) {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil, nil
	}
	fields := map[string]string{}
	var order []string
	var walk func(prefix string, n *yaml.Node)
	walk = func(prefix string, n *yaml.Node) {
		switch {
		case n.Kind == yaml.MappingNode && len(n.Content) > 0:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if prefix == "" && (k == "seed" || k == "name") {
					continue
				}
				if prefix != "" {
					k = prefix + "." + k
				}
				walk(k, n.Content[i+1])
			}
		case n.Kind == yaml.SequenceNode && len(n.Content) > 0 && n.Content[0].Kind == yaml.MappingNode:
			for i, c := range n.Content {
				walk(fmt.Sprintf("%s[%d]", prefix, i), c)
			}
		case n.Kind == yaml.ScalarNode:
			fields[prefix] = n.Value
			order = append(order, prefix)
		default:
			c := *n
			c.Style = yaml.FlowStyle
			for _, e := range c.Content {
				e.Style |= yaml.FlowStyle
			}
			b, err := yaml.Marshal(&c)
			if err != nil {
				return
			}
			fields[prefix] = strings.TrimSpace(string(b))
			order = append(order, prefix)
		}
	}
	walk("", doc.Content[0])
	return fields, order
}

// runFields maps the scalar pinned run.parquet columns to RunRecord
// fields; counters, a map, is not a grouping column.
var runFields = func() map[string]int {
	m := map[string]int{}
	for i, f := range slices.Collect(reflect.TypeFor[analysis.RunRecord]().Fields()) {
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if f.Type.Kind() != reflect.Map {
			m[name] = i
		}
	}
	return m
}()

// Value is the value of column name for the run, printed: a pinned
// run.parquet column or a swept parameter. ok is false when the run has no
// such column.
func (r *RunResult) Value(name string) (v string, ok bool) {
	if i, ok := runFields[name]; ok {
		return formatValue(reflect.ValueOf(r.Run).Field(i).Interface()), true
	}
	if name == "config" {
		return r.Config, true
	}
	for _, p := range r.Params {
		if p.Name == name {
			return formatValue(p.Value), true
		}
	}
	v, ok = r.fields[name]
	return v, ok
}

func formatValue(v any) string {
	switch x := v.(type) {
	case *float64:
		if x == nil {
			return "-"
		}
		return strconv.FormatFloat(*x, 'g', -1, 64)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// Columns lists the columns runs can be grouped by: the scalar pinned
// run.parquet columns, then every swept column found, in first-seen
// order. Every field of a run's scenario.yaml (workload.load,
// switch.ecn.kmin, ...) is a column too, but not listed: there are
// hundreds (HasColumn).
func (r *Results) Columns() []string {
	var cols []string
	for _, c := range analysis.RunColumns() {
		if _, ok := runFields[c]; ok {
			cols = append(cols, c)
		}
	}
	return append(append(cols, "config"), r.Swept()...)
}

// HasColumn reports whether name is a column: one of Columns, or a field
// of some run's scenario.
func (r *Results) HasColumn(name string) bool {
	if slices.Contains(r.Columns(), name) {
		return true
	}
	for _, run := range r.Runs {
		if _, ok := run.fields[name]; ok {
			return true
		}
	}
	return false
}

// Swept lists the swept parameter columns of the runs, in first-seen
// order (runs ordered by directory, columns in file order).
func (r *Results) Swept() []string {
	var out []string
	for _, run := range r.Runs {
		for _, p := range run.Params {
			if !slices.Contains(out, p.Name) {
				out = append(out, p.Name)
			}
		}
	}
	return out
}

// DefaultGroupBy groups by everything that differs between the runs but
// the seed, so that only runs of one configuration are pooled: scheduler
// and cc, every swept column but nic.scheduler and cc.algorithm (which the
// first two already show), then each of scenario, workload and load, then
// each scenario field (a --set topology.kind of plain runs, say), and
// last config (a run without scenario.yaml), that still tells apart runs
// agreeing on the keys before it. Runs that differ only in seed fall in
// one group.
func (r *Results) DefaultGroupBy() []string {
	keys := []string{"scheduler", "cc"}
	for _, c := range r.Swept() {
		if c != "nic.scheduler" && c != "cc.algorithm" {
			keys = append(keys, c)
		}
	}
	for _, c := range []string{"scenario", "workload", "load"} {
		if r.splits(keys, c) {
			keys = append(keys, c)
		}
	}
	// Fields the keys already show: the scheduler and algorithm, a
	// workload's kind and load.
	shown := []string{"nic.scheduler", "cc.algorithm", "workload.kind", "workload.load"}
	for _, c := range r.scenarioFields() {
		if !slices.Contains(keys, c) && !slices.Contains(shown, c) && r.splits(keys, c) {
			keys = append(keys, c)
		}
	}
	if r.splits(keys, "config") {
		keys = append(keys, "config")
	}
	return keys
}

// scenarioFields are the scenario fields of the runs, in first-seen order.
func (r *Results) scenarioFields() []string {
	var out []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		for _, f := range run.fieldOrder {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// splits reports whether two runs with the same values of keys differ in
// column c.
func (r *Results) splits(keys []string, c string) bool {
	seen := map[string]string{} // values of keys -> a value of c seen with them
	for _, run := range r.Runs {
		id := strings.Join(run.values(keys), "\x00")
		v, _ := run.Value(c)
		if prev, ok := seen[id]; ok && prev != v {
			return true
		}
		seen[id] = v
	}
	return false
}

// values is the run's values of keys, "-" where it lacks one.
func (run *RunResult) values(keys []string) []string {
	vals := make([]string, len(keys))
	for i, k := range keys {
		v, ok := run.Value(k)
		if !ok {
			v = "-"
		}
		vals[i] = v
	}
	return vals
}

// Group is the runs that share values of the grouping columns, analysed
// together: their in-window flows pooled, as if from one longer run.
type Group struct {
	Keys   []string // the grouping columns
	Values []string // this group's values of them; "-" where a run lacks the column
	Runs   []*RunResult
	// Analysis is analysis.Analyze over the pooled flows, in buckets of
	// analysis.DefaultStepPercent and without a size split (the BDP is a
	// property of each run's topology, which groups may mix).
	Analysis   analysis.Analysis
	Iterations IterationSummary
	parts      [][]analysis.FlowStat // the runs' flows, not copied
}

// Label is "k1=v1 k2=v2", or "all" without grouping columns.
func (g *Group) Label() string {
	if len(g.Keys) == 0 {
		return "all"
	}
	parts := make([]string, len(g.Keys))
	for i, k := range g.Keys {
		parts[i] = k + "=" + g.Values[i]
	}
	return strings.Join(parts, " ")
}

// Flows are the stats of the group's in-window flows, every run's in run
// order, in a new slice.
func (g *Group) Flows() []analysis.FlowStat {
	out := make([]analysis.FlowStat, 0, g.Analysis.Overall.Total())
	for _, p := range g.parts {
		out = append(out, p...)
	}
	return out
}

// IterationSummary describes the iteration times of a group's training
// runs, in ns. Count is 0 when no run had iterations.parquet; the other
// fields are NaN then.
type IterationSummary struct {
	Count                 int
	Mean, P50, P99        float64
	MeanCompute, MeanComm float64 // mean compute_ns and exposed_comm_ns
	// Workloads is set, and the rest left zero, when the group's training
	// runs have more than one workload: their iteration times are never
	// averaged together.
	Workloads int
}

// Group splits the runs by the values of keys (see Columns); nil keys
// means DefaultGroupBy. Groups are ordered by their values, numerically
// where both values are numbers.
func (r *Results) Group(keys []string) ([]*Group, error) {
	if keys == nil {
		keys = r.DefaultGroupBy()
	}
	for _, k := range keys {
		if !r.HasColumn(k) {
			return nil, fmt.Errorf("group by %q: no such column (have: %s, and the scenario's fields, such as workload.load)", k, strings.Join(r.Columns(), ", "))
		}
	}
	byKey := map[string]*Group{}
	var groups []*Group
	for _, run := range r.Runs {
		vals := run.values(keys)
		id := strings.Join(vals, "\x00")
		g := byKey[id]
		if g == nil {
			g = &Group{Keys: keys, Values: vals}
			byKey[id] = g
			groups = append(groups, g)
		}
		g.Runs = append(g.Runs, run)
	}
	slices.SortStableFunc(groups, func(a, b *Group) int {
		for i := range a.Values {
			if c := compareValues(a.Values[i], b.Values[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	for _, g := range groups {
		var its []analysis.IterationRecord
		workloads := map[string]bool{}
		for _, run := range g.Runs {
			g.parts = append(g.parts, run.Flows) // shared, not copied: only read
			its = append(its, run.Iterations...)
			if len(run.Iterations) > 0 {
				workloads[run.Run.Workload] = true
			}
		}
		g.Analysis = analysis.AnalyzeParts(g.parts, analysis.DefaultStepPercent, 0)
		g.Iterations = summarizeIterations(its)
		if len(workloads) > 1 {
			// Iteration times of different models say nothing together.
			g.Iterations = IterationSummary{Workloads: len(workloads)}
		}
	}
	return groups, nil
}

func compareValues(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return cmp.Compare(a, b)
}

func summarizeIterations(its []analysis.IterationRecord) IterationSummary {
	nan := math.NaN()
	s := IterationSummary{Count: len(its), Mean: nan, P50: nan, P99: nan, MeanCompute: nan, MeanComm: nan}
	if len(its) == 0 {
		return s
	}
	d := make([]float64, len(its))
	var comp, comm float64
	for i, it := range its {
		d[i] = float64(it.DurationNs)
		comp += float64(it.ComputeNs)
		comm += float64(it.ExposedCommNs)
	}
	slices.Sort(d)
	var sum float64
	for _, v := range d {
		sum += v
	}
	n := float64(len(d))
	s.Mean, s.P50, s.P99 = sum/n, analysis.Pctl(d, 0.5), analysis.Pctl(d, 0.99)
	s.MeanCompute, s.MeanComm = comp/n, comm/n
	return s
}

// ErrNoRuns is returned by report helpers given no complete run.
var ErrNoRuns = errors.New("no complete run (no run.parquet) found")
