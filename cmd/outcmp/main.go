// Command outcmp compares the outputs of two dcsim runs: the deterministic
// files (flows, iterations, collectives and samples parquet, scenario.yaml)
// byte for byte, and run.parquet column by column except wall_seconds and
// version, which differ between runs and builds. It prints every
// difference and exits 1 if there is one, 2 on bad arguments.
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
	"os"
	"path/filepath"
	"reflect"

	"github.com/dcsim/dcsim/analysis"
)

var exact = []string{"flows.parquet", "iterations.parquet", "collectives.parquet", "samples.parquet", "scenario.yaml"}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: outcmp OLD_DIR NEW_DIR")
		os.Exit(2)
	}
	diffs, err := compare(os.Args[1], os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "outcmp:", err)
		os.Exit(2)
	}
	for _, d := range diffs {
		fmt.Println(d)
	}
	if len(diffs) > 0 {
		os.Exit(1)
	}
}

// compare lists the differences between run directories a and b.
func compare(a, b string) ([]string, error) {
	var diffs []string
	for _, name := range exact {
		x, errX := os.ReadFile(filepath.Join(a, name))
		y, errY := os.ReadFile(filepath.Join(b, name))
		switch {
		case errors.Is(errX, fs.ErrNotExist) && errors.Is(errY, fs.ErrNotExist):
		case errX != nil || errY != nil:
			diffs = append(diffs, fmt.Sprintf("%s: in one run only (%v; %v)", name, errX, errY))
		case !bytes.Equal(x, y):
			diffs = append(diffs, fmt.Sprintf("%s: differs (%d B and %d B)", name, len(x), len(y)))
		}
	}
	ra, pa, err := analysis.ReadRun(filepath.Join(a, "run.parquet"))
	if err != nil {
		return nil, err
	}
	rb, pb, err := analysis.ReadRun(filepath.Join(b, "run.parquet"))
	if err != nil {
		return nil, err
	}
	ra.WallSeconds, rb.WallSeconds = 0, 0
	ra.Version, rb.Version = "", ""
	va, vb := reflect.ValueOf(ra), reflect.ValueOf(rb)
	for i := 0; i < va.NumField(); i++ {
		if x, y := va.Field(i).Interface(), vb.Field(i).Interface(); !reflect.DeepEqual(x, y) {
			diffs = append(diffs, fmt.Sprintf("run.parquet %s: %s, want %s", va.Type().Field(i).Name, show(y), show(x)))
		}
	}
	if !reflect.DeepEqual(pa, pb) {
		diffs = append(diffs, fmt.Sprintf("run.parquet parameters: %v, want %v", pb, pa))
	}
	return diffs, nil
}

func show(v any) string {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return fmt.Sprint(rv.Elem().Interface())
	}
	return fmt.Sprint(v)
}
