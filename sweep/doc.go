// Package sweep runs grids of dcsim scenarios: it expands a sweep file
// into points, runs them on a pool of workers (each point one whole,
// single-threaded simulation), splits them into shards for array jobs,
// resumes interrupted sweeps, and collects the results of run directories
// into groups for reports and plots.
//
// # Sweep files
//
//	name: storm-cloud        # default: the file's base name
//	base: default            # a built-in scenario, or a scenario file
//	set:                     # fixed overrides for every point
//	  duration: 5ms
//	  nic: {qp_mapping: per-pair}
//	grid:                    # cartesian product, in file order
//	  nic.scheduler: [fair, fair-message]
//	  workload.load: [0.3, 0.5]
//	zip:                     # lists of equal length, varied together
//	  seed: [1, 2]
//
// base follows scenario.Load: a name with a path separator or a
// .yaml/.yml extension is a file, another name is a built-in if there is
// one. A relative base path is relative to the directory of the sweep
// file, not to the working directory, so a sweep file and its base travel
// together (paths inside the base scenario, such as topology.file, stay
// relative to the working directory, as in dcsim run). Absent, base is
// "default".
//
// Keys of set, grid and zip are --set paths ("workload.load",
// "extra_workloads[0].load"). In set, a nested mapping merges field by
// field ({nic: {mtu: 4096}} changes only nic.mtu); any other value, and
// every grid or zip value, replaces the field, as --set does. A path may
// appear only once across set, grid and zip.
//
// # Points
//
// Points expands the grid's keys as a cartesian product in file order,
// the last key varying fastest; the zip is one more dimension after them,
// varying fastest of all (so grid {a: [1, 2]} with zip {s: [x, y]} gives
// a=1 s=x, a=1 s=y, a=2 s=x, a=2 s=y). Point i is the base scenario with
// the set overrides and then its values applied as --set arguments, in
// that order, through scenario.Parse: a point is parsed, defaulted and
// validated exactly as "dcsim run BASE --set ..." would be. A value is
// given to --set as its YAML in flow style on one line, so 0.5 stays a
// number, '1' stays a string and [1, 2] a list.
//
// A point's directory is OUT/HASH, where HASH is the resolved scenario's
// Hash (16 hex digits of the SHA-256 of its full YAML, run.parquet's
// config_hash; the run_id is unique per run). It depends on the scenario
// alone, not on the sweep file, the point's index or the dcsim version, so
// a re-run, a reordered sweep, or another sweep with the same point finds
// the point done. Two points
// of one sweep that resolve to the same scenario (a swept knob of a
// plugin that is not selected, say) are an error.
//
// Each swept key adds a run.parquet column named by its dotted path, with
// one type per key: int64 when every value is a YAML integer, float64
// when every value is a number, bool when every value is a boolean, and
// otherwise the value as written (sizes, durations and names as strings,
// lists in flow style). A swept key whose name is a pinned run.parquet
// column (seed) adds none: the pinned column holds it.
//
// Errors are *Error, one line naming the sweep file, the line and the
// field: "storm.yaml:7: grid.workload.load[1]: workload.load: 1.5 is not
// in (0, 1)". A sweep may expand to at most MaxPoints (10,000) points,
// which Points expands, and Check builds, on every core; the first
// invalid point in expansion order is the one reported. A sweep file
// is read by scenario.ParseMapping, the scenario parser's own bounded path
// (1 MiB, 100,000 values with aliases expanded, 64 levels), and Error is
// scenario.Error; one set or swept value is at most 16 KiB as --set text.
//
// # Shards
//
// Shard{I, N} selects the points whose index modulo N is I. A point's
// shard depends only on its index, so N tasks that each expand the same
// sweep file agree without talking, and together run every point exactly
// once (round-robin, so that neighbouring points, which often differ in
// cost along the last grid key, spread over the tasks).
//
// # Running
//
// Run gives points to Options.Workers goroutines (default GOMAXPROCS).
// Simulations are single-threaded and share nothing, so W workers finish
// equal points about W times faster while there are W idle cores (see
// BenchmarkSweepScaling). For each point it
//
//   - skips it when OUT/HASH/run.parquet exists, unless Options.Force;
//   - removes a stale run.parquet, error.txt and temporary files of an
//     interrupted write from the directory;
//   - writes scenario.yaml, runs the simulation with the swept values as
//     wiring.Options.Params, and writes flows.parquet (samples.parquet),
//     scenario.yaml and, last, run.parquet (wiring.Result.WriteDir),
//     each atomically.
//
// So run.parquet exists only for complete points, and a killed sweep
// resumes where it stopped. Options.RunPoint replaces the in-process
// RunPoint: the dcsim command runs each point as a child process
// ("dcsim sweep FILE --point I") with a memory budget, so that a point
// that exhausts memory or crashes the Go runtime, which no recover can
// catch, is recorded (RecordFailure) and the other points go on. A point that fails, by an error or a panic
// (recovered, with its stack), leaves ErrorFile (error.txt, with the
// command that reproduces it) and no run.parquet; the other points go on.
// Running the same point from two processes at once is not supported; the
// shards of one sweep never do (dcsim locks --out: see
// scenario.LockDir). Cancelling Run's context stops the running points
// at the end of their chunk of simulated time (wiring.Options.Context):
// an interrupted point leaves no file and no ErrorFile, counts neither as
// done nor failed, and a re-run does it.
//
// # Results
//
// Collect reads every run directory (one holding run.parquet) below some
// directories; Results.Group splits the runs by run.parquet columns,
// pinned or swept, and analyses each group's pooled flows with
// analysis.Analyze (clamped slowdowns, 5% size buckets, no size split).
// DefaultGroupBy keeps apart every pair of runs that differ in more than
// the seed (the config column hashes the resolved scenario for what no
// column shows), and a group never averages the iteration times of two
// training workloads.
// Collect counts a run found in two directories (the same config_hash:
// the same scenario and seed) once, from the first, and lists the others
// in Results.Repeats. FormatGroups and WriteCSV print groups; this is what
// "dcsim report" prints.
//
// # Figures
//
// NewFigure plans a figure of groups and Figure.Write draws it as PNG
// (300 dpi), SVG or PDF (gonum/plot), chosen by PlotFormat from a file's
// extension. One grouping column is the series (PlotOptions.Series;
// default scheduler, else the last grouping column): one line per value
// in each panel, in one Okabe-Ito colour, marker and dash per value across
// the whole figure, so it reads in greyscale and with colour-vision
// deficiencies; at most MaxSeries. The other grouping columns that vary
// are the facets, one panel per combination with runs, at most MaxPanels:
// with two or more facet columns the last one's values run across (load
// 0.5 beside 0.8) and the others' combinations down; otherwise panels
// fill rows of three. What all runs share (scenario, workload, load, cc)
// is the title; the series column names the legend ("scheduler:"). Each
// panel is 3.5 x 2.6 in, a column of a two-column paper, and all panels
// share one y range, so panels side by side compare by eye. Log axes end
// on 1, 2 or 5 times a power of ten and label every integer within a
// decade, 1, 2 and 5 up to three decades, decades beyond. PlotKinds lists
// the panels: slowdown-by-size (a statistic per 5% size bucket), cdf,
// ccdf (the tail, log-log, down to 1/n), summary (mean and p99 per
// series) and iterations (training runs).
//
// # Example
//
//	spec, err := sweep.Load("storm.yaml")
//	points, err := spec.Points()
//	sum, err := sweep.Run(ctx, sweep.Shard{Index: 0, Count: 4}.Select(points),
//		sweep.Options{Out: "out/storm", Workers: 2})
//	res, err := sweep.Collect("out/storm")
//	groups, err := res.Group([]string{"scheduler", "workload.load"})
//	err = sweep.FormatGroups(os.Stdout, groups)
//	err = sweep.Plot(w, "pdf", groups, sweep.PlotOptions{Kind: "ccdf"})
package sweep
