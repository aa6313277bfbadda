package fabric

import "unsafe"

// ringArena hands out the small rings of a large network's wires and class
// queues from blocks of ringBlockBytes advised for transparent huge pages
// (adviseHugePages), instead of one Go allocation each: the rings of a
// k = 32 fat-tree's 49,152 ports then sit in a few dozen 2 MiB pages, not
// spread over thousands of 4 KiB ones, and a hop's ring slots need no TLB
// walk. Rings above arenaRingMax slots, and every ring of a network below
// arenaMinPorts ports (where one block would dwarf the rings), are
// allocated by Go as before. A ring that grows leaves its arena slots
// unused; addresses decide no result.
type ringArena struct {
	slots []wireSlot
}

const (
	ringBlockBytes = 8 << 20 // holds at least three aligned 2 MiB pages
	arenaRingMax   = 64
	arenaMinPorts  = 4096
)

// wireRing returns a ring of n wire slots.
func (a *ringArena) wireRing(n int) []wireSlot {
	if a == nil || n > arenaRingMax {
		return make([]wireSlot, n)
	}
	if len(a.slots) < n {
		a.slots = make([]wireSlot, ringBlockBytes/unsafe.Sizeof(wireSlot{}))
		adviseHugePages(unsafe.Pointer(&a.slots[0]), ringBlockBytes)
	}
	r := a.slots[:n:n]
	a.slots = a.slots[n:]
	return r
}
