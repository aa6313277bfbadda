package cloud

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
)

// The tables of docs/model.md §7.1, copied from the reference's data/cdf so
// that a clone of the repository is complete on its own. cdf/README.md names
// their sources.
//
//go:embed cdf/*.cdf cdf/README.md
var builtinFS embed.FS

var builtins struct {
	once   sync.Once
	byName map[string]*CDF
	names  []string
}

func loadBuiltins() {
	entries, err := builtinFS.ReadDir("cdf")
	if err != nil {
		panic(fmt.Sprintf("cloud: embedded cdf directory: %v", err))
	}
	builtins.byName = make(map[string]*CDF)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".cdf")
		if !ok {
			continue
		}
		data, err := builtinFS.ReadFile(path.Join("cdf", e.Name()))
		if err != nil {
			panic(fmt.Sprintf("cloud: embedded %s: %v", e.Name(), err))
		}
		c, err := ParseCDF(e.Name(), bytes.NewReader(data))
		if err != nil {
			panic(fmt.Sprintf("cloud: embedded CDF does not parse: %v", err))
		}
		c.Name = name
		builtins.byName[name] = c
		builtins.names = append(builtins.names, name)
	}
	sort.Strings(builtins.names)
}

// Builtin returns the embedded CDF with the given name ("websearch",
// "homa_w1", ...). The CDF's points are shared; Name may be changed freely.
func Builtin(name string) (*CDF, bool) {
	builtins.once.Do(loadBuiltins)
	c, ok := builtins.byName[name]
	if !ok {
		return nil, false
	}
	cp := *c
	return &cp, true
}

// BuiltinNames lists the embedded CDFs, sorted.
func BuiltinNames() []string {
	builtins.once.Do(loadBuiltins)
	return append([]string(nil), builtins.names...)
}

// Load returns the built-in CDF called nameOrPath if there is one, and
// otherwise parses the file at that path. The CDF's Name is the argument.
func Load(nameOrPath string) (*CDF, error) {
	if c, ok := Builtin(nameOrPath); ok {
		return c, nil
	}
	f, err := os.Open(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("cdf %q is neither a built-in distribution (%s) nor a readable file: %w",
			nameOrPath, strings.Join(BuiltinNames(), ", "), err)
	}
	defer f.Close()
	return ParseCDF(nameOrPath, f)
}

// Info describes one built-in distribution, for listings.
type Info struct {
	Name       string
	Title      string  // first header comment
	Source     string  // repository, commit and path from the header
	MeanLinear float64 // bytes, Mean
	MeanStep   float64 // bytes, MeanStep
	Max        int64   // bytes
	Points     int
}

// Describe lists the built-in distributions in name order.
func Describe() []Info {
	names := BuiltinNames()
	out := make([]Info, 0, len(names))
	for _, n := range names {
		c, _ := Builtin(n)
		out = append(out, Info{
			Name: n, Title: c.Title(), Source: c.Source(),
			MeanLinear: c.Mean(), MeanStep: c.MeanStep(), Max: c.Max(), Points: c.Len(),
		})
	}
	return out
}
