// Command dcsim is the command line of the dcsim packet-level RDMA
// datacenter network simulator. It only parses flags and calls the
// library: everything it does, a notebook or another Go program can do by
// calling package scenario the same way.
//
// Bad input exits 2 with one line naming the file:line, the field or the
// flag: a flag value that does not parse is worded once for every flag
// (flagValueError), and a SCENARIO or FILE of "-" is standard input, read
// once (input.go), an empty one being bad input.
//
// Processes and output directories (child.go, interrupt.go, outlock.go):
//   - the work runs in a child process, and every sweep point in one of
//     its own; a child dies with its parent (Linux: at once, by
//     Pdeathsig; macOS and the BSDs: within a second, by a parent check;
//     Windows: not at all, a known gap);
//   - a run or a sweep holds a lock on --out (DIR/.dcsim.lock, holding
//     the pid of the dcsim the user started): a second one into the same
//     directory exits 2 naming that pid; shards (--shard I/N) and a lone
//     --point I lock only their part, so the shards of a sweep run at once
//     while a whole sweep or a run excludes them; a file system without
//     locks gives a warning and no lock;
//   - the lock's holder removes the temporary files an interrupted run
//     left in --out;
//   - Ctrl-C (SIGINT) or SIGTERM stops a run or a sweep within a chunk of
//     simulated time, its partial files removed, with one line saying what
//     is left and exit 130 or 143; an interrupted sweep point is not a
//     failed one, and the same command resumes;
//   - the first error writing --out (a full disk) stops the run with exit 1
//     and one line naming the file, leaving no partial file;
//   - --point-memory is at least 32MiB (minPointMemory).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/internal/textline"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// inputError marks bad user input: the command exits with status 2.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func badInput(err error) error {
	if err == nil {
		return nil
	}
	return inputError{err}
}

func main() {
	if !isChild() {
		os.Exit(supervise(os.Args[1:], os.Stderr))
	}
	checkParent()
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if code == 2 {
		code = exitChildBadInput // the parent maps it back to 2 (child.go)
	}
	os.Exit(code)
}

// run executes the command line and returns the exit status: 0 ok, 2 bad
// input (one line on stderr), 128 + the signal's number for a run or
// sweep that SIGINT or SIGTERM stopped (interrupt.go), 1 any other
// failure. stdin is what a SCENARIO or FILE argument "-" reads.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	if cmd == root && !isUsageError(err) {
		// The root runs nothing, so its only other error is cobra's
		// "unknown command", which is bad input too.
		err = unknownCommand(root, args, err)
	}
	// Values quoted in any error are clipped (a 1 MiB flow-list field),
	// and so is the line: an unquoted echo (an unknown flag, a path) can be
	// as long as what was typed.
	fmt.Fprintln(stderr, "dcsim: "+textline.ClipTo(textline.ClipQuoted(err.Error()), maxErrorLine))
	var in inputError
	if errors.As(err, &in) || isUsageError(err) {
		return 2
	}
	if code := interruptStatus(err); code != 0 {
		return code
	}
	return 1
}

// unknownCommand rewrites cobra's unknown-command error, whose suggestions
// take four lines, as one line.
func unknownCommand(root *cobra.Command, args []string, err error) error {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		msg := fmt.Sprintf("unknown command %q", a)
		if s := root.SuggestionsFor(a); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return &flagError{errors.New(msg + ` (see "dcsim --help")`)}
	}
	return &flagError{errors.New(strings.Join(strings.Fields(err.Error()), " "))}
}

// isUsageError recognises cobra's own flag and argument errors.
func isUsageError(err error) bool {
	var fe *flagError
	return errors.As(err, &fe)
}

type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }

// flagValueError words a bad flag value, of any flag of any command, as
// one line naming the flag and the value: pflag's own reads
// `invalid argument "x" for "--seed" flag: strconv.ParseInt: parsing "x":
// invalid syntax`.
func flagValueError(err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err
	}
	name, value := "--"+iv.GetFlag().Name, iv.GetValue()
	var num *strconv.NumError
	switch kind := iv.GetFlag().Value.Type(); {
	case !errors.As(err, &num):
		return fmt.Errorf("%s: %v", name, errors.Unwrap(iv)) // a flag type of ours, e.g. sizeFlag: its own message
	case errors.Is(num.Err, strconv.ErrRange):
		return fmt.Errorf("%s: %s is out of range for an %s", name, value, kind)
	case kind == "bool":
		return fmt.Errorf("%s: %q is not true or false", name, value)
	case strings.HasPrefix(kind, "float"):
		return fmt.Errorf("%s: %q is not a number", name, value)
	default:
		return fmt.Errorf("%s: %q is not an integer", name, value)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "dcsim",
		Short: "packet-level RDMA datacenter network simulator",
		Long: `dcsim simulates RoCEv2 datacenter networks packet by packet: PFC, ECN,
congestion control and RNIC schedulers, on spine-leaf, fat-tree and other
topologies, and writes flow completion times and slowdowns to parquet.

Exit status: 0 ok, 2 bad input (one line naming the file:line or field),
130 (143) a run or sweep stopped by Ctrl-C (SIGTERM), 1 any other failure.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &flagError{flagValueError(err)} })
	root.AddCommand(newRunCmd(), newShowCmd(), newScenariosCmd(), newValidateCmd(), newVersionCmd(), newSweepCmd(), newReportCmd())
	return root
}

// exactArgs is cobra.RangeArgs with errors that exit 2.
func argsRange(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.RangeArgs(lo, hi)(cmd, args); err != nil {
			return &flagError{err}
		}
		return nil
	}
}

// maxErrorLine bounds the error line dcsim prints.
const maxErrorLine = 900
