package duckdb

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
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

// notebookKeys is the notebook's choice of grouping columns, with its
// own SQL (queries 0 and 1: the run files' columns, and whether a column
// splits runs agreeing on some keys) and its Python loop written again in
// Go: scheduler and cc, every dotted (swept) column but nic.scheduler and
// cc.algorithm, then scenario, workload and load where they split runs.
func notebookKeys(t *testing.T, e *env, qs []string, out string) []string {
	t.Helper()
	quote := func(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
	describe, ok := strings.CutPrefix(strings.TrimSpace(strings.ReplaceAll(qs[0], "{OUT}", out)), "DESCRIBE ")
	if !ok {
		t.Fatalf("notebook query 0 is not a DESCRIBE of the run files: %s", qs[0])
	}
	_, columns := e.columnTypes(t, describe)
	keys := []string{"scheduler", "cc"}
	for _, c := range columns {
		if strings.Contains(c, ".") && c != "nic.scheduler" && c != "cc.algorithm" {
			keys = append(keys, c)
		}
	}
	for _, c := range []string{"scenario", "workload", "load"} {
		var group []string
		for _, k := range keys {
			group = append(group, quote(k))
		}
		q := strings.NewReplacer("{OUT}", out, "{q(c)}", quote(c), "{group}", strings.Join(group, ", ")).Replace(qs[1])
		var splits bool
		if err := e.db.QueryRow(q).Scan(&splits); err != nil {
			t.Fatalf("notebook query 1 (splits %s): %v\n%s", c, err, q)
		}
		if splits {
			keys = append(keys, c)
		}
	}
	return keys
}

// TestNotebookSQL runs every SQL query of examples/analysis.ipynb as
// written (only its {placeholders} filled in as its Python fills them)
// on three kinds of results: examples/notebook.yaml, the sweep the
// notebook tells its reader to make; a sweep over two loads like
// examples/storm-cloud-small.yaml, whose loads the notebook's SQL once
// pooled; and plain "dcsim run" directories, on which it failed (issue
// #26). Its grouping columns, groups and means must equal "dcsim report"
// with its default grouping, which pools only seeds. (Its pandas and
// matplotlib cells cannot run here: neither is installable on the project
// machine.)
func TestNotebookSQL(t *testing.T) {
	qs := notebookQueries(t)
	if len(qs) != 4 {
		t.Fatalf("found %d SQL queries in the notebook, want 4", len(qs))
	}
	e := setup(t) // builds dcsim; its tiny sweep is not used here
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dcsim := func(args ...string) {
		t.Helper()
		if b, err := exec.CommandContext(ctx, e.bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("dcsim %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	notebook := filepath.Join(e.dir, "notebook")
	sw, _ := filepath.Abs("../../examples/notebook.yaml")
	dcsim("sweep", sw, "--out", notebook)

	loads := filepath.Join(e.dir, "loads")
	loadSweep := filepath.Join(e.dir, "loads.yaml")
	if err := os.WriteFile(loadSweep, []byte(`name: loads
base: storm-cloud
set: {duration: 1ms, topology: {kind: star, hosts: 16}}
grid:
  workload.distribution: [websearch, alistorage]
  workload.load: [0.5, 0.8]
  nic.scheduler: [fair, storm]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	dcsim("sweep", loadSweep, "--out", loads)

	plain := filepath.Join(e.dir, "plain")
	for _, sched := range []string{"fair", "storm"} {
		dcsim("run", "storm-cloud", "--set", "duration=500us", "--set", "topology.kind=star", "--set", "topology.hosts=16",
			"--set", "nic.scheduler="+sched, "--out", filepath.Join(plain, sched), "--quiet")
	}

	for _, tc := range []struct {
		name, out string
		keys      []string
		groups    int
	}{
		{"notebook.yaml", notebook, []string{"scheduler", "cc", "workload.distribution"}, 8},
		{"two loads", loads, []string{"scheduler", "cc", "workload.distribution", "workload.load"}, 8},
		{"dcsim run directories", plain, []string{"scheduler", "cc"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) { checkNotebookSQL(t, e, qs, tc.out, tc.keys, tc.groups) })
	}
}

// checkNotebookSQL runs the notebook's queries on out and compares them
// with dcsim report's default grouping.
func checkNotebookSQL(t *testing.T, e *env, qs []string, out string, wantKeys []string, wantGroups int) {
	keys := notebookKeys(t, e, qs, out)
	if strings.Join(keys, ",") != strings.Join(wantKeys, ",") {
		t.Errorf("notebook grouping columns %v, want %v", keys, wantKeys)
	}
	quoted := func(prefix string) string {
		var parts []string
		for _, k := range keys {
			parts = append(parts, prefix+`"`+k+`"`)
		}
		return strings.Join(parts, ", ")
	}
	fill := strings.NewReplacer("{OUT}", out, "{by}", quoted("r."), "{cols}", quoted("")).Replace

	type stat struct {
		mean float64
		n    int64
	}
	sqlStats := map[string]stat{}
	rows, err := e.db.Query(fill(qs[2]))
	if err != nil {
		t.Fatalf("notebook query 2: %v", err)
	}
	for rows.Next() {
		vals := make([]any, len(keys)+3)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var key []string
		for _, v := range vals[:len(keys)] {
			switch x := v.(type) {
			case float64:
				key = append(key, strconv.FormatFloat(x, 'g', -1, 64))
			default:
				key = append(key, fmt.Sprint(x))
			}
		}
		sqlStats[strings.Join(key, ",")] = stat{mean: vals[len(keys)+1].(float64), n: vals[len(keys)].(int64)}
	}
	rows.Close()
	if len(sqlStats) != wantGroups {
		t.Errorf("notebook query 2: %d groups, want %d", len(sqlStats), wantGroups)
	}

	var buckets int
	if err := e.db.QueryRow("SELECT count(*) FROM (" + fill(qs[3]) + ")").Scan(&buckets); err != nil || buckets < wantGroups*10 {
		t.Errorf("notebook query 3: %d bucket rows, err %v; want at least 10 per group", buckets, err)
	}

	rep, err := exec.Command(e.bin, "report", out, "--format", "csv").Output()
	if err != nil {
		t.Fatalf("dcsim report: %v", err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(rep))).ReadAll()
	if err != nil || len(recs) != wantGroups+1 || strings.Join(recs[0][:len(keys)], ",") != strings.Join(keys, ",") {
		t.Fatalf("report CSV: want %d groups by %v; got %v\n%s", wantGroups, keys, err, rep)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, rec := range recs[1:] {
		key := strings.Join(rec[:len(keys)], ",")
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
