package halo

// Span is a contiguous range of ring slots [Start, Start+N).
type Span struct{ Start, N int64 }

// WriteSpans is where a batch of n particles published at tail lands in
// a ring of capacity slots: one span, or two when it wraps (the sender's
// two RDMA WRITEs).
func WriteSpans(tail, n, capacity int64) []Span {
	off := tail % capacity
	if off+n <= capacity {
		return []Span{{off, n}}
	}
	return []Span{{off, capacity - off}, {0, n - (capacity - off)}}
}

// Free is the room a sender that published tail sees after reading head.
func Free(tail, head, capacity int64) int64 { return capacity - (tail - head) }
