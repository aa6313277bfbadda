package sweep

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

// Point is one simulation of a sweep.
type Point struct {
	// Index is the point's place in the expansion order, from 0. Shards
	// select points by it.
	Index int
	// Scenario is the resolved scenario: base, then set, then the swept
	// values, each applied as a --set.
	Scenario *scenario.Scenario
	// Hash is Scenario.Hash(): the name of the point's directory and its
	// run.parquet's config_hash.
	Hash string
	// Swept are the point's swept values as --set arguments, grid keys in
	// file order, then zip keys.
	Swept []string
	// Params are the run.parquet columns of the swept values, named by
	// dotted path. A swept path whose name is a pinned run.parquet column
	// (seed) has no extra column: the pinned one holds it.
	Params []analysis.Param
}

// Label prints the swept values, "nic.scheduler=fair workload.load=0.3",
// or "(base)" for a sweep with nothing swept.
func (p *Point) Label() string {
	if len(p.Swept) == 0 {
		return "(base)"
	}
	return strings.Join(p.Swept, " ")
}

// Points expands the sweep: the cartesian product of the grid's
// dimensions (the last varying fastest), times the zip's index (varying
// fastest of all). Each point is the base scenario with the set overrides
// and then the point's values applied as --set arguments, so it is parsed
// and validated exactly as "dcsim run BASE --set ..." would be. An invalid
// point is an *Error at the line of the value at fault (or of base when
// the fault is not in a swept value). Two points that resolve to the same
// scenario are an error too: they would share a directory.
//
// Each point is parsed and printed (for its hash) on its own, about 0.5 ms
// of CPU, so the points are expanded on every CPU (inParallel); the error
// returned is still the first point's in expansion order.
func (s *Spec) Points() ([]Point, error) {
	n, ok := s.count()
	if !ok {
		return nil, &Error{File: s.File, Line: s.gridLine, Path: "grid", Msg: fmt.Sprintf("expands to more than %d points", MaxPoints)}
	}
	load, err := s.baseLoader()
	if err != nil {
		return nil, err
	}
	origin := s.origins()
	fixed := make([]string, len(s.Set))
	for i, o := range s.Set {
		fixed[i] = o.Value.Arg(o.Path)
	}
	pinned := analysis.RunColumns()
	dims := s.dims()
	points := make([]Point, n)
	err = inParallel(n, func(i int) error {
		p := Point{Index: i}
		rem := i
		choice := make([]int, len(dims))
		for d := len(dims) - 1; d >= 0; d-- {
			choice[d] = rem % dims[d].size
			rem /= dims[d].size
		}
		for d, dim := range dims {
			for _, key := range dim.keys {
				v := key.Values[choice[d]]
				p.Swept = append(p.Swept, v.Arg(key.Path))
				if !slices.Contains(pinned, key.Path) {
					p.Params = append(p.Params, analysis.Param{Name: key.Path, Value: v.Param})
				}
			}
		}
		sc, err := load(append(slices.Clip(fixed), p.Swept...))
		if err != nil {
			return s.pointError(&p, origin, err)
		}
		p.Scenario, p.Hash = sc, sc.Hash()
		points[i] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	byHash := make(map[string]int, n)
	for i := range points {
		p := &points[i]
		if j, dup := byHash[p.Hash]; dup {
			line, field := s.gridLine, "grid"
			if line == 0 {
				line, field = s.zipLine, "zip"
			}
			return nil, &Error{File: s.File, Line: line, Path: field,
				Msg: fmt.Sprintf("points %d (%s) and %d (%s) resolve to the same scenario %s: a swept value has no effect (a knob of a plugin not selected?); split the sweep or use zip",
					j, points[j].Label(), i, p.Label(), p.Hash)}
		}
		byHash[p.Hash] = i
	}
	return points, nil
}

// inParallel calls f(i) for i in [0, n) on GOMAXPROCS goroutines and
// returns the error of the smallest i that failed, as a loop in order
// would: once i fails, no index above it is started, and every index
// below it still runs.
func inParallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	var next, failed atomic.Int64
	failed.Store(int64(n))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) || i > failed.Load() {
					return
				}
				if errs[i] = f(int(i)); errs[i] != nil {
					for f := failed.Load(); i < f && !failed.CompareAndSwap(f, i); f = failed.Load() {
					}
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f < int64(n) {
		return errs[f]
	}
	return nil
}

// dim is one dimension of the expansion: a grid key, or all zip keys.
type dim struct {
	keys []Dimension
	size int
}

func (s *Spec) dims() []dim {
	var out []dim
	for _, d := range s.Grid {
		out = append(out, dim{keys: []Dimension{d}, size: len(d.Values)})
	}
	if len(s.Zip) > 0 {
		out = append(out, dim{keys: s.Zip, size: len(s.Zip[0].Values)})
	}
	return out
}

type origin struct {
	field string
	line  int
}

// origins maps each --set argument the sweep makes to its place in the
// file, so that a scenario error about an override lands on its line.
func (s *Spec) origins() map[string]origin {
	m := map[string]origin{}
	for _, o := range s.Set {
		m[o.Value.Arg(o.Path)] = origin{"set." + o.Path, o.Value.Line}
	}
	for _, sec := range []struct {
		name string
		dims []Dimension
	}{{"grid", s.Grid}, {"zip", s.Zip}} {
		for _, d := range sec.dims {
			for j, v := range d.Values {
				if _, ok := m[v.Arg(d.Path)]; !ok {
					m[v.Arg(d.Path)] = origin{fmt.Sprintf("%s.%s[%d]", sec.name, d.Path, j), v.Line}
				}
			}
		}
	}
	return m
}

func (s *Spec) pointError(p *Point, origins map[string]origin, err error) error {
	var se *scenario.Error
	if errors.As(err, &se) && se.Set != "" {
		if o, ok := origins[se.Set]; ok {
			msg := se.Msg
			if se.Path != "" {
				msg = se.Path + ": " + msg
			}
			if strings.HasPrefix(o.field, "set.") && len(p.Swept) > 0 {
				// A fixed value that fails only with some swept values.
				msg += fmt.Sprintf(" (at point %d: %s)", p.Index, p.Label())
			}
			return &Error{File: s.File, Line: o.line, Path: o.field, Msg: msg}
		}
	}
	msg := err.Error()
	if len(s.Grid)+len(s.Zip) > 0 {
		msg = fmt.Sprintf("point %d (%s): %s", p.Index, p.Label(), msg)
	}
	return &Error{File: s.File, Line: s.baseLine, Path: "base", Msg: msg}
}

// baseLoader returns a function that parses the base with overrides. A
// base file is read once.
func (s *Spec) baseLoader() (func(sets []string) (*scenario.Scenario, error), error) {
	if s.builtin {
		return func(sets []string) (*scenario.Scenario, error) { return wiring.Catalog().Load(s.basePath, sets) }, nil
	}
	data, err := os.ReadFile(s.basePath)
	if err != nil {
		msg := fmt.Sprintf("read scenario %s: %v", s.basePath, errors.Unwrap(err))
		if errors.Is(err, os.ErrNotExist) {
			msg = fmt.Sprintf("%q is neither a built-in scenario nor a file (looked for %s; a relative base is relative to the sweep file's directory)", s.Base, s.basePath)
		}
		return nil, &Error{File: s.File, Line: s.baseLine, Path: "base", Msg: msg}
	}
	return func(sets []string) (*scenario.Scenario, error) { return wiring.Catalog().Parse(s.basePath, data, sets) }, nil
}

// Check builds every point's simulation and drops it, so that what only
// Build finds (a topology or flow-list file that is missing or malformed)
// is reported before anything runs, located like Points' errors.
func (s *Spec) Check(points []Point) error {
	return inParallel(len(points), func(i int) error {
		p := &points[i]
		if _, err := wiring.Build(p.Scenario); err != nil {
			return s.pointError(p, nil, err)
		}
		return nil
	})
}

// Shard selects a deterministic subset of points: those whose index
// modulo Count equals Index. Shards 0..Count-1 together hold every point
// exactly once, and a point's shard depends only on its index, so every
// task of an array job can expand the sweep on its own and agree.
type Shard struct {
	Index, Count int
}

// All is the shard of every point.
var All = Shard{0, 1}

// ParseShard reads "I/N" with 0 <= I < N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want I/N, e.g. 0/4", s)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want I/N with whole numbers, e.g. 0/4", s)
	}
	if n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want 0 <= I < N", s)
	}
	return Shard{i, n}, nil
}

func (sh Shard) String() string { return fmt.Sprintf("%d/%d", sh.Index, max(sh.Count, 1)) }

// Select returns the points of the shard, in index order. The zero Shard
// selects every point.
func (sh Shard) Select(points []Point) []Point {
	if sh.Count <= 1 {
		return points
	}
	var out []Point
	for _, p := range points {
		if p.Index%sh.Count == sh.Index {
			out = append(out, p)
		}
	}
	return out
}
