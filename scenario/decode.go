package scenario

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/dcsim/dcsim/engine"
	"go.yaml.in/yaml/v3"
)

// The decoder walks the yaml.Node tree itself instead of calling
// yaml.Node.Decode on the whole document, for three reasons: every error
// must carry the field's dotted path and line (yaml.v3's TypeError has
// only the line), fields absent from the input must keep their defaults
// while an explicit 0 or false is honoured, and the scheduler and CC
// sub-maps (nic.<name>, cc.<name>) can only be decoded once the rest of
// the scenario, which chooses them and sets their defaults, is known.
// Every unknown key is an error (what yaml.v3 calls KnownFields).

// The decoder keeps its own count of the values it decodes (budget,
// depth) against the limits of yamlfile.go, because --set values are
// grafted onto the tree after ParseMapping has checked it.

type decoder struct {
	file string
	cat  *Catalog
	// origin maps nodes made by --set to the argument that made them.
	origin  map[*yaml.Node]string
	budget  int
	depth   int
	pending []pendingParams
	// workloadSubs are the kinds' sub-maps decoded in each workload, for
	// normaliseWorkloads.
	workloadSubs map[*Workload][]workloadSub
}

// pendingParams is a nic.<name> or cc.<name> sub-map seen while decoding,
// decoded once the plugin's defaults are known.
type pendingParams struct {
	holder pluginHolder
	plugin Plugin
	path   string
	node   *yaml.Node
}

// pluginHolder is a section with plugin sub-maps: NIC and CC.
type pluginHolder interface {
	pluginTable(c *Catalog) (table []Plugin, what string)
	active() string
	setParams(any)
}

func (*NIC) pluginTable(c *Catalog) ([]Plugin, string) { return c.Schedulers, "scheduler" }
func (n *NIC) active() string                          { return n.Scheduler }
func (n *NIC) setParams(p any)                         { n.Params = p }
func (*CC) pluginTable(c *Catalog) ([]Plugin, string)  { return c.Algorithms, "algorithm" }
func (c *CC) active() string                           { return c.Algorithm }
func (c *CC) setParams(p any)                          { c.Params = p }

// defaulter is a type that the decoder defaults before decoding into a
// new value of it (a list element or a sub-map behind a pointer).
type defaulter interface{ setDefaults() }

var (
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	timeType        = reflect.TypeFor[engine.Time]()
	rateType        = reflect.TypeFor[engine.Rate]()
)

func newDecoder(file string, cat *Catalog) *decoder {
	return &decoder{file: file, cat: cat, origin: make(map[*yaml.Node]string), budget: maxNodes,
		workloadSubs: map[*Workload][]workloadSub{}}
}

// errAt locates an error at node n: the --set argument that made n, or
// n's line in the file.
func (d *decoder) errAt(n *yaml.Node, path, format string, args ...any) *Error {
	e := &Error{File: d.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if set, ok := d.origin[n]; ok {
		e.Set = set
	} else if n != nil {
		e.Line = n.Line
	}
	return e
}

// nullValue reports whether n is null once aliases are followed.
func nullValue(n *yaml.Node) bool {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < maxDepth; i++ {
		n = n.Alias
	}
	return isNull(n)
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// decode stores n into v. A null node leaves v as it is: null means
// absent, so the default stays.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) error {
	d.budget--
	if d.budget < 0 {
		return d.errAt(n, path, "document too large: more than %d values once aliases are expanded", maxNodes)
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxDepth {
		return d.errAt(n, path, "nested more than %d levels deep", maxDepth)
	}
	if n.Kind == yaml.AliasNode {
		return d.decode(n.Alias, v, path)
	}
	if isNull(n) {
		return nil
	}
	if v.CanAddr() && reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		if err := v.Addr().Interface().(yaml.Unmarshaler).UnmarshalYAML(n); err != nil {
			return d.errAt(n, path, "%v", err)
		}
		return nil
	}
	switch v.Type() {
	case timeType:
		return d.decodeText(n, v, path, func(s string) (int64, error) { t, err := parseTime(s); return int64(t), err })
	case rateType:
		return d.decodeText(n, v, path, func(s string) (int64, error) { r, err := parseRate(s); return int64(r), err })
	}
	switch v.Kind() {
	case reflect.Struct:
		return d.decodeStruct(n, v, path)
	case reflect.Pointer:
		if !v.IsNil() {
			return d.decode(n, v.Elem(), path)
		}
		nv := reflect.New(v.Type().Elem())
		if df, ok := nv.Interface().(defaulter); ok {
			df.setDefaults()
		}
		if err := d.decode(n, nv.Elem(), path); err != nil {
			return err
		}
		v.Set(nv)
		return nil
	case reflect.Slice:
		return d.decodeList(n, v, path)
	case reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return d.errAt(n, path, "want a list of %d values, got %s", v.Len(), NodeKind(n))
		}
		if len(n.Content) != v.Len() {
			return d.errAt(n, path, "want %d values, got %d", v.Len(), len(n.Content))
		}
		for i, item := range n.Content {
			if err := d.decode(item, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	}
	return d.decodeScalar(n, v, path)
}

func (d *decoder) decodeText(n *yaml.Node, v reflect.Value, path string, parse func(string) (int64, error)) error {
	s, err := scalarValue(n)
	if err == nil {
		var x int64
		if x, err = parse(s); err == nil {
			v.SetInt(x)
			return nil
		}
	}
	return d.errAt(n, path, "%v", err)
}

func (d *decoder) decodeList(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.SequenceNode {
		return d.errAt(n, path, "want a list, got %s", NodeKind(n))
	}
	if len(n.Content) == 0 {
		// Empty is nil, so that a printed "[]" reads back equal.
		v.Set(reflect.Zero(v.Type()))
		return nil
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		e := out.Index(i)
		if df, ok := e.Addr().Interface().(defaulter); ok {
			df.setDefaults()
		}
		if err := d.decode(item, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	v.Set(out)
	return nil
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return d.errAt(n, path, "want a mapping, got %s", NodeKind(n))
	}
	fields := fieldsOf(v.Type())
	holder, _ := v.Addr().Interface().(pluginHolder)
	seen := make(map[string]*yaml.Node)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return d.errAt(k, path, "want a field name, got %s", NodeKind(k))
		}
		if k.ShortTag() == "!!merge" {
			return d.errAt(k, path, "merge keys (<<) are not supported")
		}
		name := k.Value
		fp := joinPath(path, name)
		if first, dup := seen[name]; dup {
			return d.errAt(k, fp, "set twice (first at line %d)", first.Line)
		}
		seen[name] = k
		f, ok := fieldNamed(fields, name)
		if ok {
			if err := d.decode(val, v.FieldByIndex(f.index), fp); err != nil {
				return err
			}
			continue
		}
		if w, ok := v.Addr().Interface().(*Workload); ok {
			if k, found := d.cat.WorkloadKind(name); found && k.Params != nil {
				if nullValue(val) {
					continue // null means absent, as for any field
				}
				p := k.Params()
				// Through the pointer, as when the sub-maps were fields.
				if err := d.decode(val, reflect.ValueOf(p), fp); err != nil {
					return err
				}
				d.workloadSubs[w] = append(d.workloadSubs[w], workloadSub{kind: name, params: p})
				continue
			}
		}
		if holder != nil {
			table, _ := holder.pluginTable(d.cat)
			if p, ok := lookup(table, name); ok {
				d.pending = append(d.pending, pendingParams{holder: holder, plugin: p, path: fp, node: val})
				continue
			}
		}
		if len(fields) == 0 && holder == nil {
			return d.errAt(k, fp, "unknown field %q: %s takes no parameters", name, path)
		}
		if _, ok := v.Addr().Interface().(*Workload); ok {
			return d.errAt(k, fp, "unknown field %q (valid: %s, %s)", name, d.validFields(fields, nil), strings.Join(d.cat.workloadSubNames(), ", "))
		}
		return d.errAt(k, fp, "unknown field %q (valid: %s)", name, d.validFields(fields, holder))
	}
	return nil
}

func (d *decoder) validFields(fields []fieldInfo, holder pluginHolder) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	s := strings.Join(names, ", ")
	if holder != nil {
		table, what := holder.pluginTable(d.cat)
		s += fmt.Sprintf("; or a %s's name for its parameters: %s", what, pluginNames(table))
	}
	return s
}

func (d *decoder) decodeScalar(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.ScalarNode {
		return d.errAt(n, path, "want a single value, got %s", NodeKind(n))
	}
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		v.SetString(n.Value)
		return nil
	case reflect.Bool:
		var b bool
		if tag != "!!bool" || n.Decode(&b) != nil {
			return d.errAt(n, path, "want true or false, got %q", n.Value)
		}
		v.SetBool(b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var x int64
		if tag != "!!int" || n.Decode(&x) != nil {
			return d.errAt(n, path, "want an integer, got %q", n.Value)
		}
		if v.OverflowInt(x) {
			return d.errAt(n, path, "%d is out of range", x)
		}
		v.SetInt(x)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var x uint64
		if tag != "!!int" || n.Decode(&x) != nil {
			return d.errAt(n, path, "want a non-negative integer, got %q", n.Value)
		}
		if v.OverflowUint(x) {
			return d.errAt(n, path, "%d is out of range", x)
		}
		v.SetUint(x)
		return nil
	case reflect.Float32, reflect.Float64:
		var x float64
		if (tag != "!!float" && tag != "!!int") || n.Decode(&x) != nil {
			return d.errAt(n, path, "want a number, got %q", n.Value)
		}
		v.SetFloat(x)
		return nil
	}
	// Only a parameter struct registered by a plugin can get here.
	return d.errAt(n, path, "cannot read a value of Go type %s", v.Type())
}

// resolvePlugins decodes the plugin sub-maps into parameter structs with
// the defaults for the scenario's host link rate, and stores the active
// plugin's. A sub-map of another registered plugin is decoded (so a typo
// in it is still an error) and then dropped with a warning: a sweep may
// set nic.storm.* while it also sweeps nic.scheduler over fair and storm,
// but in a single file it is more likely a mistake.
func (d *decoder) resolvePlugins(s *Scenario) error {
	rate := s.Topology.HostLink.R()
	for _, h := range []pluginHolder{&s.NIC, &s.CC} {
		table, _ := h.pluginTable(d.cat)
		active, known := lookup(table, h.active())
		if !known || rate <= 0 {
			h.setParams(nil) // Validate reports the name or the rate
			continue
		}
		params := active.Params(rate)
		for _, p := range d.pending {
			if p.holder != h {
				continue
			}
			pp := p.plugin.Params(rate)
			if err := d.decode(p.node, reflect.ValueOf(pp).Elem(), p.path); err != nil {
				return err
			}
			if p.plugin.Name == active.Name {
				params = pp
			} else {
				_, what := h.pluginTable(d.cat)
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: ignored: the %s is %s, not %s", p.path, what, active.Name, p.plugin.Name))
			}
		}
		h.setParams(params)
	}
	return nil
}

// fieldInfo is one yaml-tagged exported field of a struct, or of a struct
// it embeds inline.
type fieldInfo struct {
	name      string
	index     []int // for reflect.Value.FieldByIndex
	omitEmpty bool
}

// fieldsOf lists t's fields in declaration order. An embedded struct
// tagged `yaml:",inline"` contributes its own fields in its place, at the
// same level, as yaml.v3 does: a set of parameters several plugins share
// is declared once and still reads, prints and errs as the plugin's own.
func fieldsOf(t reflect.Type) []fieldInfo {
	var out []fieldInfo
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && f.Type.Kind() == reflect.Struct && name == "" && hasOption(opts, "inline") {
			for _, in := range fieldsOf(f.Type) {
				in.index = append([]int{i}, in.index...)
				out = append(out, in)
			}
			continue
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, fieldInfo{name: name, index: []int{i}, omitEmpty: hasOption(opts, "omitempty")})
	}
	return out
}

func hasOption(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func fieldNamed(fields []fieldInfo, name string) (fieldInfo, bool) {
	for _, f := range fields {
		if f.name == name {
			return f, true
		}
	}
	return fieldInfo{}, false
}
