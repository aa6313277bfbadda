package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

// sixPoints is a sweep of six tiny points (a few ms each).
const sixPoints = `name: six
base: base.yaml
grid:
  nic.scheduler: [fair, fair-message]
  workload.load: [0.3, 0.5, 0.7]
`

func runSweep(t testing.TB, points []Point, out string, workers int, force bool) *Summary {
	t.Helper()
	sum, err := Run(context.Background(), points, Options{Out: out, Workers: workers, Force: force, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range sum.Outcomes {
		if o.Err != nil {
			t.Fatalf("point %d failed: %v", o.Point.Index, o.Err)
		}
	}
	return sum
}

// dirFiles maps each file under out (relative path) to its content, with
// run.parquet replaced by its record minus the wall clock (the one column
// that differs between runs of the same scenario).
func dirFiles(t testing.TB, out string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		if d.Name() == analysis.RunFile {
			r, params, err := analysis.ReadRun(path)
			if err != nil {
				return err
			}
			r.WallSeconds, r.RunID = 0, "" // the wall clock; unique per run
			load := "null"
			if r.Load != nil {
				load = fmt.Sprint(*r.Load)
			}
			r.Load = nil // a pointer would print as an address
			files[rel] = fmt.Sprintf("%+v load=%s %v", r, load, params)
			return nil
		}
		b, err := os.ReadFile(path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func diffDirs(t *testing.T, what, a, b string) {
	t.Helper()
	fa, fb := dirFiles(t, a), dirFiles(t, b)
	if len(fa) == 0 {
		t.Fatalf("%s: no files in %s", what, a)
	}
	ka, kb := slices.Sorted(mapKeys(fa)), slices.Sorted(mapKeys(fb))
	if diff := cmp.Diff(ka, kb); diff != "" {
		t.Fatalf("%s: file sets differ (-%s +%s):\n%s", what, a, b, diff)
	}
	for _, k := range ka {
		if filepath.Base(k) == scenario.LockFile {
			continue // a point's lock holds the pid of the sweep that ran it
		}
		if strings.HasSuffix(k, ".parquet") && filepath.Base(k) != analysis.RunFile {
			// Every run has an id of its own: compare rows without it.
			if same, err := analysis.SameRows(filepath.Join(a, k), filepath.Join(b, k)); err != nil || !same {
				t.Errorf("%s: %s differs (%v)", what, k, err)
			}
			continue
		}
		if fa[k] != fb[k] {
			t.Errorf("%s: %s differs", what, k)
		}
	}
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Two workers and one give the same files (run.parquet but for its wall
// clock): points share nothing, and results do not depend on scheduling.
func TestParallelEqualsSerial(t *testing.T) {
	_, pts := mustPoints(t, writeSweep(t, sixPoints))
	serial, parallel := t.TempDir(), t.TempDir()
	s1 := runSweep(t, pts, serial, 1, false)
	s2 := runSweep(t, pts, parallel, 2, false)
	if s1.Done != 6 || s2.Done != 6 {
		t.Fatalf("got %d and %d points done, want 6", s1.Done, s2.Done)
	}
	diffDirs(t, "serial vs parallel", serial, parallel)
	// Every point's directory is its hash, run.parquet's config_hash; the
	// swept values are run.parquet columns.
	for _, p := range pts {
		r, params, err := analysis.ReadRun(filepath.Join(serial, p.Hash, analysis.RunFile))
		if err != nil {
			t.Fatal(err)
		}
		if r.ConfigHash != p.Hash {
			t.Errorf("point %d: config_hash %s, directory %s", p.Index, r.ConfigHash, p.Hash)
		}
		if diff := cmp.Diff(p.Params, params); diff != "" {
			t.Errorf("point %d: run.parquet params (-want +got):\n%s", p.Index, diff)
		}
		if r.Scheduler != p.Scenario.NIC.Scheduler || r.Version != "test" {
			t.Errorf("point %d: run.parquet scheduler %q version %q, want %q test", p.Index, r.Scheduler, r.Version, p.Scenario.NIC.Scheduler)
		}
	}
}

// Shards 0..N-1, run one after another into one directory, do every
// point exactly once and give the unsharded sweep's files.
func TestShardsUnionEqualsWhole(t *testing.T) {
	_, pts := mustPoints(t, writeSweep(t, sixPoints))
	whole, sharded := t.TempDir(), t.TempDir()
	runSweep(t, pts, whole, 2, false)
	const n = 4
	ran := map[int]int{}
	for i := range n {
		sum := runSweep(t, (Shard{i, n}).Select(pts), sharded, 1, false)
		if sum.Skipped != 0 {
			t.Errorf("shard %d/%d skipped %d points: shards overlap", i, n, sum.Skipped)
		}
		for _, o := range sum.Outcomes {
			ran[o.Point.Index]++
		}
	}
	for _, p := range pts {
		if ran[p.Index] != 1 {
			t.Errorf("point %d ran %d times over the shards, want 1", p.Index, ran[p.Index])
		}
	}
	diffDirs(t, "shards vs whole", whole, sharded)
}

// A re-run skips finished points; --force recomputes them to the same
// files.
func TestSkipAndForce(t *testing.T) {
	_, pts := mustPoints(t, writeSweep(t, sixPoints))
	out, ref := t.TempDir(), t.TempDir()
	runSweep(t, pts, out, 2, false)
	runSweep(t, pts, ref, 2, false)
	before := map[string][]byte{}
	for _, p := range pts {
		b, _ := os.ReadFile(filepath.Join(out, p.Hash, analysis.RunFile))
		before[p.Hash] = b
	}
	sum := runSweep(t, pts, out, 2, false)
	if sum.Skipped != 6 || sum.Done != 0 {
		t.Errorf("re-run: got %d skipped, %d done, want 6 skipped", sum.Skipped, sum.Done)
	}
	for _, p := range pts {
		if b, _ := os.ReadFile(filepath.Join(out, p.Hash, analysis.RunFile)); !bytes.Equal(b, before[p.Hash]) {
			t.Errorf("point %d: run.parquet rewritten by a re-run that should skip it", p.Index)
		}
	}
	sum = runSweep(t, pts, out, 2, true)
	if sum.Skipped != 0 || sum.Done != 6 {
		t.Errorf("--force: got %d skipped, %d done, want 6 done", sum.Skipped, sum.Done)
	}
	diffDirs(t, "forced vs fresh", out, ref)
}

// A point that errors or panics leaves error.txt and no run.parquet, the
// others finish, and a later run retries it.
func TestFailingPoints(t *testing.T) {
	_, pts := mustPoints(t, writeSweep(t, sixPoints))
	out := t.TempDir()
	orig := simulate
	t.Cleanup(func() { simulate = orig })
	simulate = func(p *Point, opt wiring.Options) (*wiring.Result, error) {
		switch p.Index {
		case 1:
			return nil, errors.New("injected failure")
		case 4:
			var m map[string]int
			m["boom"]++ // a nil-map panic inside the "simulation"
		}
		return orig(p, opt)
	}
	sum, err := Run(context.Background(), pts, Options{Out: out, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 4 || sum.Failed != 2 {
		t.Fatalf("got %d done, %d failed, want 4 and 2", sum.Done, sum.Failed)
	}
	for _, o := range sum.Outcomes {
		failed := o.Point.Index == 1 || o.Point.Index == 4
		if (o.Err != nil) != failed {
			t.Errorf("point %d: error %v, want failure %v", o.Point.Index, o.Err, failed)
		}
		if got := PointStatus(out, o.Point); (got == "failed") != failed || (got == "done") == failed {
			t.Errorf("point %d: status %s", o.Point.Index, got)
		}
		if !failed {
			continue
		}
		if fileExists(filepath.Join(o.Dir, analysis.RunFile)) {
			t.Errorf("point %d failed but has run.parquet", o.Point.Index)
		}
		b, err := os.ReadFile(filepath.Join(o.Dir, ErrorFile))
		if err != nil {
			t.Fatal(err)
		}
		want := "injected failure"
		if o.Point.Index == 4 {
			want = "panic: assignment to entry in nil map"
		}
		if !strings.Contains(string(b), want) || !strings.Contains(string(b), "dcsim run ") {
			t.Errorf("point %d: %s says\n%s\nwant it to contain %q and how to reproduce", o.Point.Index, ErrorFile, b, want)
		}
	}
	// Fixed, the re-run does only the two failed points and clears their
	// error files.
	simulate = orig
	sum = runSweep(t, pts, out, 2, false)
	if sum.Done != 2 || sum.Skipped != 4 {
		t.Errorf("re-run: got %d done, %d skipped, want 2 and 4", sum.Done, sum.Skipped)
	}
	for _, p := range pts {
		if PointStatus(out, &p) != "done" || fileExists(filepath.Join(Dir(out, &p), ErrorFile)) {
			t.Errorf("point %d after re-run: status %s", p.Index, PointStatus(out, &p))
		}
	}
}

// The sweep in TestResume's subprocess: it runs sixPoints with two
// workers and, once the first point is complete, stops making progress
// (the parent then kills it with SIGKILL, mid-sweep; the other worker
// may be inside a simulation or a file write).
func TestResumeHelper(t *testing.T) {
	sw, out := os.Getenv("DCSIM_RESUME_SWEEP"), os.Getenv("DCSIM_RESUME_OUT")
	if sw == "" {
		t.Skip("helper process for TestResume")
	}
	_, pts := mustPoints(t, sw)
	block := make(chan struct{})
	_, err := Run(context.Background(), pts, Options{Out: out, Workers: 2, Version: "test", Progress: func(s Status) {
		if s.Done >= 1 {
			fmt.Println("one point done")
			<-block // hold the sweep until killed
		}
	}})
	t.Fatalf("sweep returned (%v) instead of waiting to be killed", err)
}

// Kill a sweep after its first point, re-run it: every point is
// simulated exactly once over the two runs, and the files equal those
// of an uninterrupted sweep.
func TestResume(t *testing.T) {
	sw := writeSweep(t, sixPoints)
	_, pts := mustPoints(t, sw)
	out, ref := t.TempDir(), t.TempDir()

	cmd := exec.Command(os.Args[0], "-test.run=^TestResumeHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "DCSIM_RESUME_SWEEP="+sw, "DCSIM_RESUME_OUT="+out)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the helper to say a point is done, then kill it.
	buf := make([]byte, 4096)
	var seen []byte
	for !bytes.Contains(seen, []byte("one point done")) {
		n, err := stdout.Read(buf)
		seen = append(seen, buf[:n]...)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("helper ended before a point was done: %v\nstdout: %s\nstderr: %s", err, seen, stderr.String())
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	var complete []string
	for _, p := range pts {
		if PointStatus(out, &p) == "done" {
			complete = append(complete, p.Hash)
		}
	}
	if len(complete) == 0 || len(complete) == len(pts) {
		t.Fatalf("after the kill %d of %d points are complete, want some but not all", len(complete), len(pts))
	}
	before := map[string][]byte{}
	for _, h := range complete {
		before[h], _ = os.ReadFile(filepath.Join(out, h, analysis.RunFile))
	}

	sum := runSweep(t, pts, out, 2, false)
	if sum.Skipped != len(complete) || sum.Done != len(pts)-len(complete) {
		t.Errorf("resume: got %d skipped, %d done, want %d skipped, %d done", sum.Skipped, sum.Done, len(complete), len(pts)-len(complete))
	}
	for _, o := range sum.Outcomes {
		if slices.Contains(complete, o.Point.Hash) != o.Skipped {
			t.Errorf("point %d: skipped %v, complete before the resume %v", o.Point.Index, o.Skipped, !o.Skipped)
		}
	}
	for h, b := range before {
		if now, _ := os.ReadFile(filepath.Join(out, h, analysis.RunFile)); !bytes.Equal(now, b) {
			t.Errorf("point %s: run.parquet rewritten on resume: it ran twice", h)
		}
	}
	runSweep(t, pts, ref, 2, false)
	diffDirs(t, "resumed vs uninterrupted", out, ref)
	for _, p := range pts {
		same, err := analysis.SameRows(filepath.Join(out, p.Hash, analysis.FlowsFile), filepath.Join(ref, p.Hash, analysis.FlowsFile))
		if err != nil || !same {
			t.Errorf("point %d: flows.parquet differs from the uninterrupted sweep's (%v)", p.Index, err)
		}
	}
	t.Logf("killed after %d of %d points; the resume ran the other %d", len(complete), len(pts), sum.Done)
}

// A cancelled context starts no new point.
func TestCancel(t *testing.T) {
	_, pts := mustPoints(t, writeSweep(t, sixPoints))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err := Run(ctx, pts, Options{Out: t.TempDir(), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 0 || sum.Pending() != 6 {
		t.Errorf("got %d points done, %d pending after cancel, want 0 and 6", sum.Done, sum.Pending())
	}
}

// A point interrupted by the context (Ctrl-C in dcsim) is neither done nor
// failed: it leaves no error.txt, no run.parquet and no temporary file,
// and the re-run does it with the points never started (issue 27, item 9).
func TestInterruptedPoint(t *testing.T) {
	_, pts := mustPoints(t, writeSweep(t, sixPoints))
	out := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("interrupted")
	orig := simulate
	t.Cleanup(func() { simulate = orig })
	simulate = func(p *Point, opt wiring.Options) (*wiring.Result, error) {
		if p.Index == 2 {
			cancel(stop) // the run stops after its first chunk
		}
		return orig(p, opt)
	}
	sum, err := Run(ctx, pts, Options{Out: out, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 2 || sum.Failed != 0 || sum.Pending() != 4 {
		t.Errorf("got %d done, %d failed, %d pending; want 2, 0, 4", sum.Done, sum.Failed, sum.Pending())
	}
	o := sum.Outcomes[2]
	if !errors.Is(o.Err, stop) {
		t.Errorf("point 2: got error %v, want the interruption", o.Err)
	}
	// Nothing but the point's lock, which stays as every lock does.
	left, _ := os.ReadDir(o.Dir)
	if len(left) != 1 || left[0].Name() != scenario.LockFile {
		t.Errorf("point 2 left %v, want only its lock (the run clears scenario.yaml too)", left)
	}
	simulate = orig
	if sum = runSweep(t, pts, out, 2, false); sum.Done != 4 || sum.Skipped != 2 {
		t.Errorf("re-run: got %d done, %d skipped, want 4 and 2", sum.Done, sum.Skipped)
	}
}

// A point whose directory another process holds (a shard of another
// count, a --point, a dcsim run --out into it) is not run at the same
// time: the sweep runs the others first, then waits for it, and skips it
// if the holder completed it, or runs it if the holder left it undone.
func TestHeldPointWaits(t *testing.T) {
	_, pts := mustPoints(t, writeSweep(t, sixPoints))
	pts = pts[:3]
	defer func(p time.Duration) { pointLockPoll = p }(pointLockPoll)
	pointLockPoll = 10 * time.Millisecond
	for _, completes := range []bool{true, false} {
		out := t.TempDir()
		held := Dir(out, &pts[1])
		if err := os.MkdirAll(held, 0o755); err != nil {
			t.Fatal(err)
		}
		lock, err := scenario.LockDir(held, "", 4242)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var ran []int
		opt := Options{Out: out, Workers: 2, Version: "test", RunPoint: func(p *Point, dir string) error {
			mu.Lock()
			ran = append(ran, p.Index)
			mu.Unlock()
			return os.WriteFile(filepath.Join(dir, analysis.RunFile), []byte("done"), 0o644)
		}}
		done := make(chan *Summary)
		go func() {
			sum, err := Run(context.Background(), pts, opt)
			if err != nil {
				t.Error(err)
			}
			done <- sum
		}()
		// The other two finish while point 1 is held.
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := len(ran)
			mu.Unlock()
			if n == 2 || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		select {
		case <-done:
			t.Fatal("the sweep ended while a point was held by another process")
		case <-time.After(50 * time.Millisecond):
		}
		if completes {
			os.WriteFile(filepath.Join(held, analysis.RunFile), []byte("by the holder"), 0o644)
		}
		lock.Unlock()
		sum := <-done
		slices.Sort(ran)
		want := []int{0, 1, 2}
		if completes {
			want = []int{0, 2}
		}
		if !slices.Equal(ran, want) {
			t.Errorf("holder completes %v: ran %v, want %v", completes, ran, want)
		}
		if completes != sum.Outcomes[1].Skipped || sum.Pending() != 0 {
			t.Errorf("holder completes %v: point 1 skipped %v, %d pending", completes, sum.Outcomes[1].Skipped, sum.Pending())
		}
	}
}
