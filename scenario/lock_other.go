//go:build !(unix && !aix) && !windows

package scenario

import "os"

// lockFile: no file lock here (AIX, wasm, plan9): runs go on unlocked,
// with LockDir's warning.
func lockFile(f *os.File, exclusive bool) error { return ErrNoLocking }
