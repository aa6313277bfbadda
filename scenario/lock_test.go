package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// One run or whole sweep writes a directory at a time; the second is told
// the holder's pid. Shards share the directory but not a shard (issue 27,
// item 1).
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	a, err := LockDir(dir, "", 101)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDir(dir, "", 202)
	var held *LockedError
	if !errors.As(err, &held) || held.PID != 101 {
		t.Fatalf("second exclusive lock: got %v, want a LockedError naming pid 101", err)
	}
	if want := dir + " is in use by dcsim pid 101 (lock " + filepath.Join(dir, LockFile) + "); wait for it to end or stop it"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if _, err := LockDir(dir, "0-of-2", 303); !errors.As(err, &held) {
		t.Errorf("a shard beside a whole lock: got %v, want LockedError", err)
	}
	a.Unlock()

	s0, err := LockDir(dir, "0-of-2", 404)
	if err != nil {
		t.Fatal(err)
	}
	defer s0.Unlock()
	s1, err := LockDir(dir, "1-of-2", 505)
	if err != nil {
		t.Fatalf("two shards: %v", err)
	}
	defer s1.Unlock()
	if _, err := LockDir(dir, "0-of-2", 606); !errors.As(err, &held) || held.PID != 404 {
		t.Errorf("shard 0 twice: got %v, want a LockedError naming pid 404", err)
	}
	if _, err := LockDir(dir, "", 707); !errors.As(err, &held) {
		t.Errorf("whole lock beside shards: got %v, want LockedError", err)
	}
}

// A symlink (or a directory) where the lock file goes is bad input, and
// the file it points to is left alone: dcsim writes its pid into the lock.
func TestLockDirNotAFile(t *testing.T) {
	dir := t.TempDir()
	precious := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(precious, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(precious, filepath.Join(dir, ".dcsim.lock")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	_, err := LockDir(dir, "", 1234)
	var nf *NotLockFileError
	if !errors.As(err, &nf) {
		t.Fatalf("got %v, want a NotLockFileError", err)
	}
	if b, _ := os.ReadFile(precious); string(b) != "keep" {
		t.Errorf("the symlink's target now holds %q", b)
	}
}
