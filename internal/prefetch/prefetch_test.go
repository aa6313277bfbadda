package prefetch

import (
	"testing"
	"unsafe"
)

// Line does not fault on nil or on a live value, and changes no memory.
func TestLine(t *testing.T) {
	Line(nil)
	b := []byte{7, 8}
	Line(unsafe.Pointer(&b[0]))
	if b[0] != 7 || b[1] != 8 {
		t.Fatalf("memory changed: got %v, want [7 8]", b)
	}
}
