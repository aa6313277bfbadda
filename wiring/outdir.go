package wiring

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/scenario"
)

// runFiles are the files a run writes into its directory, run.parquet
// last. WriteDir replaces exactly these and leaves any other file alone.
var runFiles = []string{analysis.FlowsFile, analysis.SamplesFile, analysis.IterationsFile,
	analysis.CollectivesFile, analysis.BatchesFile, scenario.ScenarioFile, analysis.RunFile}

// probePattern names PrepareDir's write probe.
const probePattern = ".dcsim-probe-*"

// PrepareDir makes dir, if needed, and checks that files can be created
// in it, so that a run that could not be written fails before it is
// simulated, not after. An existing file at dir is an error.
func PrepareDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	probe, err := os.CreateTemp(dir, probePattern)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: cannot create files: %v", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// FlowSpillPattern names the spill files a run streaming flows.parquet
// may write into its directory while rows wait behind a running flow;
// the run removes them, ClearRun removes any a killed run left.
const FlowSpillPattern = ".flows-spill-*"

// ClearRun removes the run files in dir before a new run is written
// there: run.parquet first, so that from then on the directory holds no
// complete run until the new run.parquet appears, then the others, so
// that no file of an earlier run (its samples, or a training run's
// iterations) is left beside the new one. A file named in keep stays.
func ClearRun(dir string, keep ...string) error {
	if !slices.Contains(keep, analysis.FlowsFile) {
		// Spill runs a killed run left behind (wiring's flow recorder).
		left, _ := filepath.Glob(filepath.Join(dir, FlowSpillPattern))
		for _, f := range left {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	for i := len(runFiles) - 1; i >= 0; i-- {
		if slices.Contains(keep, runFiles[i]) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, runFiles[i])); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// RemoveTempFiles removes from dir the temporary files a run writes there
// (atomic writes' ".NAME.tmp-*" of the run files, flow spills, the
// write probe) that an interrupted run left behind. Only the holder of
// dir's lock may call it: another writer's files in progress look the
// same.
func RemoveTempFiles(dir string) error {
	patterns := []string{FlowSpillPattern, probePattern}
	for _, name := range runFiles {
		patterns = append(patterns, analysis.TempPattern(name))
	}
	for _, p := range patterns {
		left, _ := filepath.Glob(filepath.Join(dir, p))
		for _, f := range left {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}
