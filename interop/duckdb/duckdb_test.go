package duckdb

import (
	"context"
	"database/sql"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/dcsim/dcsim/analysis"
)

// tinySweep has four small points with sampling on, so that it writes
// flows, samples and run files; two swept columns of two types.
const tinySweep = `name: duck
base: default
set:
  duration: 200us
  topology: {kind: star, hosts: 8}
  workload: {distribution: alistorage}
  trace: {interval: 20us}
grid:
  nic.scheduler: [fair, fair-message]
  workload.load: [0.3, 0.6]
`

type env struct {
	db  *sql.DB
	bin string // the dcsim binary
	out string // the sweep's --out
	dir string
}

// setup builds dcsim from the main module, runs tinySweep with it, and
// opens an in-memory DuckDB.
func setup(t *testing.T) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e := &env{dir: t.TempDir()}
	e.bin = filepath.Join(e.dir, "dcsim")
	build := exec.CommandContext(ctx, "go", "build", "-o", e.bin, "./cmd/dcsim")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/dcsim: %v\n%s", err, out)
	}
	sw := filepath.Join(e.dir, "duck.yaml")
	if err := os.WriteFile(sw, []byte(tinySweep), 0o644); err != nil {
		t.Fatal(err)
	}
	e.out = filepath.Join(e.dir, "out")
	if out, err := exec.CommandContext(ctx, e.bin, "sweep", sw, "--out", e.out).CombinedOutput(); err != nil {
		t.Fatalf("dcsim sweep: %v\n%s", err, out)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e.db = db
	return e
}

// glob is the DuckDB file pattern of one kind of file in every point.
func (e *env) glob(file string) string { return filepath.Join(e.out, "*", file) }

// columnTypes is DuckDB's DESCRIBE of a query: column name -> type.
func (e *env) columnTypes(t *testing.T, query string) (map[string]string, []string) {
	t.Helper()
	rows, err := e.db.Query("DESCRIBE " + query)
	if err != nil {
		t.Fatalf("DESCRIBE %s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	types := map[string]string{}
	var order []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		name, typ := vals[0].(string), vals[1].(string)
		types[name] = typ
		order = append(order, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return types, order
}

func (e *env) count(t *testing.T, query string) int64 {
	t.Helper()
	var n int64
	if err := e.db.QueryRow("SELECT count(*) FROM " + query).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", query, err)
	}
	return n
}

// checkTypes compares DuckDB's types with the schema documented in
// package analysis (its doc.go): parquet INT64 is BIGINT, INT32 INTEGER,
// DOUBLE DOUBLE, STRING VARCHAR, BOOLEAN BOOLEAN.
func checkTypes(t *testing.T, what string, got map[string]string, want map[string]string) {
	t.Helper()
	for col, typ := range want {
		if got[col] != typ {
			t.Errorf("%s: column %s has DuckDB type %q, want %q", what, col, got[col], typ)
		}
	}
}

func TestDuckDBReadsSweep(t *testing.T) {
	e := setup(t)
	runs, err := filepath.Glob(e.glob(analysis.RunFile))
	if err != nil || len(runs) != 4 {
		t.Fatalf("sweep wrote %d run.parquet files (%v), want 4", len(runs), err)
	}

	// flows.parquet: every file's rows, and the documented types.
	var wantFlows int
	for _, r := range runs {
		flows, err := analysis.ReadFlows(filepath.Join(filepath.Dir(r), analysis.FlowsFile))
		if err != nil {
			t.Fatal(err)
		}
		wantFlows += len(flows)
		if got := e.count(t, "read_parquet('"+filepath.Join(filepath.Dir(r), analysis.FlowsFile)+"')"); got != int64(len(flows)) {
			t.Errorf("%s: DuckDB counts %d flows, dcsim %d", r, got, len(flows))
		}
	}
	flowsQ := "read_parquet('" + e.glob(analysis.FlowsFile) + "')"
	if got := e.count(t, flowsQ); got != int64(wantFlows) || wantFlows == 0 {
		t.Errorf("all flows: DuckDB counts %d, dcsim %d", got, wantFlows)
	}
	types, order := e.columnTypes(t, "SELECT * FROM "+flowsQ)
	checkTypes(t, "flows.parquet", types, map[string]string{
		"run_id": "VARCHAR", "flow_id": "BIGINT", "generator": "VARCHAR", "tag": "VARCHAR",
		"src": "INTEGER", "dst": "INTEGER", "qp": "BIGINT", "priority_class": "INTEGER",
		"size_bytes": "BIGINT", "start_ns": "BIGINT", "finish_ns": "BIGINT", "fct_ns": "BIGINT",
		"ideal_fct_ns": "BIGINT", "slowdown": "DOUBLE", "in_window": "BOOLEAN", "retransmitted_bytes": "BIGINT",
	})
	if len(order) != 16 {
		t.Errorf("flows.parquet has %d columns in DuckDB, want 16: %v", len(order), order)
	}

	// run.parquet: one row per point, pinned columns then the swept ones,
	// typed by their values; counters a MAP.
	runQ := "read_parquet('" + e.glob(analysis.RunFile) + "', union_by_name = true)"
	if got := e.count(t, runQ); got != 4 {
		t.Errorf("run.parquet rows: got %d, want 4", got)
	}
	types, order = e.columnTypes(t, "SELECT * FROM "+runQ)
	checkTypes(t, "run.parquet", types, map[string]string{
		"run_id": "VARCHAR", "scenario": "VARCHAR", "scheduler": "VARCHAR", "load": "DOUBLE", "seed": "BIGINT",
		"sim_time_ns": "BIGINT", "wall_seconds": "DOUBLE", "mean_slowdown": "DOUBLE", "flows_below_one": "BIGINT",
		"counters": "MAP(VARCHAR, BIGINT)", "nic.scheduler": "VARCHAR", "workload.load": "DOUBLE",
	})
	pinned := analysis.RunColumns()
	want := append(append([]string(nil), pinned...), "nic.scheduler", "workload.load")
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("run.parquet columns in DuckDB:\n  %v\nwant\n  %v", order, want)
	}
	// The swept columns agree with the pinned ones and with the counters.
	var mismatched int
	if err := e.db.QueryRow(`SELECT count(*) FROM ` + runQ + ` WHERE "nic.scheduler" <> scheduler OR "workload.load" <> load OR counters['data_packets'] IS NULL`).Scan(&mismatched); err != nil {
		t.Fatal(err)
	}
	if mismatched != 0 {
		t.Errorf("%d runs where the swept columns disagree with scheduler/load or counters lack data_packets", mismatched)
	}

	// samples.parquet.
	var wantSamples int
	for _, r := range runs {
		s, err := analysis.ReadSamples(filepath.Join(filepath.Dir(r), analysis.SamplesFile))
		if err != nil {
			t.Fatal(err)
		}
		wantSamples += len(s)
	}
	samplesQ := "read_parquet('" + e.glob(analysis.SamplesFile) + "')"
	if got := e.count(t, samplesQ); got != int64(wantSamples) || wantSamples == 0 {
		t.Errorf("samples: DuckDB counts %d, dcsim %d", got, wantSamples)
	}
	types, _ = e.columnTypes(t, "SELECT * FROM "+samplesQ)
	checkTypes(t, "samples.parquet", types, map[string]string{
		"run_id": "VARCHAR", "time_ns": "BIGINT", "component": "VARCHAR", "metric": "VARCHAR", "value": "DOUBLE"})
}

// The training files, which no built-in workload writes yet, written by
// dcsim's own writers and read by DuckDB.
func TestDuckDBReadsTrainingFiles(t *testing.T) {
	dir := t.TempDir()
	its := []analysis.IterationRecord{{RunID: "r", Iteration: 0, StartNs: 0, EndNs: 10, DurationNs: 10, ComputeNs: 6, ExposedCommNs: 4},
		{RunID: "r", Iteration: 1, StartNs: 10, EndNs: 25, DurationNs: 15, ComputeNs: 6, ExposedCommNs: 9}}
	cols := []analysis.CollectiveRecord{{RunID: "r", Iteration: 0, Name: "ar0", Op: "allreduce", Group: "dp0", Bytes: 1 << 20, StartNs: 1, EndNs: 9}}
	if err := analysis.WriteIterations(filepath.Join(dir, analysis.IterationsFile), its); err != nil {
		t.Fatal(err)
	}
	if err := analysis.WriteCollectives(filepath.Join(dir, analysis.CollectivesFile), cols); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := &env{db: db}
	q := "read_parquet('" + filepath.Join(dir, analysis.IterationsFile) + "')"
	types, _ := e.columnTypes(t, "SELECT * FROM "+q)
	checkTypes(t, "iterations.parquet", types, map[string]string{"run_id": "VARCHAR", "iteration": "BIGINT",
		"start_ns": "BIGINT", "end_ns": "BIGINT", "duration_ns": "BIGINT", "compute_ns": "BIGINT", "exposed_comm_ns": "BIGINT"})
	var sum int64
	if err := db.QueryRow("SELECT sum(duration_ns) FROM " + q).Scan(&sum); err != nil || sum != 25 {
		t.Errorf("sum(duration_ns): got %d (%v), want 25", sum, err)
	}
	q = "read_parquet('" + filepath.Join(dir, analysis.CollectivesFile) + "')"
	types, _ = e.columnTypes(t, "SELECT * FROM "+q)
	checkTypes(t, "collectives.parquet", types, map[string]string{"name": "VARCHAR", "op": "VARCHAR", "group": "VARCHAR", "bytes": "BIGINT"})
	if n := e.count(t, q); n != 1 {
		t.Errorf("collectives rows: got %d, want 1", n)
	}
}

// The mean clamped slowdown per scheduler over finished in-window flows,
// in SQL, equals what "dcsim report --group-by scheduler" computes.
func TestDuckDBAggregateEqualsReport(t *testing.T) {
	e := setup(t)
	rows, err := e.db.Query(`
		SELECT r.scheduler, avg(greatest(f.slowdown, 1.0)) AS mean_slowdown, count(*) AS flows
		FROM read_parquet('` + e.glob(analysis.FlowsFile) + `') f
		JOIN read_parquet('` + e.glob(analysis.RunFile) + `', union_by_name = true) r USING (run_id)
		WHERE f.in_window AND f.slowdown IS NOT NULL
		GROUP BY r.scheduler ORDER BY r.scheduler`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type stat struct {
		mean float64
		n    int64
	}
	sqlStats := map[string]stat{}
	for rows.Next() {
		var s string
		var st stat
		if err := rows.Scan(&s, &st.mean, &st.n); err != nil {
			t.Fatal(err)
		}
		sqlStats[s] = st
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(e.bin, "report", e.out, "--group-by", "scheduler", "--format", "csv").Output()
	if err != nil {
		t.Fatalf("dcsim report: %v", err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil || len(recs) != 3 || recs[0][5] != "mean_slowdown" || recs[0][2] != "finished" {
		t.Fatalf("report CSV: %v\n%s", err, out)
	}
	for _, rec := range recs[1:] {
		mean, err1 := strconv.ParseFloat(rec[5], 64)
		n, err2 := strconv.ParseInt(rec[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("report CSV row %v", rec)
		}
		st, ok := sqlStats[rec[0]]
		// The same values summed in another order: equal to a few ulps.
		if !ok || st.n != n || math.Abs(st.mean-mean) > 1e-12*mean {
			t.Errorf("%s: SQL mean %.15g over %d flows, dcsim report %.15g over %d", rec[0], st.mean, st.n, mean, n)
		}
		t.Logf("%s: mean clamped slowdown %.6f over %d flows (SQL %.15g, report %.15g)", rec[0], mean, n, st.mean, mean)
	}
	if len(sqlStats) != 2 {
		t.Errorf("SQL found %d schedulers, want 2", len(sqlStats))
	}
}
