//go:build windows

package scenario

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockFile is LockFileEx on one byte at 4 GiB, past the pid the file
// holds (a locked range cannot be read through other handles), failing at
// once when held; Windows drops it when the handle closes or the process
// ends.
func lockFile(f *os.File, exclusive bool) error {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &windows.Overlapped{OffsetHigh: 1})
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errLockHeld
	}
	return err
}
