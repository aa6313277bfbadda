//go:build !amd64 && !arm64

// Without a wrapped prefetch instruction, Line loads a byte instead: its
// miss overlaps the work after it until the core's window fills, which is
// what the fabric did everywhere before Line.

package prefetch

import "unsafe"

var sink uint8

// Line loads the byte at p, which must be valid memory (nil is allowed).
func Line(p unsafe.Pointer) {
	if p != nil {
		sink += *(*uint8)(p)
	}
}
