package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dcsim/dcsim/scenario"
)

// Error is bad sweep input, located: scenario.Error, whose Path is where
// in the sweep file ("grid.workload.load[1]", "base", "zip"). It prints as
// one line:
//
//	storm.yaml:7: grid.workload.load[1]: workload.load: 1.5 is not in (0, 1)
//	storm.yaml:3: base: point 2 (topology.hosts=2): base.yaml:9: workload.hosts: ...
type Error = scenario.Error

// MaxPoints bounds the number of points a sweep file may expand to, so
// that a typo in a grid cannot ask for billions of simulations (or of
// allocations before the first one), and so that --dry-run and validate,
// which parse, print and hash every point (and validate builds each),
// answer in seconds: about 0.25 ms of CPU a point for --dry-run and 0.5
// ms for validate on a 128-host base (BenchmarkExpand), so 10,000 points
// take about 2.5 s and 5 s of CPU, spread over every core. It was 100,000
// (120 s of --dry-run); a packet-level sweep of 10,000 points is already
// days of simulation.
const MaxPoints = 10_000

// Spec is a parsed sweep file. Parse checks its shape; Points expands it
// and checks every point as a scenario.
type Spec struct {
	// File is the sweep file's name as given, used in errors.
	File string
	// Name is the name field, default the file's base name without
	// extension.
	Name string
	// Base is the base field as written: a built-in scenario name or a
	// scenario file path; default "default".
	Base string
	// Set are the fixed overrides, flattened to dotted paths, in file
	// order.
	Set []Override
	// Grid are the grid's dimensions in file order; the last varies
	// fastest.
	Grid []Dimension
	// Zip are the zip's keys, all with the same number of values; the zip
	// counts as one more dimension after the grid's, varying fastest.
	Zip []Dimension

	basePath string // Base resolved: the built-in name, or the file path to read
	builtin  bool
	baseLine int
	gridLine int
	zipLine  int
}

// Override is one fixed "path=value" of the set section.
type Override struct {
	Path  string
	Value Value
}

// Dimension is one swept key and its values.
type Dimension struct {
	// Path is the dotted scenario path, as --set takes it.
	Path   string
	Values []Value
	line   int
}

// Value is one value of a swept or fixed key.
type Value struct {
	// Text is the value as --set takes it: the YAML of the value in flow
	// style on one line ("0.3", "fair", "[1, 2]", "'on'").
	Text string
	// Param is the value stored in run.parquet: a string, bool, int64 or
	// float64, one type per dimension (see Parse).
	Param any
	// Line is the value's line in the sweep file.
	Line int
	tag  string
	node *yaml.Node
}

// Arg is the --set argument for v at path.
func (v Value) Arg(path string) string { return path + "=" + v.Text }

// IsSweepFile reports whether data is a sweep file rather than a scenario:
// a YAML mapping with a top-level grid, zip or base key. Unparsable YAML is
// not a sweep file (the scenario parser then reports the syntax error).
func IsSweepFile(data []byte) bool {
	root, err := scenario.ParseMapping("", data, "sweep", "a mapping")
	if err != nil {
		return false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "grid", "zip", "base":
			return true
		}
	}
	return false
}

// Load reads and parses the sweep file at path.
func Load(path string) (*Spec, error) {
	data, err := scenario.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read sweep: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a sweep file. filename names it in errors, gives the default
// name, and anchors a relative base path: a base that is not a built-in
// name is a scenario file path relative to the sweep file's directory
// (absolute paths are used as they are). Parse checks the file's shape;
// Points checks each point as a scenario.
func Parse(filename string, data []byte) (*Spec, error) {
	file := filename
	if file == "" {
		file = "<input>"
	}
	s := &Spec{File: file, Name: defaultName(filename), Base: "default"}
	bad := func(n *yaml.Node, field, format string, args ...any) error {
		e := &Error{File: file, Path: field, Msg: fmt.Sprintf(format, args...)}
		if n != nil {
			e.Line = n.Line
		}
		return e
	}
	root, err := parseDocument(file, data)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var baseNode, nameNode *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolve(root.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, bad(k, "", "want a field name, got %s", scenario.NodeKind(k))
		}
		if seen[k.Value] {
			return nil, bad(k, k.Value, "given twice")
		}
		seen[k.Value] = true
		switch k.Value {
		case "name":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.ScalarNode {
				return nil, bad(k, "name", "want a string, got %s", scenario.NodeKind(v))
			}
			s.Name, nameNode = v.Value, k
		case "base":
			if v.Kind != yaml.ScalarNode || isNull(v) || strings.TrimSpace(v.Value) == "" {
				return nil, bad(k, "base", "want a built-in scenario name or a scenario file path, got %s", scenario.NodeKind(v))
			}
			s.Base, baseNode = v.Value, k
		case "set":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return nil, bad(k, "set", "want a mapping of dotted.path: value, got %s", scenario.NodeKind(v))
			}
			if err := s.flattenSet(v, ""); err != nil {
				return nil, err
			}
		case "grid", "zip":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return nil, bad(k, k.Value, "want a mapping of dotted.path: [values], got %s", scenario.NodeKind(v))
			}
			dims, err := s.dimensions(v, k.Value)
			if err != nil {
				return nil, err
			}
			if k.Value == "grid" {
				s.Grid, s.gridLine = dims, k.Line
			} else {
				s.Zip, s.zipLine = dims, k.Line
			}
		default:
			return nil, bad(k, k.Value, "unknown field (valid: name, base, set, grid, zip)")
		}
	}
	if err := scenario.CheckName(s.Name); err != nil {
		line := 0
		if nameNode != nil {
			line = nameNode.Line
		}
		return nil, &Error{File: file, Line: line, Path: "name", Msg: err.Error()}
	}
	if baseNode != nil {
		s.baseLine = baseNode.Line
	}
	s.resolveBase(filename)
	if err := s.checkKeys(); err != nil {
		return nil, err
	}
	if len(s.Zip) > 0 {
		n := len(s.Zip[0].Values)
		for _, d := range s.Zip[1:] {
			if len(d.Values) != n {
				return nil, &Error{File: file, Line: d.line, Path: "zip." + d.Path,
					Msg: fmt.Sprintf("has %d values, but zip.%s has %d: zip lists vary together and must be of equal length", len(d.Values), s.Zip[0].Path, n)}
			}
		}
	}
	if n, ok := s.count(); !ok {
		return nil, &Error{File: file, Line: s.gridLine, Path: "grid", Msg: fmt.Sprintf("expands to %d points or more, above the limit of %d", n, MaxPoints)}
	}
	return s, nil
}

func defaultName(filename string) string {
	if filename == "" || strings.HasPrefix(filename, "<") {
		return "sweep"
	}
	base := filepath.Base(filename)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// resolveBase decides between a built-in and a file, with scenario.Load's
// rule: a name with a path separator or a .yaml/.yml extension is always
// a file; another name is a built-in if one has that name.
func (s *Spec) resolveBase(filename string) {
	b := s.Base
	isFile := strings.ContainsAny(b, `/\`) || strings.HasSuffix(b, ".yaml") || strings.HasSuffix(b, ".yml")
	if !isFile {
		for _, bi := range scenario.Builtins() {
			if bi.Name == b {
				s.basePath, s.builtin = b, true
				return
			}
		}
	}
	s.basePath = b
	if !filepath.IsAbs(b) && filename != "" && !strings.HasPrefix(filename, "<") {
		s.basePath = filepath.Join(filepath.Dir(filename), b)
	}
}

// flattenSet turns the set mapping into overrides: nested mappings merge
// into the base field by field (set: {nic: {mtu: 4096}} changes only
// nic.mtu), keys may be dotted, and any other value replaces the field.
func (s *Spec) flattenSet(m *yaml.Node, prefix string) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return &Error{File: s.File, Line: k.Line, Path: "set" + dot(prefix), Msg: "want a field name"}
		}
		path := prefix + k.Value
		if v.Kind == yaml.MappingNode && len(v.Content) > 0 {
			if err := s.flattenSet(v, path+"."); err != nil {
				return err
			}
			continue
		}
		val, err := s.value(v, "set."+path)
		if err != nil {
			return err
		}
		val.Line = k.Line
		s.Set = append(s.Set, Override{Path: path, Value: val})
	}
	return nil
}

func dot(prefix string) string {
	if prefix == "" {
		return ""
	}
	return "." + strings.TrimSuffix(prefix, ".")
}

// dimensions reads a grid or zip mapping: dotted path -> list of values.
func (s *Spec) dimensions(m *yaml.Node, section string) ([]Dimension, error) {
	var dims []Dimension
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return nil, &Error{File: s.File, Line: k.Line, Path: section, Msg: "want a dotted field path"}
		}
		field := section + "." + k.Value
		if v.Kind != yaml.SequenceNode {
			return nil, &Error{File: s.File, Line: k.Line, Path: field,
				Msg: fmt.Sprintf("want a list of values, got %s (a fixed value belongs in set)", scenario.NodeKind(v))}
		}
		if len(v.Content) == 0 {
			return nil, &Error{File: s.File, Line: k.Line, Path: field, Msg: "empty list: a dimension needs at least one value"}
		}
		d := Dimension{Path: k.Value, line: k.Line}
		for j, item := range v.Content {
			val, err := s.value(resolve(item), fmt.Sprintf("%s[%d]", field, j))
			if err != nil {
				return nil, err
			}
			d.Values = append(d.Values, val)
		}
		typeParams(d.Values)
		dims = append(dims, d)
	}
	return dims, nil
}

// maxValueText bounds one set or swept value as --set text, so that the
// work of checking every point stays in proportion to the file.
const maxValueText = 16 << 10

// value turns a YAML node into a Value: its one-line flow text for --set.
func (s *Spec) value(n *yaml.Node, field string) (Value, error) {
	text, err := flowText(n)
	if err == nil && len(text) > maxValueText {
		err = fmt.Errorf("value is %d bytes long in flow style, above the limit of %d", len(text), maxValueText)
	}
	if err != nil {
		return Value{}, &Error{File: s.File, Line: n.Line, Path: field, Msg: err.Error()}
	}
	return Value{Text: text, Line: n.Line, tag: n.ShortTag(), node: n}, nil
}

// checkKeys rejects a path given twice across set, grid and zip: which
// one would win is not obvious from the file.
func (s *Spec) checkKeys() error {
	where := map[string]string{}
	add := func(path, section string, line int) error {
		if prev, ok := where[path]; ok {
			return &Error{File: s.File, Line: line, Path: section + "." + path, Msg: "also given in " + prev}
		}
		where[path] = section
		return nil
	}
	for _, o := range s.Set {
		if err := add(o.Path, "set", o.Value.Line); err != nil {
			return err
		}
	}
	for _, d := range s.Grid {
		if err := add(d.Path, "grid", d.line); err != nil {
			return err
		}
	}
	for _, d := range s.Zip {
		if err := add(d.Path, "zip", d.line); err != nil {
			return err
		}
	}
	return nil
}

// count is the number of points; ok is false above MaxPoints.
func (s *Spec) count() (n int, ok bool) {
	n = 1
	for _, d := range s.Grid {
		n *= len(d.Values)
		if n > MaxPoints {
			return n, false
		}
	}
	if len(s.Zip) > 0 {
		n *= len(s.Zip[0].Values)
	}
	return n, n <= MaxPoints
}

// Len is the number of points the sweep expands to.
func (s *Spec) Len() int {
	n, _ := s.count()
	return n
}

// typeParams gives a dimension's values one run.parquet type: int64 when
// every value is a YAML integer, float64 when every value is a number,
// bool when every value is a boolean, else the string as written (sizes,
// durations, names, lists in flow style).
func typeParams(vals []Value) {
	all := func(tags ...string) bool {
		for _, v := range vals {
			if !slices.Contains(tags, v.tag) {
				return false
			}
		}
		return true
	}
	decodeAll := func(dst func(n *yaml.Node) (any, error)) bool {
		out := make([]any, len(vals))
		for i, v := range vals {
			x, err := dst(v.node)
			if err != nil {
				return false
			}
			out[i] = x
		}
		for i := range vals {
			vals[i].Param = out[i]
		}
		return true
	}
	switch {
	case all("!!int") && decodeAll(func(n *yaml.Node) (any, error) { var x int64; err := n.Decode(&x); return x, err }):
	case all("!!int", "!!float") && decodeAll(func(n *yaml.Node) (any, error) { var x float64; err := n.Decode(&x); return x, err }):
	case all("!!bool") && decodeAll(func(n *yaml.Node) (any, error) { var x bool; err := n.Decode(&x); return x, err }):
	default:
		for i, v := range vals {
			if v.node.Kind == yaml.ScalarNode {
				vals[i].Param = v.node.Value
			} else {
				vals[i].Param = v.Text
			}
		}
	}
}

// flowText prints n as YAML on one line: collections in flow style,
// multi-line strings double-quoted, comments dropped.
func flowText(n *yaml.Node) (string, error) {
	c, err := flowCopy(n, 0)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(c); err != nil {
		return "", fmt.Errorf("cannot print value: %v", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("cannot print value: %v", err)
	}
	text := strings.TrimSuffix(buf.String(), "\n")
	if strings.Contains(text, "\n") {
		return "", errors.New("value does not fit on one line; write it in flow style")
	}
	return text, nil
}

func flowCopy(n *yaml.Node, depth int) (*yaml.Node, error) {
	if depth > 32 {
		return nil, errors.New("value nested too deeply")
	}
	n = resolve(n)
	c := &yaml.Node{Kind: n.Kind, Tag: n.Tag, Value: n.Value, Style: n.Style &^ (yaml.LiteralStyle | yaml.FoldedStyle)}
	switch n.Kind {
	case yaml.ScalarNode:
		if strings.ContainsAny(n.Value, "\n\r") || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			c.Style = yaml.DoubleQuotedStyle
		}
	case yaml.MappingNode, yaml.SequenceNode:
		c.Style = yaml.FlowStyle
		for _, ch := range n.Content {
			cc, err := flowCopy(ch, depth+1)
			if err != nil {
				return nil, err
			}
			c.Content = append(c.Content, cc)
		}
	case yaml.AliasNode:
		return nil, errors.New("alias cycle")
	}
	return c, nil
}

// resolve follows an alias to its anchor.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 8; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// parseDocument parses data into its top-level mapping, with the bounds
// every YAML input has (scenario.ParseMapping).
func parseDocument(file string, data []byte) (*yaml.Node, error) {
	return scenario.ParseMapping(file, data, "sweep", "a mapping with name, base, set, grid and zip")
}
