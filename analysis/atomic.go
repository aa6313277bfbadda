package analysis

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes path through write so that path either keeps its
// old content or holds the complete new one, never a partial file: write
// fills a temporary file in the same directory, which is flushed, fsynced,
// made readable (0644) and renamed over path; the directory is then synced
// so that the rename survives a crash. On any error the temporary file is
// removed and path is untouched.
func WriteFileAtomic(path string, write func(w io.Writer) error) error {
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return writeError(path, err)
	}
	return f.Commit()
}

// writeError says which file could not be written and why, once: err is
// often an *os.PathError naming the file's temporary name, which is gone.
func writeError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("write %s: %w", path, err)
}

// AtomicFile is a file being written under a temporary name next to its
// path, buffered; Commit puts it in place, Abort removes it. A writer that
// must stay open while a run goes on (samples.parquet) uses it directly.
type AtomicFile struct {
	path string
	tmp  *os.File
	*bufio.Writer
}

// TempPattern is the glob of the temporary files that atomic writes of
// a file named base leave in its directory when they are killed.
func TempPattern(base string) string { return "." + base + ".tmp-*" }

// CreateAtomic starts writing path atomically (see WriteFileAtomic).
func CreateAtomic(path string) (*AtomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, TempPattern(base))
	if err != nil {
		return nil, writeError(path, err)
	}
	return &AtomicFile{path: path, tmp: tmp, Writer: bufio.NewWriterSize(tmp, 1<<20)}, nil
}

// Commit flushes, fsyncs and renames the file over its path, then syncs
// the directory. On error the temporary file is removed.
func (f *AtomicFile) Commit() (err error) {
	defer func() {
		if err != nil {
			f.Abort()
			err = writeError(f.path, err)
		}
	}()
	if err := f.Flush(); err != nil {
		return err
	}
	if err := f.tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := f.tmp.Sync(); err != nil {
		return err
	}
	if err := f.tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		return err
	}
	dir, _ := filepath.Split(f.path)
	if dir == "" {
		dir = "."
	}
	syncDir(dir)
	return nil
}

// Abort removes the temporary file; the path is untouched.
func (f *AtomicFile) Abort() {
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

// syncDir fsyncs a directory so that a rename in it survives a crash. It is
// best effort: some file systems refuse to sync a directory, which costs
// durability, not atomicity, and the file is already in place.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
