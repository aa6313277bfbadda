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
// a heap: an event due within the wheel's window (wheelBuckets buckets of
// 2^bucketShift ps, 1.05 us from the bucket being served) goes into the
// list of its time's bucket; a later one goes into the overflow heap and
// moves into the wheel when the window reaches it.
//
// A bucket's list is kept sorted, and in a network it sorts itself: a
// bucket spans 32 ps and a 128-host network at 50% load has about 9
// events per ns, so a bucket nearly always holds the events of one time
// (times repeat: at 100 Gbps a byte is 80 ps and delays are whole ns),
// which arrive in sequence order: scheduling is an append and firing
// takes the list's head. An
// event that does land before its bucket's last one finds its place by a
// walk of at most maxWalk nodes; one that would need more is appended
// anyway and its bucket marked unsorted, and when the wheel reaches an
// unsorted bucket (or such an event lands in the bucket being served)
// that bucket's events move into a small heap. So the common case costs
// O(1) per event and any pattern of times costs at worst a heap's
// log(events in one bucket) (BenchmarkQueue's uniform times).
//
// Timers far in the future (retransmission checks, CC timers, flow
// arrivals, and the first delivery onto an idle 1 us link: 0.8-1.5% of
// the events in the benchmarks) sit in the overflow heap. A bitmap of
// non-empty buckets, and a summary word per 64 of its words, let the wheel
// find its next non-empty bucket in a few word reads however many empty
// buckets lie between (most are empty: there are 31 buckets per ns). The
// lists are rings threaded through one pool of nodes, recycled last-in
// first-out: a bucket holds only its last node, whose link is the first,
// so a bucket costs 4 bytes and a 64-byte line of them covers 512 ps. The
// wheel's memory is the pool (40 bytes per pending event) plus 136 KiB of
// list tails and flags, of which the lines of the next few hundred ns are
// in use; it allocates nothing once the pool has grown to the peak number
// of pending events. The bucket width is a measured choice (engine
// doc.go): 512 ps buckets (until 2026-12-02) held several times each, and
// in the flow-list benchmark 47% of the events landed before their
// bucket's last event and walked its list.
// TestQueueMatchesReference checks the order against a sorted list under
// random pushes and pops at three time scales, with many ties.
type Queue struct {
	nodes    []node                  // nodes[0] is the nil link
	free     int32                   // first free node
	tail     [wheelBuckets]int32     // bucket i's last node, whose next is its first (a ring); 0 if empty
	bitmap   [wheelWords]uint64      // bucket i's list is not empty
	words    [wheelWords / 64]uint64 // bitmap word j is not zero
	unsorted [wheelWords]uint64      // bucket i's list is out of order
	cur      int64                   // absolute bucket number being served (at >> bucketShift)
	inWheel  int                     // events in the lists
	// now holds the current bucket's events when it is served as a heap;
	// then the current bucket's list is empty.
	now heap
	far heap
	seq uint64
}

type node struct {
	e    event
	next int32
}

const (
	bucketShift  = 5 // 32 ps per bucket
	wheelBuckets = 32768
	wheelMask    = wheelBuckets - 1
	wheelWords   = wheelBuckets / 64
)

// Len is the number of pending events.
func (q *Queue) Len() int { return q.inWheel + q.now.len() + q.far.len() }

// Push adds an event. Events at the same time pop in push order.
func (q *Queue) Push(at Time, h Handler, kind uint8) {
	q.seq++
	q.insert(event{at: at, key: q.seq<<8 | uint64(kind), h: h})
}

func (q *Queue) insert(e event) {
	b := int64(e.at >> bucketShift)
	if b > q.cur {
		if b >= q.cur+wheelBuckets {
			q.far.push(e)
			return
		}
		// A future bucket: usually an append at the end of its list.
		i := int(b & wheelMask)
		if t := q.tail[i]; t != 0 && e.before(&q.nodes[t].e) {
			if q.unsorted[i>>6]&(1<<(i&63)) == 0 && q.insertSorted(i, e) {
				return
			}
			q.unsorted[i>>6] |= 1 << (i & 63)
		}
		q.appendTo(i, e)
		return
	}
	// The bucket being served. An event before it (scheduled after a Peek
	// moved the window past the clock) is earlier than every list, so it
	// belongs with the current bucket's events too.
	c := int(q.cur & wheelMask)
	if q.now.len() == 0 {
		if t := q.tail[c]; t == 0 || !e.before(&q.nodes[t].e) {
			q.appendTo(c, e)
			return
		}
		if q.insertSorted(c, e) {
			return
		}
	}
	q.heapify(c)
	q.now.push(e)
}

// grow adds a node to the pool and returns it.
func (q *Queue) grow() int32 {
	if len(q.nodes) == 0 {
		q.nodes = append(q.nodes, node{})
	}
	q.nodes = append(q.nodes, node{})
	return int32(len(q.nodes) - 1)
}

// maxWalk bounds the search for an out-of-order event's place in a list;
// beyond it the bucket is left unsorted, to be served as a heap.
const maxWalk = 24

// insertSorted puts e, which is before the last event of bucket i's sorted
// list, in its place if that is at most maxWalk nodes from the head,
// reporting whether it did.
func (q *Queue) insertSorted(i int, e event) bool {
	prev := q.tail[i]
	n := q.nodes[prev].next
	for k := 0; k < maxWalk; k++ {
		if e.before(&q.nodes[n].e) {
			m := q.newNode(e)
			q.nodes[m].next = n
			q.nodes[prev].next = m
			q.inWheel++
			return true
		}
		prev, n = n, q.nodes[n].next
	}
	return false
}

func (q *Queue) newNode(e event) int32 {
	n := q.free
	if n != 0 {
		q.free = q.nodes[n].next
	} else {
		n = q.grow()
	}
	q.nodes[n] = node{e: e}
	return n
}

// appendTo adds e at the end of bucket i's list.
func (q *Queue) appendTo(i int, e event) {
	n := q.newNode(e)
	if t := q.tail[i]; t == 0 {
		q.nodes[n].next = n
		q.mark(i)
	} else {
		q.nodes[n].next = q.nodes[t].next
		q.nodes[t].next = n
	}
	q.tail[i] = n
	q.inWheel++
}

// heapify moves bucket i's list into the current heap.
func (q *Queue) heapify(i int) {
	t := q.tail[i]
	for n := q.nodes[t].next; t != 0; {
		nd := &q.nodes[n]
		q.now.push(nd.e)
		nx := nd.next
		nd.e, nd.next = event{}, q.free
		q.free = n
		q.inWheel--
		if n == t {
			break
		}
		n = nx
	}
	q.tail[i] = 0
	q.unmark(i)
	q.unsorted[i>>6] &^= 1 << (i & 63)
}

// Peek returns the time of the earliest event, or Never.
func (q *Queue) Peek() Time {
	if !q.settle() {
		return Never
	}
	if q.now.len() > 0 {
		return q.now.peek()
	}
	return q.nodes[q.nodes[q.tail[q.cur&wheelMask]].next].e.at
}

// next removes and returns the earliest event if it is due at or before
// until.
func (q *Queue) next(until Time) (event, bool) {
	i := int(q.cur & wheelMask)
	t := q.tail[i]
	if t == 0 || q.now.len() > 0 {
		if !q.settle() {
			return event{}, false
		}
		if q.now.len() > 0 {
			if q.now.peek() > until {
				return event{}, false
			}
			return q.now.pop(), true
		}
		i = int(q.cur & wheelMask)
		t = q.tail[i]
	}
	n := q.nodes[t].next
	nd := &q.nodes[n]
	if nd.e.at > until {
		return event{}, false
	}
	e := nd.e
	if n == t {
		q.tail[i] = 0
		q.unmark(i)
	} else {
		q.nodes[t].next = nd.next
	}
	nd.e, nd.next = event{}, q.free
	q.free = n
	q.inWheel--
	return e, true
}

// settle makes the current bucket (its list or the heap) hold the earliest
// event, moving the window to the next non-empty bucket, or to the
// overflow heap's first event, when the current bucket is exhausted; false
// if the queue is empty.
func (q *Queue) settle() bool {
	if q.now.len() > 0 || q.tail[q.cur&wheelMask] != 0 {
		return true
	}
	if q.inWheel == 0 && q.far.len() == 0 {
		return false
	}
	var nb int64
	if q.inWheel > 0 {
		c := q.cur & wheelMask
		nb = q.cur + (int64(q.nextBucket())-c)&wheelMask
	}
	if q.far.len() > 0 {
		if fb := int64(q.far.peek() >> bucketShift); q.inWheel == 0 || fb < nb {
			nb = fb
		}
	}
	q.cur = nb
	for q.far.len() > 0 && int64(q.far.peek()>>bucketShift) < q.cur+wheelBuckets {
		q.insert(q.far.pop())
	}
	if i := int(nb & wheelMask); q.unsorted[i>>6]&(1<<(i&63)) != 0 {
		q.heapify(i)
	}
	return true
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *Queue) pop() event {
	e, _ := q.next(Never)
	return e
}

// mark records that bucket i's list is no longer empty.
func (q *Queue) mark(i int) {
	w := i >> 6
	if q.bitmap[w] == 0 {
		q.words[w>>6] |= 1 << (w & 63)
	}
	q.bitmap[w] |= 1 << (i & 63)
}

// unmark records that bucket i's list is empty.
func (q *Queue) unmark(i int) {
	w := i >> 6
	if q.bitmap[w] &^= 1 << (i & 63); q.bitmap[w] == 0 {
		q.words[w>>6] &^= 1 << (w & 63)
	}
}

// nextBucket is the index of the first non-empty bucket after the current
// one, whose list is empty; the wheel must hold an event. It looks at the
// rest of the current bucket's bitmap word, then finds the next non-zero
// word from the summary (words), so an idle stretch costs a few word
// reads however many buckets it spans. The current word comes last in that
// search: its bits below the current bucket are the window's far end.
func (q *Queue) nextBucket() int {
	p := int(q.cur+1) & wheelMask
	w := p >> 6
	if b := q.bitmap[w] >> (p & 63); b != 0 {
		return p + bits.TrailingZeros64(b)
	}
	j := (w + 1) & (wheelWords - 1)
	for {
		if b := q.words[j>>6] >> (j & 63); b != 0 {
			j += bits.TrailingZeros64(b)
			return j<<6 + bits.TrailingZeros64(q.bitmap[j])
		}
		j = ((j | 63) + 1) & (wheelWords - 1)
	}
}

// each visits every pending event, in no particular order.
func (q *Queue) each(f func(e *event)) {
	for _, t := range q.tail {
		if t == 0 {
			continue
		}
		for n := q.nodes[t].next; ; n = q.nodes[n].next {
			f(&q.nodes[n].e)
			if n == t {
				break
			}
		}
	}
	for i := range q.now.ev {
		f(&q.now.ev[i])
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
