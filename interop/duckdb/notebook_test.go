package duckdb

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// notebookQueries are the SQL strings of examples/analysis.ipynb: every
// con.sql(f"""...""") of its code cells, with {OUT} as written.
func notebookQueries(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../examples/analysis.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Type   string   `json:"cell_type"`
			Source []string `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatalf("examples/analysis.ipynb: %v", err)
	}
	sqlRe := regexp.MustCompile(`(?s)con\.sql\(f"""(.*?)"""\)`)
	var qs []string
	for _, c := range nb.Cells {
		if c.Type != "code" {
			continue
		}
		for _, m := range sqlRe.FindAllStringSubmatch(strings.Join(c.Source, ""), -1) {
			qs = append(qs, m[1])
		}
	}
	return qs
}

// TestNotebookSQL runs examples/notebook.yaml, the sweep the notebook
// tells its reader to make, then every SQL query of
// examples/analysis.ipynb on it as written (only {OUT} filled in). The
// first query's groups and means must equal "dcsim report OUT" with its
// default grouping, which pools only seeds: this checks the notebook's
// grouping as well as its SQL. (Its pandas and matplotlib cells cannot run
// here: neither is installable on the project machine.)
func TestNotebookSQL(t *testing.T) {
	qs := notebookQueries(t)
	if len(qs) != 2 {
		t.Fatalf("found %d SQL queries in the notebook, want 2", len(qs))
	}
	e := setup(t) // builds dcsim; its tiny sweep is not used here
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := filepath.Join(e.dir, "notebook")
	sw, _ := filepath.Abs("../../examples/notebook.yaml")
	if b, err := exec.CommandContext(ctx, e.bin, "sweep", sw, "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("dcsim sweep examples/notebook.yaml: %v\n%s", err, b)
	}
	fill := func(q string) string { return strings.ReplaceAll(q, "{OUT}", out) }

	type stat struct {
		mean float64
		n    int64
	}
	sqlStats := map[string]stat{}
	rows, err := e.db.Query(fill(qs[0]))
	if err != nil {
		t.Fatalf("notebook query 1: %v", err)
	}
	for rows.Next() {
		var sched, cc, dist string
		var st stat
		var p99 float64
		if err := rows.Scan(&sched, &cc, &dist, &st.n, &st.mean, &p99); err != nil {
			t.Fatal(err)
		}
		sqlStats[sched+","+cc+","+dist] = st
	}
	rows.Close()
	if len(sqlStats) != 8 {
		t.Errorf("notebook query 1: %d groups, want 8 (2 schedulers x 2 CCs x 2 distributions)", len(sqlStats))
	}

	var buckets int
	if err := e.db.QueryRow("SELECT count(*) FROM (" + fill(qs[1]) + ")").Scan(&buckets); err != nil || buckets < 8*10 {
		t.Errorf("notebook query 2: %d bucket rows, err %v; want at least 10 per group", buckets, err)
	}

	rep, err := exec.CommandContext(ctx, e.bin, "report", out, "--format", "csv").Output()
	if err != nil {
		t.Fatalf("dcsim report: %v", err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(rep))).ReadAll()
	if err != nil || len(recs) != 9 || strings.Join(recs[0][:3], ",") != "scheduler,cc,workload.distribution" {
		t.Fatalf("report CSV: want 8 groups by scheduler, cc, workload.distribution; got %v\n%s", err, rep)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, rec := range recs[1:] {
		key := strings.Join(rec[:3], ",")
		mean, err1 := strconv.ParseFloat(rec[col["mean_slowdown"]], 64)
		n, err2 := strconv.ParseInt(rec[col["finished"]], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("report CSV row %v", rec)
		}
		st, ok := sqlStats[key]
		// The same values summed in another order: equal to a few ulps.
		if !ok || st.n != n || math.Abs(st.mean-mean) > 1e-12*mean {
			t.Errorf("%s: notebook SQL mean %.15g over %d flows, dcsim report %.15g over %d", key, st.mean, st.n, mean, n)
		}
	}
}
