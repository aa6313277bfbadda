package isolation

import (
	"fmt"
	"unsafe"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/counters"
)

// ARNBytes is an ARN frame's size on the wire: a minimum Ethernet frame
// carrying {destination, output port, VC, ARNid, congestionRootInfo}.
const ARNBytes = 64

// Config sets congestion detection, ARNs and the Adapted Flow Channel.
type Config struct {
	Thresholds
	// VCBuffer is the input buffer one class has at a downstream port,
	// the total of its credits: a downstream switch's free credits are
	// VCBuffer minus what it holds from this port in the class (none
	// while the class is paused); a host always has VCBuffer free.
	VCBuffer int64
	// ARN makes roots send ARNs; false leaves detection (and its
	// counters and trace point) without notifications.
	ARN bool
	// AFC is the Adapted Flow Channel's class; 0 means adapted packets
	// keep their class.
	AFC uint8
	// EntryLifetime is how long a consumed ARN entry adapts packets (the
	// paper does not say; docs/model.md §10.1 arn_entry_lifetime). A root
	// that stays a root sends a fresh ARN every EntryLifetime/2, which
	// renews the entry for its destination and class where it is
	// consumed, so the entry never lapses while the root lasts.
	EntryLifetime engine.Time
	// ClearOnNormal makes a root that returns to normal send a clearing
	// ARN with its last ARNid, which removes that entry wherever it was
	// consumed.
	ClearOnNormal bool
	// AdaptGap is the silence after which a flow's packets may move
	// into or out of the AFC at a switch: a flow is adapted, or returns
	// to its class and the base router, only between flowlets, so that
	// the move does not reorder it (each packet of a QP that overtakes
	// another costs a go-back-N NACK). 0 moves every packet as soon as an
	// entry matches it or stops matching, as the paper's description has
	// it. Flows are tracked in FlowSlots slots per switch (a power of
	// two; 0 means 4096), by flow hash.
	AdaptGap  engine.Time
	FlowSlots int
	// AFI is the authors' earlier proposal alone (doc.go, "AFI"): a
	// data packet that the base router's decision at this switch sends
	// away from the next hop it takes with idle ports (the ECMP hash's),
	// while that next hop's detector for the packet's class is a Root
	// or a Branch, gets the adapted bit there, with no ARN. Set ARN
	// false for AFI alone.
	AFI bool
	// DelayedView makes a detector see the downstream switch's buffer as
	// it was one link delay earlier (fabric.Network.DelayIngressView):
	// what the downstream can have told the upstream over the link by
	// then, as an InfiniBand link's returned credits do, and the same
	// model on the sequential engine and on a World. False reads it at
	// the instant (docs/model.md §10.1's mapping), which a switch in
	// another unit of a World cannot: Install refuses it there.
	DelayedView bool
	// OnChange, when set, is the trace point of every detector state
	// change.
	OnChange func(now engine.Time, sw *fabric.Switch, port int, class uint8, from, to State)
}

// Validate reports a configuration the mechanism cannot run.
func (c *Config) Validate() error {
	switch {
	case c.VCBuffer <= 0:
		return fmt.Errorf("isolation: VC buffer must be positive, got %d", c.VCBuffer)
	case c.LCDTh > c.HCDTh:
		return fmt.Errorf("isolation: LCDTh %d above HCDTh %d", c.LCDTh, c.HCDTh)
	case c.CRT < 0 || c.EntryLifetime <= 0:
		return fmt.Errorf("isolation: CRT must be >= 0 and the entry lifetime positive")
	case c.AFC >= fabric.NumClasses:
		return fmt.Errorf("isolation: AFC class %d out of range", c.AFC)
	case c.AdaptGap < 0 || c.FlowSlots < 0 || c.FlowSlots&(c.FlowSlots-1) != 0:
		return fmt.Errorf("isolation: adapt gap must be >= 0 and flow slots a power of two")
	}
	return nil
}

// Counters count detector transitions and every ARN frame. Every frame
// sent is received or in flight (Sent = Received + in transit), and every
// message handled, generated at a root or received, is consumed,
// forwarded, a duplicate or dropped (Generated + Received = Consumed +
// Forwarded + Duplicates + Dropped); Check verifies both.
type Counters struct {
	Roots, Branches, Normals int64 // transitions into each state

	Generated  int64 // ARN messages created at roots (Clears among them)
	Clears     int64 // clearing ARNs (root back to normal)
	Refreshes  int64 // ARNs re-sent by a root that stayed a root for EntryLifetime/2
	Sent       int64 // ARN frames put on a port
	Received   int64 // ARN frames that arrived at a switch
	Consumed   int64 // messages taken by a switch with an alternative up port
	Forwarded  int64 // messages passed upstream (each as one frame per port)
	Duplicates int64 // messages seen before at this switch (same ARNid), dropped
	Dropped    int64 // messages with nowhere to go upstream and no alternative
	Expired    int64 // entries removed by their lifetime
	Removed    int64 // entries removed by a clearing ARN
	Adapted    int64 // packets given the adapted bit (moved to the AFC)
	Diverted   int64 // AFI decisions (per flowlet with AdaptGap) that adapted a diverted packet
}

// Isolation is congestion detection, ARN and the AFC on one network. It
// is the switches' fabric.QueueMonitor, and its Router wraps the base
// router.
//
// Its state is per switch (detectors, ARN table, ARNids, counters), and a
// switch's handlers touch only their own switch's, so it runs on a World:
// each switch on its unit's thread (Sim, Pool), the downstream's free
// buffer read through a delayed view (Config.DelayedView).
type Isolation struct {
	cfg  Config
	net  *fabric.Network
	det  [][]detector // per switch index, per port*NumClasses+class
	tabs []table      // per switch index
}

// detector is one (switch, port, class) detector with its timers.
type detector struct {
	Detector
	iso     *Isolation
	sw      *fabric.Switch
	port    int32
	class   uint8
	wake    engine.Time // pending root-timer wake, 0 = none
	refresh engine.Time // pending refresh of a root's ARN, 0 = none
	lastID  int64       // ARNid of this root's last ARN, -1 = none
	lastDst int32       // its destination
}

// Timer kinds.
const (
	evRootTimer uint8 = iota
	evRefresh
)

// message is an ARN's content.
type message struct {
	dst      int32
	class    uint8
	id       int64
	rootTier fabric.Tier
	clear    bool
}

// table is a switch's ARN table (its consumed entries and the ARNids it
// has handled) and the rest of the switch's own state: the ARNids it
// gives out and its counters.
type table struct {
	entries []entry
	seen    map[int64]uint8 // ARNid -> bit 0 set seen, bit 1 clear seen
	flows   []flowSlot      // adaptation per flow when Config.AdaptGap > 0
	next    int64           // the next ARNid this switch's roots give out (its index in the high bits)
	k       Counters
}

// idBits is where a switch's index starts in the ARNids it gives out, so
// that roots at different switches never give out the same one.
const idBits = 40

// flowSlot is one flow's adaptation at a switch: whether its current
// flowlet is adapted, and when its last packet passed.
// FlowSlotBytes is the size of one slot of a switch's flow table
// (Config.FlowSlots).
const FlowSlotBytes = int64(unsafe.Sizeof(flowSlot{}))

type flowSlot struct {
	tag     uint32 // the flow's hash
	last    engine.Time
	adapted bool
}

type entry struct {
	message
	expires engine.Time
}

// Install builds the detectors and tables of net's switches and makes
// itself their monitor. Call it before the run starts.
func Install(net *fabric.Network, cfg Config) (*Isolation, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// On a World a detector cannot read a downstream switch in another
	// unit at the instant; the delayed view works on both engines.
	if cfg.DelayedView {
		net.DelayIngressView()
	} else if net.World() != nil {
		return nil, fmt.Errorf("isolation: on a parallel (World) network a detector cannot read a downstream switch in another unit at the instant: use the delayed view (DelayedView)")
	}
	iso := &Isolation{cfg: cfg, net: net, det: make([][]detector, len(net.Switches)), tabs: make([]table, len(net.Switches))}
	for i, sw := range net.Switches {
		d := make([]detector, len(sw.Ports)*fabric.NumClasses)
		for j := range d {
			d[j] = detector{Detector: NewDetector(), iso: iso, sw: sw, port: int32(j / fabric.NumClasses),
				class: uint8(j % fabric.NumClasses), lastID: -1}
		}
		iso.det[i] = d
		iso.tabs[i].seen = map[int64]uint8{}
		iso.tabs[i].next = int64(i) << idBits
		if cfg.AdaptGap > 0 {
			n := cfg.FlowSlots
			if n == 0 {
				n = 4096
			}
			iso.tabs[i].flows = make([]flowSlot, n)
		}
		sw.SetMonitor(iso)
	}
	return iso, nil
}

// Config is the configuration iso was installed with.
func (iso *Isolation) Config() Config { return iso.cfg }

// Counts are the counters summed over the switches. On a World, read
// them only while the run is stopped.
func (iso *Isolation) Counts() Counters {
	var k Counters
	for i := range iso.tabs {
		counters.Add(&k, &iso.tabs[i].k)
	}
	return k
}

// State is the detector state of sw's port and class.
func (iso *Isolation) State(sw *fabric.Switch, port int, class uint8) State {
	return iso.det[sw.Index()][port*fabric.NumClasses+int(class)].State()
}

// Entries is the number of entries in sw's ARN table that have not
// expired. (Routing removes expired entries when it next looks one up,
// and counts them in Expired then.)
func (iso *Isolation) Entries(sw *fabric.Switch) int {
	now, n := sw.Network().Sim.Now(), 0
	for _, e := range iso.tabs[sw.Index()].entries {
		if now < e.expires {
			n++
		}
	}
	return n
}

// Changed implements fabric.QueueMonitor. The AFC has no detector of its
// own (adapted flows cannot root new trees); a change in it is a change
// for the port's roots, whose occupancy includes it.
func (iso *Isolation) Changed(now engine.Time, sw *fabric.Switch, out *fabric.Port, class uint8) {
	ds := iso.det[sw.Index()][out.Index*fabric.NumClasses : (out.Index+1)*fabric.NumClasses]
	if afc := iso.cfg.AFC; afc != 0 && class == afc {
		for c := range ds {
			if uint8(c) != afc && ds[c].State() == Root {
				iso.observe(now, &ds[c])
			}
		}
		return
	}
	iso.observe(now, &ds[class])
}

// occupancy is what d's detector compares with the thresholds: its
// class's queue, and for a root also the AFC's at the same port. The
// flows a root's ARN adapted move to the AFC but their congestion stays
// at the root's port; without the AFC's bytes the root's own class would
// drain, the root return to normal, its clearing ARN move the flows back
// and the root form again, every few microseconds, for as long as the
// hot spot lasts.
func (iso *Isolation) occupancy(d *detector, out *fabric.Port) int64 {
	occ := out.QueueBytes(int(d.class))
	if afc := iso.cfg.AFC; afc != 0 && d.State() == Root {
		occ += out.QueueBytes(int(afc))
	}
	return occ
}

// Fire implements engine.Handler: a root timer or a root's refresh.
func (d *detector) Fire(now engine.Time, kind uint8) {
	iso := d.iso
	switch kind {
	case evRootTimer:
		if d.wake == now {
			d.wake = 0
		}
		iso.observe(now, d)
	case evRefresh:
		if d.refresh != now {
			return
		}
		d.refresh = 0
		if d.State() == Root && iso.cfg.ARN {
			iso.tabs[d.sw.Index()].k.Refreshes++
			iso.generate(now, d, false)
			d.refresh = now + iso.cfg.EntryLifetime/2
			d.sw.Network().Sim.At(d.refresh, d, evRefresh)
		}
	}
}

// free is the downstream's free credits for out's class c at now: at the
// instant, or with Config.DelayedView as of one link delay earlier.
func (iso *Isolation) free(now engine.Time, out *fabric.Port, c uint8) int64 {
	if out.Paused(c) {
		return 0
	}
	if _, ok := out.Peer.Owner.(*fabric.Switch); !ok {
		return iso.cfg.VCBuffer
	}
	if iso.cfg.DelayedView {
		return max(0, iso.cfg.VCBuffer-out.PeerIngressBytesDelayed(c, now))
	}
	return max(0, iso.cfg.VCBuffer-out.PeerIngressBytes(c))
}

func (iso *Isolation) observe(now engine.Time, d *detector) {
	out := d.sw.Ports[d.port]
	from, to, wake := d.Observe(now, iso.occupancy(d, out), iso.free(now, out, d.class), &iso.cfg.Thresholds)
	if wake > 0 && wake != d.wake {
		d.wake = wake
		d.sw.Network().Sim.At(wake, d, evRootTimer)
	}
	if from == to {
		return
	}
	k := &iso.tabs[d.sw.Index()].k
	switch to {
	case Root:
		k.Roots++
	case Branch:
		k.Branches++
	case Normal:
		k.Normals++
	}
	if f := iso.cfg.OnChange; f != nil {
		f(now, d.sw, int(d.port), d.class, from, to)
	}
	if !iso.cfg.ARN {
		return
	}
	switch {
	case to == Root:
		iso.generate(now, d, false)
		d.refresh = now + iso.cfg.EntryLifetime/2
		d.sw.Network().Sim.At(d.refresh, d, evRefresh)
	case from == Root && to == Normal:
		d.refresh = 0
		if iso.cfg.ClearOnNormal && d.lastID >= 0 {
			iso.generate(now, d, true)
		}
	}
}

// generate creates an ARN at root d (or the clearing of its last one)
// and handles it at the root's own switch as if it had arrived from the
// congested port: consumed there if the switch has an alternative up
// port, otherwise sent upstream.
func (iso *Isolation) generate(now engine.Time, d *detector, clear bool) {
	m := message{class: d.class, rootTier: d.sw.Tier, clear: clear}
	t := &iso.tabs[d.sw.Index()]
	if clear {
		m.id = d.lastID
		m.dst = d.lastDst
		t.k.Clears++
	} else {
		// The destination is the one with the most bytes in the root's
		// queue (the lowest on a tie); a refreshing root whose class has
		// drained into the AFC keeps its last one.
		m.dst = d.lastDst
		if dst, ok := heaviest(d.sw.Ports[d.port], int(d.class)); ok {
			m.dst = dst
		} else if d.lastID < 0 {
			panic("isolation: a new root with an empty queue")
		}
		m.id = t.next
		t.next++
		d.lastID, d.lastDst = m.id, m.dst
	}
	t.k.Generated++
	iso.handle(now, d.sw, m)
}

// heaviest is the destination holding the most bytes in pt's class c
// queue, the lowest one on a tie; false if the queue is empty. It runs
// once per ARN, so a map is cheap enough.
func heaviest(pt *fabric.Port, c int) (int32, bool) {
	bytes := map[int32]int64{}
	pt.EachQueued(c, func(p *fabric.Packet) { bytes[p.Dst] += int64(p.Size) })
	best, most := int32(-1), int64(-1)
	for dst, b := range bytes {
		if b > most || b == most && dst < best {
			best, most = dst, b
		}
	}
	return best, most >= 0
}
