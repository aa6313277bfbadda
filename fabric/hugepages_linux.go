package fabric

import (
	"syscall"
	"unsafe"
)

// adviseHugePages asks the kernel to back the whole 2 MiB pages inside
// [p, p+n) with transparent huge pages when they are first touched
// (madvise MADV_HUGEPAGE; nothing happens where THP is off or the call
// fails). It changes no result, only how many TLB entries the memory
// needs. p must not have been written yet: Go hands a large allocation
// fresh from the OS untouched, so the port slab's pages fault in after
// the advice.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	const huge = 2 << 20
	lo := (uintptr(p) + huge - 1) &^ (huge - 1)
	hi := (uintptr(p) + n) &^ (huge - 1)
	if hi <= lo {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, 14) // MADV_HUGEPAGE
}
