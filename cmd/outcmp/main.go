// Command outcmp compares the outputs of two dcsim runs: the deterministic
// files (flows, iterations, collectives, samples and batches parquet)
// row by row without run_id (analysis.SameRows: every run has an id of its
// own), scenario.yaml byte for byte, and run.parquet column by column
// except run_id, wall_seconds and version, which differ between runs and
// builds. It prints every difference and exits 1 if there is one, 2 on
// bad arguments.
//
// A scenario field added with its default changes scenario.yaml and so
// config_hash: outcmp prints both as notes and exits 0, the model's
// results being the same; so does a run.parquet from before config_hash.
//
//	go run ./cmd/outcmp OLD_DIR NEW_DIR
//
// .ci/compare-outputs runs every built-in scenario with two commits'
// binaries and compares their outputs with it.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"

	"github.com/dcsim/dcsim/analysis"
)

var exact = []string{"flows.parquet", "iterations.parquet", "collectives.parquet", "samples.parquet", "batches.parquet", "scenario.yaml"}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: outcmp OLD_DIR NEW_DIR")
		os.Exit(2)
	}
	diffs, notes, err := compare(os.Args[1], os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "outcmp:", err)
		os.Exit(2)
	}
	for _, d := range append(notes, diffs...) {
		fmt.Println(d)
	}
	if len(diffs) > 0 {
		os.Exit(1)
	}
}

// compare lists the differences between run directories a and b.
func compare(a, b string) (diffs, notes []string, err error) {
	scenarioDiffers := false
	for _, name := range exact {
		x, errX := os.ReadFile(filepath.Join(a, name))
		y, errY := os.ReadFile(filepath.Join(b, name))
		switch {
		case errors.Is(errX, fs.ErrNotExist) && errors.Is(errY, fs.ErrNotExist):
		case errX != nil || errY != nil:
			diffs = append(diffs, fmt.Sprintf("%s: in one run only (%v; %v)", name, errX, errY))
		case bytes.Equal(x, y):
		case name == "scenario.yaml":
			scenarioDiffers = true
			notes = append(notes, "note: scenario.yaml differs")
		default:
			// Every run has an id of its own, in every row: files of
			// two runs differ in bytes even when their rows do not.
			same, err := analysis.SameRows(filepath.Join(a, name), filepath.Join(b, name))
			if err != nil {
				return nil, nil, err
			}
			if !same {
				diffs = append(diffs, fmt.Sprintf("%s: differs (%d B and %d B)", name, len(x), len(y)))
			}
		}
	}
	ra, pa, err := analysis.ReadRun(filepath.Join(a, "run.parquet"))
	if err != nil {
		return nil, nil, err
	}
	rb, pb, err := analysis.ReadRun(filepath.Join(b, "run.parquet"))
	if err != nil {
		return nil, nil, err
	}
	ra.WallSeconds, rb.WallSeconds = 0, 0
	ra.Version, rb.Version = "", ""
	ra.RunID, rb.RunID = "", "" // unique per run
	switch {
	case ra.ConfigHash == rb.ConfigHash:
	case ra.ConfigHash == "" || rb.ConfigHash == "":
		notes = append(notes, "note: config_hash in one run only (a run.parquet from before the column)")
		ra.ConfigHash, rb.ConfigHash = "", ""
	case scenarioDiffers:
		// A scenario field added with its default changes the hash.
		notes = append(notes, "note: config_hash differs with scenario.yaml")
		ra.ConfigHash, rb.ConfigHash = "", ""
	}
	// A counter new in one run, at 0, is a schema addition, not a change.
	for k, v := range rb.Counters {
		if _, ok := ra.Counters[k]; !ok && v == 0 {
			notes = append(notes, "note: new counter "+k+" = 0")
			delete(rb.Counters, k)
		}
	}
	for k, v := range ra.Counters {
		if _, ok := rb.Counters[k]; !ok && v == 0 {
			notes = append(notes, "note: counter "+k+" = 0 gone")
			delete(ra.Counters, k)
		}
	}
	va, vb := reflect.ValueOf(ra), reflect.ValueOf(rb)
	for i := 0; i < va.NumField(); i++ {
		if x, y := va.Field(i).Interface(), vb.Field(i).Interface(); !reflect.DeepEqual(x, y) && !bothNaN(x, y) {
			diffs = append(diffs, fmt.Sprintf("run.parquet %s: %s, want %s", va.Type().Field(i).Name, show(y), show(x)))
		}
	}
	if !reflect.DeepEqual(pa, pb) {
		diffs = append(diffs, fmt.Sprintf("run.parquet parameters: %v, want %v", pb, pa))
	}
	return diffs, notes, nil
}

// bothNaN reports whether x and y are float64 NaN (no finished flow: the
// slowdown statistics), which DeepEqual calls different.
func bothNaN(x, y any) bool {
	fx, ok1 := x.(float64)
	fy, ok2 := y.(float64)
	return ok1 && ok2 && math.IsNaN(fx) && math.IsNaN(fy)
}

func show(v any) string {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return fmt.Sprint(rv.Elem().Interface())
	}
	return fmt.Sprint(v)
}
