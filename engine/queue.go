package engine

import "math/bits"

// event is one scheduled call: h.Fire(at, kind). key holds the sequence
// number in its high 56 bits and the kind in its low 8, so ordering by
// (at, key) is ordering by (time, sequence): ties pop FIFO.
type event struct {
	at  Time
	key uint64
	h   Handler
}

func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

// Queue orders events by (time, sequence). It is a timing wheel in front of
// a heap: an event due within the wheel's horizon (wheelBuckets buckets of
// 2^bucketShift ps, about 4.2 us from the bucket being served) goes into
// the bucket of its time, a list kept sorted; a later one goes into the
// overflow heap and moves into the wheel when the wheel's window reaches
// it.
//
// Packet events in a network are a few bytes' serialization or one
// propagation delay (1 us) ahead, so nearly every event lands in the wheel:
// scheduling appends to a bucket's list (events mostly arrive in time order
// within a bucket) and firing takes the head of the current bucket, where a
// heap sifts through log4(pending) levels of unpredictable comparisons.
// Timers far in the future (retransmission checks, CC timers, flow
// arrivals) are few and sit in the heap. A bitmap of non-empty buckets lets
// an idle wheel skip 64 buckets at a time.
//
// The lists are threaded through one pool of nodes, recycled last-in
// first-out, so the wheel's memory is the pool (40 bytes per pending event)
// plus 16 KiB of list heads: it stays in cache, and it allocates nothing
// once the pool has grown to the peak number of pending events.
// TestQueueMatchesReference checks the order against a sorted list under
// random pushes and pops with many ties.
type Queue struct {
	nodes   []node // nodes[0] is the nil link
	free    int32  // first free node
	first   [wheelBuckets]int32
	last    [wheelBuckets]int32
	bitmap  [wheelBuckets / 64]uint64
	cur     int64 // absolute bucket number being served (at >> bucketShift)
	inWheel int
	far     heap
	seq     uint64
}

type node struct {
	e    event
	next int32
}

const (
	bucketShift  = 11 // 2048 ps per bucket
	wheelBuckets = 2048
	wheelMask    = wheelBuckets - 1
)

// Len is the number of pending events.
func (q *Queue) Len() int { return q.inWheel + q.far.len() }

// Push adds an event. Events at the same time pop in push order.
func (q *Queue) Push(at Time, h Handler, kind uint8) {
	q.seq++
	q.insert(event{at: at, key: q.seq<<8 | uint64(kind), h: h})
}

func (q *Queue) insert(e event) {
	b := int64(e.at >> bucketShift)
	if b >= q.cur+wheelBuckets {
		q.far.push(e)
		return
	}
	if b < q.cur {
		// The current bucket holds the time of the last event taken, and
		// Sim never schedules before that.
		panic("engine: event scheduled before the event being fired")
	}
	n := q.free
	if n != 0 {
		q.free = q.nodes[n].next
	} else {
		if len(q.nodes) == 0 {
			q.nodes = append(q.nodes, node{})
		}
		n = int32(len(q.nodes))
		q.nodes = append(q.nodes, node{})
	}
	nd := &q.nodes[n]
	nd.e = e
	i := int(b & wheelMask)
	switch t := q.last[i]; {
	case t == 0:
		nd.next = 0
		q.first[i], q.last[i] = n, n
		q.bitmap[i>>6] |= 1 << (i & 63)
	case !e.before(&q.nodes[t].e):
		nd.next = 0
		q.nodes[t].next = n
		q.last[i] = n
	default:
		// rare: an event earlier than the bucket's last
		f := q.first[i]
		if e.before(&q.nodes[f].e) {
			nd.next = f
			q.first[i] = n
			break
		}
		for {
			nx := q.nodes[f].next
			if e.before(&q.nodes[nx].e) {
				nd.next = nx
				q.nodes[f].next = n
				break
			}
			f = nx
		}
	}
	q.inWheel++
}

// Peek returns the time of the earliest event, or Never.
func (q *Queue) Peek() Time {
	t, _ := q.front()
	return t
}

// front finds the earliest event's time without moving the window; moved
// is true when it is not in the current bucket.
func (q *Queue) front() (t Time, moved bool) {
	if f := q.first[q.cur&wheelMask]; f != 0 {
		return q.nodes[f].e.at, false
	}
	t = Never
	if q.inWheel > 0 {
		t = q.nodes[q.first[q.nextBucket()]].e.at
	}
	if q.far.len() > 0 {
		t = min(t, q.far.peek())
	}
	return t, true
}

// next removes and returns the earliest event if it is due at or before
// until.
func (q *Queue) next(until Time) (event, bool) {
	t, moved := q.front()
	if t > until || t == Never && q.Len() == 0 {
		return event{}, false
	}
	if moved {
		q.cur = int64(t >> bucketShift)
		for q.far.len() > 0 && int64(q.far.peek()>>bucketShift) < q.cur+wheelBuckets {
			q.insert(q.far.pop())
		}
	}
	i := int(q.cur & wheelMask)
	n := q.first[i]
	nd := &q.nodes[n]
	e := nd.e
	q.first[i] = nd.next
	if nd.next == 0 {
		q.last[i] = 0
		q.bitmap[i>>6] &^= 1 << (i & 63)
	}
	nd.e = event{}
	nd.next = q.free
	q.free = n
	q.inWheel--
	return e, true
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *Queue) pop() event {
	e, _ := q.next(Never)
	return e
}

// replaceTop replaces the earliest event with a new one.
func (q *Queue) replaceTop(at Time, h Handler, kind uint8) {
	q.pop()
	q.Push(at, h, kind)
}

// nextBucket is the index of the first non-empty bucket after the current
// one, which is empty; the wheel must hold an event.
func (q *Queue) nextBucket() int {
	p := int(q.cur+1) & wheelMask
	for {
		if w := q.bitmap[p>>6] >> (p & 63); w != 0 {
			return p + bits.TrailingZeros64(w)
		}
		p = ((p | 63) + 1) & wheelMask
	}
}

// each visits every pending event, in no particular order.
func (q *Queue) each(f func(e *event)) {
	for i := range q.first {
		for n := q.first[i]; n != 0; n = q.nodes[n].next {
			f(&q.nodes[n].e)
		}
	}
	for i := range q.far.ev {
		f(&q.far.ev[i])
	}
}

// heap is a 4-ary min-heap of events by (time, sequence), the wheel's
// overflow for events beyond its horizon.
type heap struct{ ev []event }

func (h *heap) len() int { return len(h.ev) }

// peek is the earliest time; the heap must not be empty.
func (h *heap) peek() Time { return h.ev[0].at }

func (h *heap) push(e event) {
	h.ev = append(h.ev, e)
	i := len(h.ev) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h.ev[p]) {
			break
		}
		h.ev[i] = h.ev[p]
		i = p
	}
	h.ev[i] = e
}

func (h *heap) pop() event {
	top := h.ev[0]
	n := len(h.ev) - 1
	e := h.ev[n]
	h.ev[n] = event{}
	h.ev = h.ev[:n]
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		best := c
		for j := c + 1; j < min(c+4, n); j++ {
			if h.ev[j].before(&h.ev[best]) {
				best = j
			}
		}
		if !h.ev[best].before(&e) {
			break
		}
		h.ev[i] = h.ev[best]
		i = best
	}
	h.ev[i] = e
	return top
}
