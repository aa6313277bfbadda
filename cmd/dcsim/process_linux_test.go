package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/sweep"
)

// The binary's process handling (issue 27). These tests start dcsim,
// wait until its child processes work, and then kill or interrupt it.

// longSweep writes a sweep of two points long enough to be caught
// running (each simulates 50 ms of the default scenario: tens of seconds).
func longSweep(t *testing.T) string {
	t.Helper()
	sw := filepath.Join(t.TempDir(), "long.yaml")
	if err := os.WriteFile(sw, []byte("base: default\nset: {duration: 50ms}\ngrid:\n  seed: [1, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return sw
}

// procsWith lists the live processes (zombies are dead) whose command
// line contains s.
func procsWith(s string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(s)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && bytes.HasPrefix(stat[i+1:], []byte(" Z")) {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// waitUntil polls cond for up to a minute (a loaded 2-core machine
// builds the default scenario in seconds).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting until %s", what)
}

// filesUnder lists the files under dir, relative, sorted.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return nil
	})
	slices.Sort(files)
	return files
}

// kill -9 of dcsim run, dcsim sweep or sweep --point takes its children
// with it: no process is left working on --out, and no run directory
// appears afterwards. The child went on, adopted by PID 1, and wrote a
// complete run 30 s later; an orphaned sweep kept launching points.
func TestKilledParentTakesChildren(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildDcsim(t)
	sw := longSweep(t)
	for _, tc := range []struct {
		name    string
		args    []string
		working string // in the command line of a process doing the work
	}{
		{"run", []string{"run", "default", "--set", "duration=50ms"}, "run"},
		{"sweep", []string{"sweep", sw, "-j", "2"}, "--point"},
		{"sweep --point", []string{"sweep", sw, "--point", "1"}, "--point"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out-killed")
			cmd := exec.Command(bin, append(tc.args, "--out", out, "-q")...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { // survivors, if the test failed
				for _, pid := range procsWith(out) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			waitUntil(t, "a child works on "+out, func() bool {
				for _, pid := range procsWith(out) {
					cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
					if pid != cmd.Process.Pid && bytes.Contains(cmdline, []byte(tc.working)) {
						return true
					}
				}
				return false
			})
			cmd.Process.Kill()
			cmd.Wait()
			waitUntil(t, "no process works on "+out, func() bool { return len(procsWith(out)) == 0 })
			time.Sleep(time.Second) // a survivor's file would show by now
			for _, f := range filesUnder(t, out) {
				if filepath.Base(f) == "run.parquet" {
					t.Errorf("%s appeared after the kill", f)
				}
			}
		})
	}
}

// Two runs into one --out: the second exits 2 naming the first's pid.
// Ctrl-C (SIGINT to the process group, as a terminal sends it) stops the
// first with exit 130 and one line that is not a crash, and its partial
// files go; it printed "killed by signal interrupt" with exit 1.
func TestRunInterruptedAndLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildDcsim(t)
	out := filepath.Join(t.TempDir(), "out")
	first := exec.Command(bin, "run", "default", "--set", "duration=50ms", "--out", out, "-q")
	first.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	first.Stderr = &stderr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	waitUntil(t, "the run streams flows.parquet", func() bool {
		tmp, _ := filepath.Glob(filepath.Join(out, ".flows.parquet.tmp-*"))
		return len(tmp) > 0
	})
	second, err := exec.Command(bin, "run", "default", "--set", "duration=1ms", "--out", out, "-q").CombinedOutput()
	want := "dcsim: --out: " + out + " is in use by dcsim pid " + strconv.Itoa(first.Process.Pid)
	if exitCode(err) != 2 || !strings.HasPrefix(string(second), want) || strings.Count(string(second), "\n") != 1 {
		t.Errorf("second run: got exit %d, %q; want 2 and one line %q...", exitCode(err), second, want)
	}
	syscall.Kill(-first.Process.Pid, syscall.SIGINT)
	err = first.Wait()
	msg := stderr.String()
	if exitCode(err) != 130 || !strings.HasPrefix(msg, "dcsim: interrupted at simulated ") ||
		!strings.HasSuffix(msg, "; "+out+" holds no results (the same command runs it again)\n") || strings.Count(msg, "\n") != 1 {
		t.Errorf("interrupted run: got exit %d, stderr %q; want 130 and one line", exitCode(err), msg)
	}
	if got := filesUnder(t, out); !slices.Equal(got, []string{scenario.LockFile}) {
		t.Errorf("the interrupted run left %v", got)
	}
}

// SIGTERM to a sweep goes to its points, and Ctrl-C (SIGINT to the
// process group) reaches them at once: they stop and remove their
// partial files, the sweep exits 143 or 130 saying how to resume, and no
// point is recorded as failed (error.txt).
func TestSweepInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildDcsim(t)
	sw := longSweep(t)
	points := loadPoints(t, sw)
	for _, tc := range []struct {
		name  string
		group bool // signal the process group, as a terminal does
		sig   syscall.Signal
	}{
		{"SIGTERM", false, syscall.SIGTERM},
		{"Ctrl-C", true, syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(bin, "sweep", sw, "-j", "2", "--out", out)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			waitUntil(t, "both points stream flows.parquet", func() bool {
				for i := range points {
					if tmp, _ := filepath.Glob(filepath.Join(sweep.Dir(out, &points[i]), ".flows.parquet.tmp-*")); len(tmp) == 0 {
						return false
					}
				}
				return true
			})
			pid := cmd.Process.Pid
			if tc.group {
				pid = -pid
			}
			syscall.Kill(pid, tc.sig)
			err := cmd.Wait()
			want := "dcsim: interrupted; 0 of 2 points done (0 by this run), 2 left; resume with the same command\n"
			if exitCode(err) != 128+int(tc.sig) || stderr.String() != want || stdout.Len() != 0 {
				t.Errorf("got exit %d, stdout %q, stderr %q; want %d and %q", exitCode(err), stdout.String(), stderr.String(), 128+int(tc.sig), want)
			}
			// Only locks: the sweep's, and each started point's (which
			// stay, as every lock does; the points' data are gone).
			locks := []string{scenario.LockFile}
			for i := range points {
				locks = append(locks, filepath.Join(points[i].Hash, scenario.LockFile))
			}
			slices.Sort(locks[1:])
			if got := filesUnder(t, out); !slices.Equal(got, locks) {
				t.Errorf("the interrupted sweep left %v, want %v", got, locks)
			}
			if left := procsWith(out); len(left) > 0 {
				t.Errorf("processes %v still work on %s", left, out)
			}
		})
	}
}

// A full disk (here a file size limit: Go ignores SIGXFSZ, so the write
// fails with EFBIG as it fails with ENOSPC) ends the run with exit 1 and
// one line naming the file, and leaves no partial file.
func TestRunDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildDcsim(t)
	out := filepath.Join(t.TempDir(), "out")
	// 16 blocks of 512 B (POSIX sh): 8 KiB, below small.yaml's 12 KB of flows.
	got, err := exec.Command("sh", "-c", `ulimit -f 16 && exec "$0" run testdata/small.yaml -q --out "$1"`, bin, out).CombinedOutput()
	want := "dcsim: writing results: write " + filepath.Join(out, "flows.parquet") + ": file too large\n"
	if exitCode(err) != 1 || string(got) != want {
		t.Errorf("got exit %d, %q; want 1 and %q", exitCode(err), got, want)
	}
	if files := filesUnder(t, out); !slices.Equal(files, []string{scenario.LockFile}) {
		t.Errorf("the failed run left %v", files)
	}
}
