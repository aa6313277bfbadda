package analysis

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
)

// SameRows reports whether two parquet files of one kind, named by the
// base name of a (FlowsFile, IterationsFile, CollectivesFile, SamplesFile,
// BatchesFile), hold the same rows once run_id is cleared: whether two
// runs gave the same results, now that every run has an id of its own.
// Floats compare bit for bit, so NaN equals NaN.
func SameRows(a, b string) (bool, error) {
	switch name := filepath.Base(a); name {
	case FlowsFile:
		return sameRecords(a, b, ReadFlows)
	case IterationsFile:
		return sameRecords(a, b, ReadIterations)
	case CollectivesFile:
		return sameRecords(a, b, ReadCollectives)
	case SamplesFile:
		return sameRecords(a, b, ReadSamples)
	case BatchesFile:
		return sameRecords(a, b, ReadBatches)
	default:
		return false, fmt.Errorf("%s: not a per-row results file", name)
	}
}

func sameRecords[T any](a, b string, read func(string) ([]T, error)) (bool, error) {
	x, err := read(a)
	if err != nil {
		return false, err
	}
	y, err := read(b)
	if err != nil {
		return false, err
	}
	if len(x) != len(y) {
		return false, nil
	}
	for i := range x {
		vx, vy := reflect.ValueOf(&x[i]).Elem(), reflect.ValueOf(&y[i]).Elem()
		vx.FieldByName("RunID").SetString("")
		vy.FieldByName("RunID").SetString("")
		for f := range vx.NumField() {
			if !sameValue(vx.Field(f), vy.Field(f)) {
				return false, nil
			}
		}
	}
	return true, nil
}

// sameValue is reflect.DeepEqual but for floats, which compare by bits:
// samples.parquet holds NaN where a metric had no value.
func sameValue(x, y reflect.Value) bool {
	switch x.Kind() {
	case reflect.Float64, reflect.Float32:
		return math.Float64bits(x.Float()) == math.Float64bits(y.Float())
	case reflect.Pointer:
		if x.IsNil() || y.IsNil() {
			return x.IsNil() == y.IsNil()
		}
		return sameValue(x.Elem(), y.Elem())
	}
	return reflect.DeepEqual(x.Interface(), y.Interface())
}
