package halo

import (
	"fmt"
	"math/rand/v2"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/invariants"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/transport/rocev2"
)

// Config is one halo exchange.
type Config struct {
	Grid Grid
	// Hosts[r] is rank r's host; ranks need distinct hosts, so that each
	// ordered pair of ranks is one ordered pair of hosts and, with one QP
	// per host pair (nic.qp_mapping: per-pair), one QP.
	Hosts []int
	// ParticleBytes is one particle's size, RingCapacity the ring's in
	// particles, Batch the particles per publication (docs/model.md §9.2:
	// 128 B, 4096 and 64 by default).
	ParticleBytes, RingCapacity, Batch int64
	// Particles is how many particles each ordered pair sends in all.
	Particles int64
	// Start is when every sender begins; PollInterval the receiver's
	// polling period.
	Start, PollInterval engine.Time
	// TwoSided sends each batch as one SEND (two-sided SEND/RECV, the
	// comparison) instead of READ head, WRITE, FETCH_ADD tail.
	TwoSided bool
	// Memory is the host memory's visibility of DMA writes.
	Memory Memory
	// Rand draws the relaxed-ordering delays.
	Rand *rand.Rand
}

// Memory is when a DMA write into host memory becomes visible to the
// host's CPU (docs/model.md §9.3): DMADelay after the NIC placed it, plus,
// with Relaxed (PCIe relaxed ordering), an independent delay drawn
// uniformly from [0, RelaxedMax) per write.
type Memory struct {
	DMADelay   engine.Time
	Relaxed    bool
	RelaxedMax engine.Time
}

// Batch is one publication: READ head, one or two WRITEs, FETCH_ADD tail
// (one SEND when two-sided). Times are absolute; -1 until known.
type Batch struct {
	Pair             int // index in Grid.Pairs
	SrcRank, DstRank int
	Src, Dst         int // hosts
	Index            int // the pair's batch number
	Particles, Bytes int64
	Writes           int // WRITEs (or SENDs) posted: 1, or 2 on a wrap
	Packets          int // data packets placed
	Reordered        int // packets placed after one at a higher offset of the batch
	HeadReads        int // READs of head until the ring had room
	ReadPosted       engine.Time
	Posted           engine.Time // the first WRITE (or SEND) posted
	DataPlaced       engine.Time // the last payload byte placed
	DataVisible      engine.Time // the last payload byte visible
	TailExecuted     engine.Time // the FETCH_ADD executed (two-sided: DataPlaced)
	TailVisible      engine.Time // the new tail visible to the receiver
	Completed        engine.Time // the FETCH_ADD (SEND) completed at the sender
	Violation        bool        // the tail was visible before all of the payload
	Stale            int64       // particles the receiver read before they were visible
}

// PublishLatency is from the first WRITE posted to the tail visible.
func (b *Batch) PublishLatency() engine.Time { return b.TailVisible - b.Posted }

// Counters are the exchange's totals.
type Counters struct {
	Batches, Violations int64
	Sent, Received      int64 // particles
	Stale               int64 // particles read before they were visible
	Reads, Writes       int64 // operations posted
	Atomics, Sends      int64
	Polls               int64
}

// Ops is the network operations posted.
func (k Counters) Ops() int64 { return k.Reads + k.Writes + k.Atomics + k.Sends }

// Exchange runs the halo exchange on a cluster.
type Exchange struct {
	cfg      Config
	c        *rnic.Cluster
	pairs    []*pair
	byDst    [][]*pair // incoming pairs per rank
	Batches  []*Batch
	Counters Counters
	err      error
	left     int // pairs not finished
}

// pair is one ordered pair's SPSC ring: the sender's state at Src, the
// ring, head and tail at Dst.
type pair struct {
	x        *Exchange
	i        int
	src, dst int // hosts
	p        Pair
	// sender
	tail      int64 // published (FETCH_ADD completed)
	remaining int64
	total     int64 // particles to send
	batch     *Batch
	// receiver
	head    int64
	slots   []slot
	tails   []tailWrite // published tails not yet seen by the receiver
	memTail int64       // the tail word's value (the ATOMIC's result)
	done    bool
}

type slot struct {
	seq    int64 // particle number written here; -1 none
	placed int64 // bytes of it placed
	vis    engine.Time
	batch  *Batch
}

type tailWrite struct {
	value int64
	vis   engine.Time
}

// op is a WQE's workload handle (Message.User).
type op struct {
	p     *pair
	b     *Batch
	first int64 // WRITE or SEND: the ring slot of its first particle
	seq   int64 // the particle number of that first slot
	end   int64 // placed bytes so far (SEND: the batch completes when all are)
	maxAt int64 // highest offset placed
}

// Word addresses at a receiver: pair i's tail and head.
func tailAddr(i int) uint64 { return uint64(i) * 16 }
func headAddr(i int) uint64 { return uint64(i)*16 + 8 }

// New prepares the exchange on c; Start it.
func New(c *rnic.Cluster, cfg Config) (*Exchange, error) {
	if err := cfg.Grid.Validate(); err != nil {
		return nil, err
	}
	if len(cfg.Hosts) != cfg.Grid.Ranks() {
		return nil, fmt.Errorf("%d hosts for %d ranks", len(cfg.Hosts), cfg.Grid.Ranks())
	}
	seen := map[int]bool{}
	for _, h := range cfg.Hosts {
		if h < 0 || h >= len(c.Hosts) || seen[h] {
			return nil, fmt.Errorf("host %d: ranks need distinct hosts of the %d", h, len(c.Hosts))
		}
		seen[h] = true
	}
	if cfg.ParticleBytes < 1 || cfg.RingCapacity < 1 || cfg.Batch < 1 || cfg.Batch > cfg.RingCapacity || cfg.Particles < 0 || cfg.PollInterval <= 0 {
		return nil, fmt.Errorf("particle_bytes, ring_capacity, batch (<= ring_capacity) and poll_interval must be positive")
	}
	if cfg.Memory.Relaxed && (cfg.Rand == nil || cfg.Memory.RelaxedMax <= 0) {
		return nil, fmt.Errorf("relaxed ordering needs a positive relaxed_max and a random stream")
	}
	x := &Exchange{cfg: cfg, c: c, byDst: make([][]*pair, cfg.Grid.Ranks())}
	for i, p := range cfg.Grid.Pairs() {
		pr := &pair{x: x, i: i, p: p, src: cfg.Hosts[p.Src], dst: cfg.Hosts[p.Dst], remaining: cfg.Particles, total: cfg.Particles,
			slots: make([]slot, cfg.RingCapacity)}
		for s := range pr.slots {
			pr.slots[s].seq = -1
		}
		x.pairs = append(x.pairs, pr)
		x.byDst[p.Dst] = append(x.byDst[p.Dst], pr)
	}
	return x, nil
}

// Start installs the cluster hooks (chaining any already set) and
// schedules the senders and pollers.
func (x *Exchange) Start() {
	c := x.c
	prevPlace, prevAtomic, prevRead := c.OnPlace, c.OnAtomic, c.OnRead
	c.OnPlace = func(now engine.Time, at *rnic.Host, p *fabric.Packet) {
		if !x.place(now, p) && prevPlace != nil {
			prevPlace(now, at, p)
		}
	}
	c.OnAtomic = func(now engine.Time, at *rnic.Host, m *rnic.Message) uint64 {
		if o, ok := m.User.(*op); ok {
			return x.atomic(now, at, o, m)
		}
		if prevAtomic != nil {
			return prevAtomic(now, at, m)
		}
		return at.Atomic(m)
	}
	c.OnRead = func(now engine.Time, at *rnic.Host, m *rnic.Message) {
		if o, ok := m.User.(*op); ok {
			m.Ext.Result = at.Word(headAddr(o.p.i)) // the head, read when the request arrives
		} else if prevRead != nil {
			prevRead(now, at, m)
		}
	}
	for _, p := range x.pairs {
		if p.remaining == 0 {
			p.done = true
			continue
		}
		x.left++
		c.Sim.At(x.cfg.Start, &senderStart{p}, 0)
	}
	for r, in := range x.byDst {
		if len(in) > 0 {
			c.Sim.At(x.cfg.Start+x.cfg.PollInterval, &poller{x, r}, 0)
		}
	}
}

type senderStart struct{ p *pair }

func (s *senderStart) Fire(now engine.Time, _ uint8) { s.p.next(now) }

type retry struct{ p *pair }

func (s *retry) Fire(now engine.Time, _ uint8) { s.p.readHead(now) }

type poller struct {
	x    *Exchange
	rank int
}

func (pl *poller) Fire(now engine.Time, _ uint8) {
	x := pl.x
	busy := false
	for _, p := range x.byDst[pl.rank] {
		p.poll(now)
		busy = busy || !p.done || p.head < p.tail
	}
	if busy {
		x.c.Sim.At(now+x.cfg.PollInterval, pl, 0)
	}
}

// Done reports whether every particle was sent and received.
func (x *Exchange) Done() bool {
	if x.left > 0 {
		return false
	}
	for _, p := range x.pairs {
		if p.head < p.tail {
			return false
		}
	}
	return true
}

// next starts the pair's next batch, or finishes the pair.
func (p *pair) next(now engine.Time) {
	x := p.x
	if p.remaining == 0 {
		p.done = true
		x.left--
		return
	}
	n := min(p.remaining, x.cfg.Batch)
	b := &Batch{Pair: p.i, SrcRank: p.p.Src, DstRank: p.p.Dst, Src: p.src, Dst: p.dst, Index: len(x.Batches),
		Particles: n, Bytes: n * x.cfg.ParticleBytes, ReadPosted: now,
		Posted: -1, DataPlaced: -1, DataVisible: -1, TailExecuted: -1, TailVisible: -1, Completed: -1}
	p.batch = b
	x.Batches = append(x.Batches, b)
	if x.cfg.TwoSided {
		b.ReadPosted = -1
		p.write(now)
		return
	}
	p.readHead(now)
}

// readHead posts the READ of the receiver's head.
func (p *pair) readHead(now engine.Time) {
	x := p.x
	p.batch.HeadReads++
	x.Counters.Reads++
	m := x.c.NewMessage(p.src, p.dst, 8)
	m.Verb, m.Generator, m.User = rocev2.Read, "halo", &op{p: p, b: p.batch}
	m.Ext = &rnic.Ext{OnDone: p.headRead}
	x.c.Post(m)
}

// headRead is the READ's completion: with room, the batch's WRITEs and
// FETCH_ADD go out; without, the head is read again a poll interval later.
func (p *pair) headRead(m *rnic.Message) {
	x := p.x
	head := int64(m.Ext.Result)
	if Free(p.tail, head, x.cfg.RingCapacity) < p.batch.Particles {
		x.c.Sim.At(m.Finished+x.cfg.PollInterval, &retry{p}, 0)
		return
	}
	p.write(m.Finished)
}

// write posts the batch: its WRITEs (one, two on a wrap) and the
// FETCH_ADD on the tail, or its SEND (one, into the receive ring).
func (p *pair) write(now engine.Time) {
	x, b := p.x, p.batch
	b.Posted = now
	pb := x.cfg.ParticleBytes
	spans := WriteSpans(p.tail, b.Particles, x.cfg.RingCapacity)
	seq := p.tail
	for _, sp := range spans {
		for s := sp.Start; s < sp.Start+sp.N; s++ {
			p.slots[s] = slot{seq: seq + s - sp.Start, batch: b}
		}
		if !x.cfg.TwoSided {
			m := x.c.NewMessage(p.src, p.dst, sp.N*pb)
			m.Verb, m.Generator, m.User = rocev2.Write, "halo", &op{p: p, b: b, first: sp.Start, seq: seq}
			x.Counters.Writes++
			b.Writes++
			x.c.Post(m)
		}
		seq += sp.N
	}
	if x.cfg.TwoSided {
		m := x.c.NewMessage(p.src, p.dst, b.Bytes)
		m.Generator, m.User = "halo", &op{p: p, b: b, first: spans[0].Start, seq: p.tail}
		m.Ext = &rnic.Ext{OnDone: p.published}
		x.Counters.Sends++
		b.Writes++
		x.c.Post(m)
		return
	}
	m := x.c.NewMessage(p.src, p.dst, 8)
	m.Verb, m.Generator, m.User = rocev2.FetchAdd, "halo", &op{p: p, b: b}
	m.Ext = &rnic.Ext{Addr: tailAddr(p.i), Operand: uint64(b.Particles), OnDone: p.published}
	x.Counters.Atomics++
	x.c.Post(m)
}

// published is the FETCH_ADD's (SEND's) completion at the sender.
func (p *pair) published(m *rnic.Message) {
	x, b := p.x, p.batch
	b.Completed = m.Finished
	b.Violation = b.TailVisible < b.DataVisible
	x.Counters.Batches++
	x.Counters.Sent += b.Particles
	if b.Violation {
		x.Counters.Violations++
	}
	if x.cfg.TwoSided && b.Writes != 1 || !x.cfg.TwoSided && (b.HeadReads < 1 || b.Writes < 1 || b.Writes > 2 || b.TailExecuted < 0) {
		x.fail(fmt.Errorf("halo: pair %d batch %d: %d READs, %d WRITEs or SENDs, FETCH_ADD executed %v; want >= 1, 1 or 2, true",
			p.i, b.Index, b.HeadReads, b.Writes, b.TailExecuted >= 0))
	}
	p.tail += b.Particles
	p.remaining -= b.Particles
	p.next(m.Finished)
}

// visible is when a DMA write placed at now becomes visible.
func (x *Exchange) visible(now engine.Time) engine.Time {
	v := now + x.cfg.Memory.DMADelay
	if x.cfg.Memory.Relaxed {
		v += engine.Time(x.cfg.Rand.Int64N(int64(x.cfg.Memory.RelaxedMax)))
	}
	return v
}

// place is the responder's placement of a WRITE (SEND) packet into the
// ring; false if the packet is not the exchange's.
func (x *Exchange) place(now engine.Time, pk *fabric.Packet) bool {
	m, off := x.c.WQE(pk)
	if m == nil {
		return false
	}
	o, ok := m.User.(*op)
	if !ok {
		return false
	}
	p, b := o.p, o.b
	v := x.visible(now)
	b.Packets++
	if off < o.maxAt {
		b.Reordered++
	}
	o.maxAt = max(o.maxAt, off)
	b.DataPlaced = max(b.DataPlaced, now)
	b.DataVisible = max(b.DataVisible, v)
	pb := x.cfg.ParticleBytes
	for at, end := off, off+int64(pk.Payload); at < end; {
		k := at / pb // particle within the WQE
		n := min(end, (k+1)*pb) - at
		s := &p.slots[(o.first+k)%x.cfg.RingCapacity]
		// A slot read before its bytes arrived (a stale read) was
		// consumed already: its late bytes still land in it.
		if s.seq != o.seq+k && s.seq != -1-(o.seq+k) {
			x.fail(fmt.Errorf("halo: pair %d: slot %d holds particle %d, placing %d", p.i, (o.first+k)%x.cfg.RingCapacity, s.seq, o.seq+k))
		}
		s.placed += n
		s.vis = max(s.vis, v)
		at += n
	}
	o.end += int64(pk.Payload)
	if x.cfg.TwoSided && o.end == m.Size {
		// The receive completion is written after the data (CQEs are
		// not relaxed): the batch is visible with its last byte.
		b.TailExecuted, b.TailVisible = b.DataPlaced, b.DataVisible
		p.publish(b.DataVisible, o.seq+b.Particles)
	}
	return true
}

// atomic executes the FETCH_ADD on the tail word.
func (x *Exchange) atomic(now engine.Time, at *rnic.Host, o *op, m *rnic.Message) uint64 {
	old := at.Atomic(m)
	p, b := o.p, o.b
	b.TailExecuted = now
	b.TailVisible = x.visible(now)
	p.memTail = int64(old) + b.Particles
	p.publish(b.TailVisible, p.memTail)
	return old
}

// publish records a new tail value, visible at vis.
func (p *pair) publish(vis engine.Time, value int64) {
	if d := value - p.head; d < 0 || d > p.x.cfg.RingCapacity {
		p.x.fail(fmt.Errorf("halo: pair %d: tail %d, head %d: tail - head outside [0, %d]", p.i, value, p.head, p.x.cfg.RingCapacity))
	}
	p.tails = append(p.tails, tailWrite{value, vis})
}

// poll is the receiver's look at the pair's tail: it consumes every
// particle below the highest visible tail, with ordinary loads and no
// fence, and counts those whose bytes were not all visible yet.
func (p *pair) poll(now engine.Time) {
	x := p.x
	x.Counters.Polls++
	seen := p.head
	keep := p.tails[:0]
	for _, t := range p.tails {
		if t.vis <= now {
			seen = max(seen, t.value)
		} else {
			keep = append(keep, t)
		}
	}
	p.tails = keep
	pb := x.cfg.ParticleBytes
	for s := p.head; s < seen; s++ {
		sl := &p.slots[s%x.cfg.RingCapacity]
		if sl.seq != s {
			x.fail(fmt.Errorf("halo: pair %d: reading particle %d, slot holds %d (read twice or overwritten)", p.i, s, sl.seq))
		}
		if sl.placed != pb || sl.vis > now {
			x.Counters.Stale++
			sl.batch.Stale++
		}
		sl.seq = -1 - s // consumed: a second read of s fails
		x.Counters.Received++
	}
	p.head = seen
	x.c.Hosts[p.dst].SetWord(headAddr(p.i), uint64(p.head))
}

// fail records a broken invariant; under -tags invariants it panics.
func (x *Exchange) fail(err error) {
	if invariants.Enabled {
		panic(err.Error())
	}
	if x.err == nil {
		x.err = err
	}
}

// Check reports the first broken invariant, and, once the exchange is
// Done, whether every particle sent was received and every batch used 1
// READ (or more, while the ring was full), 1 or 2 WRITEs and 1 FETCH_ADD.
func (x *Exchange) Check() error {
	if x.err != nil {
		return x.err
	}
	if !x.Done() {
		return nil
	}
	k := x.Counters
	total := int64(0)
	for _, p := range x.pairs {
		total += p.total
	}
	if k.Sent != k.Received || k.Sent != total {
		return fmt.Errorf("halo: %d particles sent, %d received, want %d each", k.Sent, k.Received, total)
	}
	if k.Atomics != k.Batches && !x.cfg.TwoSided {
		return fmt.Errorf("halo: %d FETCH_ADDs for %d batches", k.Atomics, k.Batches)
	}
	return nil
}
