package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

// stdinArg is the SCENARIO or FILE argument that reads standard input;
// errors and "ok" lines call it stdinName.
const (
	stdinArg  = "-"
	stdinName = "<stdin>"
)

// readStdin reads a scenario or sweep from standard input (at most
// scenario.MaxFileBytes; the parser reports a longer one). Empty input is
// bad input: a pipe that brings nothing is a failure upstream, not a
// scenario of defaults.
func readStdin(cmd *cobra.Command) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), scenario.MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stdinName, err)
	}
	if isEmptyYAML(data) {
		return nil, fmt.Errorf("%s: empty input: no scenario or sweep was piped in", stdinName)
	}
	return data, nil
}

// loadScenario is scenario.Load, with "-" for standard input.
func loadScenario(cmd *cobra.Command, arg string, sets []string) (*scenario.Scenario, error) {
	if arg != stdinArg {
		return wiring.Catalog().Load(arg, sets)
	}
	data, err := readStdin(cmd)
	if err != nil {
		return nil, err
	}
	return wiring.Catalog().Parse(stdinName, data, sets)
}

// validateInput reads what "dcsim validate ARG" checks, once: a pipe
// (-, /dev/stdin, <(...)) cannot be read a second time, and the first
// read decides whether it is a sweep or a scenario. It returns the name
// for messages and the data; no data means wiring.Catalog().Load(name) (a
// built-in, or a file that could not be read, which Load words the
// error for). An empty file is bad input here: it would validate as a
// scenario of defaults, which is not what anyone means to check.
func validateInput(cmd *cobra.Command, arg string) (name string, data []byte, err error) {
	if arg == stdinArg {
		data, err := readStdin(cmd)
		return stdinName, data, err
	}
	if scenario.IsBuiltin(arg) { // Load prefers a built-in to a file of that name
		return arg, nil, nil
	}
	data, err = scenario.ReadFile(arg)
	if err != nil {
		return arg, nil, nil
	}
	if isEmptyYAML(data) {
		return arg, nil, fmt.Errorf("%s: empty: no scenario or sweep to validate", arg)
	}
	return arg, data, nil
}

// isEmptyYAML reports whether data holds nothing but blank lines and
// comments.
func isEmptyYAML(data []byte) bool {
	for line := range bytes.Lines(data) {
		if l := bytes.TrimSpace(line); len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}
