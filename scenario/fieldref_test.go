package scenario

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"go.yaml.in/yaml/v3"
)

// docs/scenarios.md is the field reference: a table row per field, whose
// cells are the dotted path, the type, the default, the allowed values and
// the meaning. TestFieldReference keeps it in step with the code: every
// field the resolved scenario prints (every scheduler's, algorithm's and
// workload kind's parameters, and the sections that print only when
// given) must have a row, every row must name a printed field, the
// default cell must start with the printed default and the type cell with
// the Go type's name. A new field thus fails here until it is documented,
// and a changed default until its row says so.

const fieldReference = "../docs/scenarios.md"

// fieldVariants are the --set lists whose resolved scenarios together
// print every field once with its default. The first variant that prints
// a field, without setting it itself, gives its default.
func fieldVariants() [][]string {
	v := [][]string{
		nil,
		{"switch.routing={}"},
		{"switch.isolation={}", "switch.routing.kind=adaptive", "switch.isolation.afi=true", "switch.isolation.credit_view=delayed"},
		{"switch.queueing={}"},
		{"switch.credit={}"},
		{"parallel={}"},
		{"nic.receiver=selective", "nic.fence=implicit", "nic.sack={}"},
	}
	for _, p := range testCat.Schedulers {
		v = append(v, []string{"nic.scheduler=" + p.Name})
	}
	for _, p := range testCat.Algorithms {
		v = append(v, []string{"cc.algorithm=" + p.Name})
	}
	for _, k := range testCat.Workloads {
		set := []string{"workload.kind=" + k.Name}
		switch k.Name {
		case Flowlist:
			set = append(set, "workload.flowlist.file=flows.csv")
		case Halo:
			set = append(set, "nic.qp_mapping=per-pair")
		}
		v = append(v, set)
	}
	return v
}

// fieldAliases document a parameter once for plugins that share it: the
// STORM variants take full STORM's parameters. A default that differs
// from the documented one must appear in the cell as `variant: value`.
var fieldAliases = map[string]string{"nic.storm-sender.": "nic.storm.", "nic.storm-sw.": "nic.storm."}

// inputDependent fields have no fixed default: name is the file's.
var inputDependent = map[string]bool{"name": true}

// printedField is one leaf of a resolved scenario.
type printedField struct {
	path, value, typ string
	set              bool // the variant set it: its value is not a default
}

func TestFieldReference(t *testing.T) {
	doc, err := os.ReadFile(fieldReference)
	if err != nil {
		t.Fatal(err)
	}
	rows, errs := referenceRows(string(doc))
	for _, e := range errs {
		t.Error(e)
	}
	fields := map[string]printedField{} // by documented path
	var order []string
	for _, set := range fieldVariants() {
		s, err := testCat.Parse("fieldref.yaml", []byte("{}\n"), set)
		if err != nil {
			t.Fatalf("--set %v: %v", set, err)
		}
		for _, f := range printedFields(t, s, set) {
			docPath := f.path
			for from, to := range fieldAliases {
				if strings.HasPrefix(f.path, from) {
					docPath = to + strings.TrimPrefix(f.path, from)
				}
			}
			if docPath != f.path {
				if r, ok := rows[docPath]; ok && !f.set && !strings.HasPrefix(r.def, "`"+f.value+"`") &&
					!strings.Contains(r.def, "`"+strings.Split(f.path, ".")[1]+": "+f.value+"`") {
					t.Errorf("%s: row %s: %s's default is %s: add `%s: %s` to the default cell",
						fieldReference, docPath, f.path, f.value, strings.Split(f.path, ".")[1], f.value)
				}
				continue
			}
			if old, ok := fields[docPath]; !ok || old.set && !f.set {
				if !ok {
					order = append(order, docPath)
				}
				fields[docPath] = f
			}
		}
	}
	var missing []string
	for _, p := range order {
		f := fields[p]
		r, ok := rows[p]
		if !ok {
			missing = append(missing, fmt.Sprintf("| `%s` | %s | `%s` | | |", p, f.typ, f.value))
			continue
		}
		if !f.set && !strings.HasPrefix(r.def, "`"+f.value+"`") {
			t.Errorf("%s: row %s: default cell %q does not start with the printed default `%s`", fieldReference, p, r.def, f.value)
		}
		if !strings.HasPrefix(r.typ, f.typ) {
			t.Errorf("%s: row %s: type cell %q does not start with %q (the field's Go type)", fieldReference, p, r.typ, f.typ)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s: %d fields have no row; add (type, default as printed; fill in allowed values and meaning):\n%s",
			fieldReference, len(missing), strings.Join(missing, "\n"))
	}
	var stale []string
	for p := range rows {
		if _, ok := fields[p]; !ok {
			stale = append(stale, p)
		}
	}
	sort.Strings(stale)
	for _, p := range stale {
		t.Errorf("%s: row %s names no field of the resolved scenario", fieldReference, p)
	}
	if len(fields) < 150 {
		t.Errorf("found %d fields: the variants no longer reach the plugins' parameters", len(fields))
	}
}

// referenceRow is one field's row in docs/scenarios.md.
type referenceRow struct{ typ, def string }

var rowPath = regexp.MustCompile("^`([a-z0-9_.-]+)`$")

// referenceRows reads the rows whose first cell is a dotted path in code
// quotes; a path must have one row.
func referenceRows(doc string) (map[string]referenceRow, []string) {
	rows := map[string]referenceRow{}
	var errs []string
	for i, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		m := rowPath.FindStringSubmatch(strings.TrimSpace(cells[0]))
		if m == nil {
			continue
		}
		if len(cells) != 5 {
			errs = append(errs, fmt.Sprintf("%s:%d: %d cells, want 5 (field, type, default, allowed, meaning; no | inside a cell)", fieldReference, i+1, len(cells)))
			continue
		}
		if _, dup := rows[m[1]]; dup {
			errs = append(errs, fmt.Sprintf("%s:%d: second row for %s", fieldReference, i+1, m[1]))
		}
		rows[m[1]] = referenceRow{typ: strings.TrimSpace(cells[1]), def: strings.TrimSpace(cells[2])}
	}
	return rows, errs
}

// printedFields walks s's resolved YAML to its leaves. A list (wrr_weights,
// trace.metrics, thresholds) is one field; extra_workloads' elements are
// workload's fields, documented there; an empty mapping (a plugin without
// parameters) has none.
func printedFields(t *testing.T, s *Scenario, set []string) []printedField {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(s.YAML(), &root); err != nil {
		t.Fatal(err)
	}
	given := map[string]bool{}
	for _, kv := range set {
		path, _, _ := strings.Cut(kv, "=")
		given[path] = true
	}
	var out []printedField
	var walk func(n *yaml.Node, path []string)
	walk = func(n *yaml.Node, path []string) {
		p := strings.Join(path, ".")
		if n.Kind == yaml.MappingNode && len(n.Content) > 0 {
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], append(path, n.Content[i].Value))
			}
			return
		}
		if n.Kind == yaml.MappingNode {
			return
		}
		v, err := yaml.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, printedField{path: p, value: strings.TrimSpace(string(v)), typ: fieldType(t, s, path), set: given[p] || inputDependent[p]})
	}
	walk(root.Content[0], nil)
	return out
}

// fieldType names the Go type behind a printed path, in the words the
// reference uses.
func fieldType(t *testing.T, s *Scenario, path []string) string {
	t.Helper()
	typ := reflect.TypeFor[Scenario]()
	for i, seg := range path {
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if f, ok := fieldByTag(typ, seg); ok {
			typ = f.Type
			continue
		}
		var params any
		switch {
		case i == 1 && path[0] == "nic":
			params = s.NIC.Params
		case i == 1 && path[0] == "cc":
			params = s.CC.Params
		case i == 1 && path[0] == "workload":
			params = s.Workload.Params
		}
		if params == nil {
			t.Fatalf("%s: no Go field for %q", strings.Join(path, "."), seg)
		}
		typ = reflect.TypeOf(params)
	}
	return typeName(typ)
}

func fieldByTag(typ reflect.Type, name string) (reflect.StructField, bool) {
	if typ.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	if f, ok := fieldNamed(fieldsOf(typ), name); ok {
		return typ.FieldByIndex(f.index), true
	}
	return reflect.StructField{}, false
}

func typeName(typ reflect.Type) string {
	switch typ {
	case reflect.TypeFor[Duration](), reflect.TypeFor[engine.Time]():
		return "duration"
	case reflect.TypeFor[Rate](), reflect.TypeFor[engine.Rate]():
		return "rate"
	case reflect.TypeFor[Size]():
		return "size"
	case reflect.TypeFor[HostSet]():
		return "hosts"
	case reflect.TypeFor[QPMapping]():
		return "qp mapping"
	}
	switch typ.Kind() {
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return "int"
	case reflect.Float64:
		return "float"
	case reflect.String:
		return "string"
	case reflect.Array, reflect.Slice:
		if typ.Elem().Kind() == reflect.Struct {
			return "list of workloads"
		}
		return "list of " + typeName(typ.Elem())
	}
	return typ.String()
}
