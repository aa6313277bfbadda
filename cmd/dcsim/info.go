package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/sweep"
	"github.com/dcsim/dcsim/wiring"
)

func newShowCmd() *cobra.Command {
	var sets []string
	cmd := &cobra.Command{
		Use:   "show SCENARIO",
		Short: "print a scenario as fully resolved YAML, every default spelled out",
		Long: `Print a built-in scenario or a YAML file with every field resolved: the
output is a complete scenario file that reproduces the run exactly.
SCENARIO "-" reads it from standard input.`,
		Args: argsRange(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := loadScenario(cmd, args[0], sets)
			if err != nil {
				return badInput(err)
			}
			printWarnings(cmd.ErrOrStderr(), s)
			_, err = cmd.OutOrStdout().Write(s.YAML())
			return err
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a field before printing: dotted.path=value (repeatable)")
	return cmd
}

func newScenariosCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "scenarios",
		Short: "list built-in scenarios, schedulers, congestion control, workload kinds and flow-size distributions",
		Args:  argsRange(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "SCENARIO\tDESCRIPTION")
			for _, b := range scenario.Builtins() {
				fmt.Fprintf(w, "%s\t%s\n", b.Name, b.Doc)
			}
			plugins := func(header string, table []scenario.Plugin) {
				fmt.Fprintf(w, "\n%s\tDESCRIPTION\n", header)
				for _, p := range table {
					fmt.Fprintf(w, "%s\t%s\n", p.Name, p.Doc)
				}
			}
			plugins("SCHEDULER (nic.scheduler)", wiring.Catalog().Schedulers)
			plugins("CC (cc.algorithm)", wiring.Catalog().Algorithms)
			fmt.Fprintln(w, "\nWORKLOAD (workload.kind)\tDESCRIPTION")
			for _, k := range wiring.Catalog().Workloads {
				fmt.Fprintf(w, "%s\t%s\n", k.Name, k.Doc)
			}
			fmt.Fprintln(w, "\nDISTRIBUTION (workload.distribution)\tMEAN (linear rule)\tMAX\tSOURCE")
			for _, d := range wiring.Catalog().Distributions {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", d.Name, analysis.HumanSize(int64(d.MeanLinear)), analysis.HumanSize(d.Max), d.Title)
			}
			return w.Flush()
		},
	}
}

func newValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE",
		Short: "check a scenario or sweep file; errors name the file:line and the field",
		Long: `Check a scenario file, a built-in scenario or a sweep file (one with a
top-level grid, zip or base key: every point is expanded, parsed,
validated and built, with errors at the sweep file's lines). FILE "-"
reads standard input. An empty file or input is bad input.`,
		Example: `  dcsim validate my.yaml
  dcsim show default --set workload.load=0.8 | dcsim validate -`,
		Args: argsRange(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, data, err := validateInput(cmd, args[0])
			if err != nil {
				return badInput(err)
			}
			if data != nil && sweep.IsSweepFile(data) {
				return validateSweep(cmd, name, data)
			}
			var s *scenario.Scenario
			if data == nil {
				s, err = wiring.Catalog().Load(name, nil)
			} else {
				s, err = wiring.Catalog().Parse(name, data, nil)
			}
			if err != nil {
				return badInput(err)
			}
			if _, err := wiring.Build(s); err != nil {
				return badInput(err)
			}
			printWarnings(cmd.ErrOrStderr(), s)
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok\n", name)
			return nil
		},
	}
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the dcsim version",
		Long: `Print the dcsim version, which run.parquet records too: the module version
of a "go install github.com/dcsim/dcsim/cmd/dcsim@VERSION" build, the
version given with -ldflags "-X main.stampedVersion=...", or
devel-REVISION for a build from a git checkout ("devel" when the build had
no version control information, e.g. with -buildvcs=false).`,
		Args: argsRange(0, 0),
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "dcsim %s (%s %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		},
	}
}

// stampedVersion, when set at link time (-ldflags "-X
// main.stampedVersion=v1.2.0"), is the version.
var stampedVersion string

// version is the stamped version, the module version, or the VCS revision
// of a source build.
func version() string {
	if stampedVersion != "" {
		return stampedVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel-" + rev
}

var _ = os.Stdout

// printWarnings prints what the scenario parser accepted but thinks a
// mistake, one "dcsim: warning:" line each.
func printWarnings(w io.Writer, s *scenario.Scenario) {
	for _, m := range s.Warnings {
		fmt.Fprintln(w, "dcsim: warning: "+m)
	}
}
