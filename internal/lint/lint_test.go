// Package lint holds the project's own lint rules, written as tests.
package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/dcsim/dcsim/"

// layers lists docs/design.md "Layout" bottom up: a package may import only
// packages of lower layers (and, for implementations, the interface they
// implement, which is listed lower). Packages are matched by prefix.
var layers = [][]string{
	{"internal/"},
	{"engine"},
	{"fabric"},
	{"fabric/isolation"},
	{"cc"},
	{"transport/"},
	{"rnic"},
	{"cc/cctest", "cc/dcqcn", "cc/hpcc", "cc/timely", "cc/dctcp", "cc/none"},
	{"sched/"},
	{"workloads/"},
	{"analysis"},
	{"scenario"},
	{"wiring"},
	{"sweep"},
	{"cmd/"},
}

// core packages are simulation code: no wall clock, no file I/O, no
// goroutines, no global math/rand.
var core = []string{"engine", "fabric", "transport/", "rnic", "cc", "sched/"}

func layerOf(pkg string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l {
			if (pkg == strings.TrimSuffix(p, "/") || strings.HasPrefix(pkg, p) && strings.HasSuffix(p, "/") ||
				strings.HasPrefix(pkg, p+"/")) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

func isCore(pkg string) bool {
	for _, c := range core {
		if pkg == strings.TrimSuffix(c, "/") || strings.HasPrefix(pkg, strings.TrimSuffix(c, "/")+"/") {
			return true
		}
	}
	return false
}

type file struct {
	pkg  string
	path string
	ast  *ast.File
}

func sources(t *testing.T) []file {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var out []file
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "interop" || name == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		full, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		f.Decls = full.Decls
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		out = append(out, file{pkg: filepath.ToSlash(rel), path: path, ast: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Packages depend one way, downwards (docs/design.md "Layout").
func TestLayering(t *testing.T) {
	for _, f := range sources(t) {
		from := layerOf(f.pkg)
		if from < 0 {
			t.Errorf("%s: package %s is not in the layout (add it to lint.layers)", f.path, f.pkg)
			continue
		}
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			dep := strings.TrimPrefix(p, module)
			to := layerOf(dep)
			if to >= from && !(f.pkg != dep && strings.HasPrefix(f.pkg, "cc/") && dep == "cc") {
				t.Errorf("%s: %s imports %s, which is not below it", f.path, f.pkg, dep)
			}
		}
	}
}

// plugins are the implementations that scenarios choose by name:
// congestion-control algorithms, schedulers, workload kinds and the
// congestion-isolation switch. Only the composition root (wiring), which
// holds the plugin tables and builds a simulation, imports them; every
// other package reaches them through it, so that a new plugin is its own
// package plus one table line (issue 28).
var plugins = []string{"cc/dcqcn", "cc/hpcc", "cc/timely", "cc/dctcp", "cc/none",
	"sched/storm", "sched/baselines", "workloads/", "fabric/isolation"}

// pluginImporters are the packages allowed to import plugins: the
// composition root alone. (A key "PKG DEP" would allow one import.)
var pluginImporters = map[string]string{
	"wiring": "the composition root",
}

func isPlugin(pkg string) bool {
	for _, p := range plugins {
		if pkg == strings.TrimSuffix(p, "/") || strings.HasPrefix(pkg, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// Plugins are imported by the composition root only (a plugin may import
// packages below it, and a workload package its own subpackages).
func TestPluginImports(t *testing.T) {
	for _, f := range sources(t) {
		if isPlugin(f.pkg) {
			continue
		}
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, ok := strings.CutPrefix(p, module)
			if !ok || !isPlugin(dep) {
				continue
			}
			if pluginImporters[f.pkg] == "" && pluginImporters[f.pkg+" "+dep] == "" {
				t.Errorf("%s: %s imports the plugin %s: only the composition root (wiring) may", f.path, f.pkg, dep)
			}
		}
	}
}

// schemaImports are all that scenario, the schema, may import of this
// module: units (engine) and text helpers. It imports no simulation
// package, so that a tool that only reads and writes scenarios can import
// it, and its plugin tables come from the composition root (issue 28).
var schemaImports = []string{"engine", "internal/textline"}

func TestScenarioIsSchema(t *testing.T) {
	for _, f := range sources(t) {
		if f.pkg != "scenario" {
			continue
		}
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if dep, ok := strings.CutPrefix(p, module); ok && !slices.Contains(schemaImports, dep) {
				t.Errorf("%s: scenario imports %s: the schema imports only %s", f.path, dep, strings.Join(schemaImports, ", "))
			}
		}
	}
}

// parallelFiles may use goroutines, sync and the wall clock: the parallel
// engine, whose threads meet only at a window's end and whose order of
// delivery depends on the simulation alone (docs/parallel.md,
// "Determinism"; engine TestWorldSameForEveryThreadCount, run with -race
// in .ci/run). Its wall clock fills WorldStats and nothing the run reads.
var parallelFiles = map[string]bool{"engine/world.go": true}

// The simulation core uses no wall clock, files, goroutines or global
// randomness: runs must be deterministic and I/O belongs above scenario.
func TestCoreIsPure(t *testing.T) {
	forbidden := map[string]string{"time": "wall clock", "os": "file I/O", "math/rand": "global randomness",
		"io/ioutil": "file I/O", "net": "network I/O", "sync": "concurrency"}
	for _, f := range sources(t) {
		if !isCore(f.pkg) {
			continue
		}
		parallel := parallelFiles[f.pkg+"/"+filepath.Base(f.path)]
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if why, bad := forbidden[p]; bad && !(parallel && (p == "sync" || p == "time")) {
				t.Errorf("%s: core package %s imports %s (%s)", f.path, f.pkg, p, why)
			}
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.GoStmt:
				if !parallel {
					t.Errorf("%s: goroutine in core package %s", f.path, f.pkg)
				}
			case *ast.FuncDecl:
				if x.Name.Name == "init" && x.Recv == nil {
					t.Errorf("%s: init() in core package %s: register explicitly", f.path, f.pkg)
				}
			}
			return true
		})
	}
}

func TestLayerOf(t *testing.T) {
	for _, tc := range []struct {
		a, b string // a must be below b
	}{
		{"engine", "fabric"}, {"fabric", "cc"}, {"cc", "transport/rocev2"}, {"transport/rocev2", "rnic"},
		{"rnic", "cc/dcqcn"}, {"cc/dcqcn", "sched/storm"}, {"sched/baselines", "workloads/cloud"},
		{"workloads/simai", "analysis"}, {"analysis/queueing", "scenario"}, {"scenario", "wiring"}, {"wiring", "sweep"},
		{"sweep", "cmd/dcsim"}, {"internal/invariants", "engine"},
	} {
		if la, lb := layerOf(tc.a), layerOf(tc.b); la < 0 || lb < 0 || la >= lb {
			t.Errorf("layer(%s) = %d, layer(%s) = %d: want the first below the second", tc.a, la, tc.b, lb)
		}
	}
	if isCore("scenario") || !isCore("cc/dcqcn") || !isCore("rnic") {
		t.Error("isCore misclassifies packages")
	}
}
