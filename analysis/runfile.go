package analysis

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// runType is RunRecord's type; its fields, in order, are the pinned columns
// of run.parquet.
var runType = reflect.TypeFor[RunRecord]()

// RunColumns lists the pinned columns of run.parquet, in file order.
func RunColumns() []string {
	var names []string
	for f := range runType.Fields() {
		names = append(names, columnName(f))
	}
	return names
}

func columnName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
	return name
}

// WriteRun writes run.parquet atomically: one row with the pinned columns of
// r, in RunRecord's order, then one column per swept parameter, named by its
// dotted path, in the order given. Counters are stored as a parquet MAP with
// keys in ascending order (a Go map's order is random; the file's is not).
func WriteRun(path string, r RunRecord, extra []Param) error {
	schema, params, err := runSchema(extra)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	row := runRow(schema, r, params)
	return WriteFileAtomic(path, func(w io.Writer) error {
		pw := parquet.NewWriter(w, append(writerOptions(), schema)...)
		if _, err := pw.WriteRows([]parquet.Row{row}); err != nil {
			return err
		}
		return pw.Close()
	})
}

// runSchema builds the schema of a run.parquet with the given swept
// parameters: a struct type made at run time from RunRecord's fields plus
// one field per parameter, so that the pinned columns keep their order and
// the parameters follow (parquet.Group would sort every column by name).
// It returns the parameters with their values normalised.
func runSchema(extra []Param) (*parquet.Schema, []Param, error) {
	pinned := RunColumns()
	fields := make([]reflect.StructField, 0, runType.NumField()+len(extra))
	for f := range runType.Fields() {
		fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
	}
	params := make([]Param, len(extra))
	seen := map[string]bool{}
	for i, p := range extra {
		if err := checkParamName(p.Name); err != nil {
			return nil, nil, fmt.Errorf("swept parameter %d: %w", i, err)
		}
		if slices.Contains(pinned, p.Name) {
			return nil, nil, fmt.Errorf("swept parameter %q: clashes with a pinned run column", p.Name)
		}
		if seen[p.Name] {
			return nil, nil, fmt.Errorf("swept parameter %q: given twice", p.Name)
		}
		seen[p.Name] = true
		v, err := normaliseParam(p.Value)
		if err != nil {
			return nil, nil, fmt.Errorf("swept parameter %q: %w", p.Name, err)
		}
		params[i] = Param{Name: p.Name, Value: v}
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("Param%d", i),
			Type: reflect.TypeOf(v),
			Tag:  reflect.StructTag(`parquet:"` + p.Name + `"`),
		})
	}
	model := reflect.New(reflect.StructOf(fields)).Interface()
	return parquet.NewSchema("RunRecord", parquet.SchemaOf(model)), params, nil
}

// checkParamName accepts dotted scenario paths: letters, digits and
// "_.-[]". Anything else could not sit in a struct tag or would confuse a
// column selector in pandas or SQL.
func checkParamName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	for _, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_.-[]", c)
		if !ok {
			return fmt.Errorf("name %q: character %q not allowed (want letters, digits and _.-[])", name, c)
		}
	}
	return nil
}

// normaliseParam maps a parameter value onto the four column types: a
// fmt.Stringer (engine.Time, engine.Rate: "1us", "100Gbps", as a scenario
// spells them) becomes its string, any other value goes by its kind.
func normaliseParam(v any) (any, error) {
	if s, ok := v.(fmt.Stringer); ok {
		return s.String(), nil
	}
	rv := reflect.ValueOf(v)
	switch {
	case v == nil:
	case rv.CanInt():
		return rv.Int(), nil
	case rv.CanUint():
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u), nil
		}
		return nil, fmt.Errorf("value %v: above the int64 range", v)
	case rv.CanFloat():
		return rv.Float(), nil
	case rv.Kind() == reflect.String:
		return rv.String(), nil
	case rv.Kind() == reflect.Bool:
		return rv.Bool(), nil
	}
	return nil, fmt.Errorf("value %v of type %T: want a string, bool, integer or float", v, v)
}

// runRow builds the one row of run.parquet.
func runRow(schema *parquet.Schema, r RunRecord, params []Param) parquet.Row {
	b := parquet.NewRowBuilder(schema)
	rv := reflect.ValueOf(r)
	for i, f := range slices.Collect(runType.Fields()) {
		name := columnName(f)
		if name != "counters" {
			v := rv.Field(i)
			if v.Kind() == reflect.Pointer {
				if v.IsNil() {
					continue // an optional column left unset is null
				}
				v = v.Elem()
			}
			b.Add(leafIndex(schema, name), parquet.ValueOf(v.Interface()))
			continue
		}
		keyCol, valCol := leafIndex(schema, "counters", "key_value", "key"), leafIndex(schema, "counters", "key_value", "value")
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range r.Counters {
				if !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			b.Add(keyCol, parquet.ByteArrayValue([]byte(k)))
			b.Add(valCol, parquet.Int64Value(r.Counters[k]))
		}
	}
	for _, p := range params {
		b.Add(leafIndex(schema, p.Name), parquet.ValueOf(p.Value))
	}
	return b.Row()
}

func leafIndex(schema *parquet.Schema, path ...string) int {
	leaf, ok := schema.Lookup(path...)
	if !ok {
		panic(fmt.Sprintf("analysis: run schema has no column %q", strings.Join(path, ".")))
	}
	return leaf.ColumnIndex
}

// ReadRun reads a run.parquet file: the pinned columns into a RunRecord and
// every other top-level leaf column, in file order, as a Param whose Value
// is a string, bool, int64 or float64. The file must hold exactly one row.
func ReadRun(path string) (RunRecord, []Param, error) {
	f, err := os.Open(path)
	if err != nil {
		return RunRecord{}, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return RunRecord{}, nil, err
	}
	r, params, err := decodeRun(f, st.Size())
	if err != nil {
		return RunRecord{}, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return r, params, nil
}

func decodeRun(ra io.ReaderAt, size int64) (r RunRecord, params []Param, err error) {
	defer recoverCorrupt(&err)
	pf, err := openParquet(ra, size)
	if err != nil {
		return RunRecord{}, nil, err
	}
	if n := pf.NumRows(); n != 1 {
		return RunRecord{}, nil, fmt.Errorf("run file has %d rows, want 1", n)
	}
	recs, err := decodeRecords[RunRecord](ra, size)
	if err != nil {
		return RunRecord{}, nil, err
	}
	r = recs[0]
	if len(r.Counters) == 0 {
		r.Counters = nil
	}

	pr := parquet.NewReader(pf)
	defer pr.Close()
	rows := make([]parquet.Row, 1)
	if n, err := pr.ReadRows(rows); n != 1 {
		if err == nil || errors.Is(err, io.EOF) {
			err = errors.New("no row")
		}
		return RunRecord{}, nil, err
	}
	pinned := RunColumns()
	schema := pf.Schema()
	for _, path := range schema.Columns() {
		if slices.Contains(pinned, path[0]) {
			continue
		}
		name := strings.Join(path, ".")
		leaf, _ := schema.Lookup(path...)
		if len(path) != 1 || leaf.MaxRepetitionLevel != 0 {
			return RunRecord{}, nil, fmt.Errorf("column %s: a swept parameter must be a flat column", name)
		}
		var vals []parquet.Value
		rows[0].Range(func(col int, v []parquet.Value) bool {
			if col == leaf.ColumnIndex {
				vals = v
				return false
			}
			return true
		})
		if len(vals) != 1 || vals[0].IsNull() {
			return RunRecord{}, nil, fmt.Errorf("column %s: no value", name)
		}
		v, err := paramValue(leaf.Node, vals[0])
		if err != nil {
			return RunRecord{}, nil, fmt.Errorf("column %s: %w", name, err)
		}
		params = append(params, Param{Name: path[0], Value: v})
	}
	return r, params, nil
}

func paramValue(n parquet.Node, v parquet.Value) (any, error) {
	switch v.Kind() {
	case parquet.ByteArray:
		return string(v.ByteArray()), nil
	case parquet.Boolean:
		return v.Boolean(), nil
	case parquet.Int32:
		return int64(v.Int32()), nil
	case parquet.Int64:
		return v.Int64(), nil
	case parquet.Float:
		return float64(v.Float()), nil
	case parquet.Double:
		return v.Double(), nil
	default:
		return nil, fmt.Errorf("unsupported type %s", describeNode(n))
	}
}
