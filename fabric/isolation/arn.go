package isolation

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/internal/invariants"
)

// Receive implements fabric.QueueMonitor: an ARN frame arrived at sw.
func (iso *Isolation) Receive(now engine.Time, sw *fabric.Switch, p *fabric.Packet, _ *fabric.Port) {
	m := message{dst: p.Dst, id: p.Seq, class: uint8(p.Arg), rootTier: fabric.Tier(p.Arg >> 8), clear: p.Arg>>16&1 != 0}
	sw.Network().Pool.Put(p)
	k := &iso.tabs[sw.Index()].k
	k.Received++
	iso.handle(now, sw, m)
	// Check reads every switch: on a World only at the end of the run.
	if invariants.Enabled && iso.net.World() == nil && k.Received%64 == 0 {
		if err := iso.Check(); err != nil {
			panic(fmt.Sprintf("at %v: %v", now, err))
		}
	}
}

// handle applies message m at sw: a duplicate is dropped; a switch with
// more than one next hop towards m's destination (an alternative up
// port) consumes it, adding the entry or, for a clearing ARN, removing
// it; any other switch forwards it upstream, on every port towards a
// switch that is not one of its next hops to the destination: the ports
// from which traffic for the destination can arrive.
func (iso *Isolation) handle(now engine.Time, sw *fabric.Switch, m message) {
	t := &iso.tabs[sw.Index()]
	bit := uint8(1)
	if m.clear {
		bit = 2
	}
	if t.seen[m.id]&bit != 0 {
		t.k.Duplicates++
		return
	}
	t.seen[m.id] |= bit
	hops := sw.Routes(m.dst)
	if len(hops) > 1 {
		t.k.Consumed++
		if m.clear {
			if t.remove(m.id) {
				t.k.Removed++
			}
		} else if e := t.find(m.dst, m.class); e != nil {
			e.message, e.expires = m, now+iso.cfg.EntryLifetime // a root's refresh renews its entry
		} else {
			t.entries = append(t.entries, entry{message: m, expires: now + iso.cfg.EntryLifetime})
		}
		return
	}
	sent := false
	for i, pt := range sw.Ports {
		if _, ok := pt.Peer.Owner.(*fabric.Switch); !ok || isHop(hops, i) {
			continue
		}
		iso.send(now, sw, i, m)
		sent = true
	}
	if sent {
		t.k.Forwarded++
	} else {
		t.k.Dropped++
	}
}

func isHop(hops []int32, i int) bool {
	for _, h := range hops {
		if int(h) == i {
			return true
		}
	}
	return false
}

func (iso *Isolation) send(now engine.Time, sw *fabric.Switch, port int, m message) {
	p := sw.Network().Pool.Get()
	p.Kind, p.Class, p.Size = fabric.ARN, 0, ARNBytes
	p.Src, p.Dst, p.Seq = -1, m.dst, m.id
	p.Arg = int64(m.class) | int64(m.rootTier)<<8
	if m.clear {
		p.Arg |= 1 << 16
	}
	iso.tabs[sw.Index()].k.Sent++
	sw.SendControl(now, port, p)
}

// find is the entry for (dst, class), expired or not, or nil.
func (t *table) find(dst int32, class uint8) *entry {
	for i := range t.entries {
		if e := &t.entries[i]; e.dst == dst && e.class == class {
			return e
		}
	}
	return nil
}

func (t *table) remove(id int64) bool {
	for i := range t.entries {
		if t.entries[i].id == id {
			t.entries = append(t.entries[:i], t.entries[i+1:]...)
			return true
		}
	}
	return false
}

// match is the live entry for (dst, class), removing expired entries on
// the way (counted in *expired).
func (t *table) match(now engine.Time, dst int32, class uint8, expired *int64) bool {
	found := false
	for i := 0; i < len(t.entries); {
		e := &t.entries[i]
		if now >= e.expires {
			t.entries = append(t.entries[:i], t.entries[i+1:]...)
			*expired++
			continue
		}
		if e.dst == dst && e.class == class {
			found = true
		}
		i++
	}
	return found
}

// Router routes with the ARN tables in front of a base router. A packet
// in the AFC, or a data packet matching a consumed entry (which it
// moves to the AFC, setting the adapted bit), is routed
// deterministically: next hop number destination mod the number of next
// hops (D-mod-k), the same at every switch, so the adapted flows to one
// destination converge on one path instead of spreading; every other
// packet goes to Base. With Config.AdaptGap > 0 the match is decided per
// flowlet: a flow moves into or out of the AFC only after AdaptGap of
// silence at this switch.
type Router struct {
	Base fabric.Router
	iso  *Isolation
}

// NewRouter wraps base with iso's tables. Build the network with it, then
// Install iso and call Bind.
func NewRouter(base fabric.Router) *Router { return &Router{Base: base} }

// Bind attaches the isolation state the router reads.
func (r *Router) Bind(iso *Isolation) { r.iso = iso }

// Route implements fabric.Router.
func (r *Router) Route(sw *fabric.Switch, p *fabric.Packet, in int) int {
	return r.route(sw, p, in, r.Base)
}

// ForSwitch implements fabric.ParallelRouter: the ARN tables are per
// switch already, and each switch routes by its own base's router for a
// World (nil if the base cannot run there). It reads the isolation state
// through r, since Bind comes after the network is built.
func (r *Router) ForSwitch(sw *fabric.Switch, s *engine.Sim) fabric.Router {
	base := fabric.RouterForSwitch(r.Base, sw, s)
	if base == nil {
		return nil
	}
	return switchRouter{r, base}
}

// switchRouter is a Router's router for one switch of a World.
type switchRouter struct {
	r    *Router
	base fabric.Router
}

// Route implements fabric.Router.
func (x switchRouter) Route(sw *fabric.Switch, p *fabric.Packet, in int) int {
	return x.r.route(sw, p, in, x.base)
}

// route is Route with base in place of r.Base: the same router, or its
// copy for sw's thread. The ECMP salt AFI compares with is r.Base's.
func (r *Router) route(sw *fabric.Switch, p *fabric.Packet, in int, base fabric.Router) int {
	iso := r.iso
	afc := iso.cfg.AFC
	adapted := afc != 0 && p.Class == afc
	if !adapted && p.Kind == fabric.Data {
		port := -1 // the base router's decision, taken first under AFI
		if iso.cfg.AFI {
			port = base.Route(sw, p, in)
		}
		if adapted = iso.adapt(sw, p, r.salt(), port); adapted {
			iso.tabs[sw.Index()].k.Adapted++
			if afc != 0 {
				p.Class = afc
			}
			if port >= 0 {
				return port // AFI: the adaptive decision stands at this switch
			}
		} else if port >= 0 {
			return port
		}
	}
	if !adapted {
		return base.Route(sw, p, in)
	}
	hops := sw.Routes(p.Dst)
	return int(hops[int(p.Dst)%len(hops)])
}

// salt is the ECMP salt of the router under r: the hash that picks the
// next hop adaptive routing takes when its ports are idle.
func (r *Router) salt() uint32 {
	b := r.Base
	for {
		switch x := b.(type) {
		case *QueueMap:
			b = x.Base
		case *fabric.Adaptive:
			return x.Salt
		case fabric.ECMP:
			return x.Salt
		default:
			return 0
		}
	}
}

// adapt decides whether data packet p, not in the AFC, is adapted at sw:
// a live ARN entry for its destination and class, or under AFI the base
// router's decision port diverting it from a congested next hop. With
// AdaptGap > 0 the decision is taken at the first packet of a flowlet
// and holds for the flowlet.
func (iso *Isolation) adapt(sw *fabric.Switch, p *fabric.Packet, salt uint32, port int) bool {
	t := &iso.tabs[sw.Index()]
	now := sw.Network().Sim.Now()
	gap := iso.cfg.AdaptGap
	if gap == 0 {
		return iso.matches(sw, t, now, p, salt, port)
	}
	h := fabric.Murmur3(uint32(p.Src), uint32(p.Dst), uint32(p.SPort)|uint32(p.DPort)<<16, uint32(sw.ID))
	f := &t.flows[h&uint32(len(t.flows)-1)]
	if f.tag != h || f.last == 0 || now-f.last >= gap {
		f.tag = h
		f.adapted = iso.matches(sw, t, now, p, salt, port)
	}
	f.last = now + 1 // never 0 once used
	return f.adapted
}

func (iso *Isolation) matches(sw *fabric.Switch, t *table, now engine.Time, p *fabric.Packet, salt uint32, port int) bool {
	if len(t.entries) > 0 && t.match(now, p.Dst, p.Class, &t.k.Expired) {
		return true
	}
	if port >= 0 && iso.diverted(sw, p, salt, port) {
		t.k.Diverted++
		return true
	}
	return false
}

// diverted reports whether port, the base router's choice for p at sw,
// is not the next hop p takes with idle ports (ECMP's hash with salt,
// which fabric.Adaptive's tie-break reproduces) while that next hop's
// detector for p's class is a Root or a Branch.
func (iso *Isolation) diverted(sw *fabric.Switch, p *fabric.Packet, salt uint32, port int) bool {
	hops := sw.Routes(p.Dst)
	if len(hops) < 2 {
		return false
	}
	h := fabric.Murmur3(uint32(p.Src), uint32(p.Dst), uint32(p.SPort)|uint32(p.DPort)<<16, uint32(sw.ID)^salt)
	e := int(hops[h%uint32(len(hops))])
	return e != port && iso.det[sw.Index()][e*fabric.NumClasses+int(p.Class)].State() != Normal
}
