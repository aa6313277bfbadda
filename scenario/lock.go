package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockFile is the lock a run or a sweep holds on its output directory
// while it writes there. It holds the pid of the dcsim that took it and
// stays after the run: removing it would let a process that opened the
// old file and one that creates a new one both hold "the" lock.
const LockFile = ".dcsim.lock"

// ErrNoLocking is returned, wrapped, by LockDir on a file system that
// cannot lock files (some network and cluster file systems): the caller
// goes on unlocked, with a warning, rather than refusing to run.
var ErrNoLocking = errors.New("the file system does not support locking")

// LockedError is LockDir's answer when another process holds the lock.
type LockedError struct {
	Path string // the lock file
	PID  int    // the holder's recorded pid; 0 if unreadable
}

func (e *LockedError) Error() string {
	holder := "another dcsim"
	if e.PID > 0 {
		holder = "dcsim pid " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("%s is in use by %s (lock %s); wait for it to end or stop it", filepath.Dir(e.Path), holder, e.Path)
}

// DirLock is a lock held on an output directory; Unlock releases it, and
// so does the holder's death, however it dies (the kernel drops the lock
// with the last descriptor), so no stale lock needs breaking by hand.
type DirLock struct {
	files []*os.File
}

// LockDir takes dir's lock without waiting, recording pid as the holder.
// With part "" the lock is exclusive: one run or sweep writes dir at a
// time. With a part (a sweep shard, "0-of-4"), dir's lock is shared with
// the other parts and the part's own lock file, LockFile.PART, is
// exclusive: shards of one sweep write disjoint point directories under
// one dir at once, while a whole sweep or a run excludes them all. dir
// must exist. Another holder gives a *LockedError; a file system without
// locks an error wrapping ErrNoLocking (then the returned lock is usable
// and holds nothing).
func LockDir(dir, part string, pid int) (*DirLock, error) {
	l := &DirLock{}
	main := filepath.Join(dir, LockFile)
	if part == "" {
		return l, l.take(main, true, pid)
	}
	if err := l.take(main, false, pid); err != nil {
		return l, err
	}
	if err := l.take(main+"."+part, true, pid); err != nil {
		l.Unlock()
		return l, err
	}
	return l, nil
}

// NotLockFileError says that a lock file's name is taken by something
// that is not a regular file (a symlink, a directory): bad input.
type NotLockFileError struct{ Path string }

func (e *NotLockFileError) Error() string {
	return e.Path + " is not a regular file (a symlink or a directory): dcsim writes its pid there; remove it"
}

// take locks path, exclusive or shared, and records pid in it.
func (l *DirLock) take(path string, exclusive bool, pid int) error {
	// The pid is written into the file: a symlink planted in its place
	// would have dcsim overwrite the file it points to.
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return &NotLockFileError{Path: path}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	switch err := lockFile(f, exclusive); {
	case errors.Is(err, errLockHeld):
		f.Close()
		return &LockedError{Path: path, PID: readPID(path)}
	case errors.Is(err, ErrNoLocking):
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	case err != nil:
		f.Close()
		return fmt.Errorf("lock %s: %w", path, err)
	}
	l.files = append(l.files, f)
	// Shared holders overwrite each other: the pid is then one of them.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(pid)+"\n"), 0)
	}
	return nil
}

// Unlock releases the lock. It is safe on a lock that holds nothing.
func (l *DirLock) Unlock() {
	for _, f := range l.files {
		f.Close() // closing the descriptor drops its lock
	}
	l.files = nil
}

func readPID(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// errLockHeld is lockFile's "someone else holds it".
var errLockHeld = errors.New("lock held")
