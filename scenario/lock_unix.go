//go:build unix && !aix

package scenario

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile is flock(2), non-blocking: the lock belongs to the open file
// description, which Go opens close-on-exec, so children never inherit it
// and two opens in one process exclude each other as two processes do.
func lockFile(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
	switch {
	case errors.Is(err, unix.EWOULDBLOCK):
		return errLockHeld
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOLCK):
		return ErrNoLocking // e.g. NFS without a lock manager, Lustre without -o flock
	}
	return err
}
