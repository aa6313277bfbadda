//go:build amd64 || arm64

package prefetch

import "unsafe"

// Line asks for the cache line holding p. It cannot fault, whatever p is,
// and it does not keep p alive.
//
//go:noescape
func Line(p unsafe.Pointer)
