//go:build !linux

package fabric

import "unsafe"

// adviseHugePages does nothing off Linux.
func adviseHugePages(unsafe.Pointer, uintptr) {}
