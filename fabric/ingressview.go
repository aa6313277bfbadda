package fabric

import "github.com/dcsim/dcsim/engine"

// PeerIngressBytes is what the switch at the other end of pt holds in its
// input buffer from pt in data class c, at the instant
// (Switch.IngressBytes); 0 if the peer is a host. Across units of a World
// the peer's thread may be running, so it panics there: read a delayed
// view instead (DelayIngressView).
func (pt *Port) PeerIngressBytes(c uint8) int64 {
	if pt.xl != nil {
		panic("fabric: PeerIngressBytes of a switch in another unit of a World: use DelayIngressView")
	}
	if down, ok := pt.peerOwner.(*Switch); ok {
		return down.IngressBytes(int(pt.peerIdx), c)
	}
	return 0
}

// A delayed view (DelayIngressView) is the other way for an upstream port
// to see its downstream switch's input accounting for the link: as it was
// one link delay ago (the port's Delay), the state the downstream could
// have told the upstream over the link by now, as the credits of an
// InfiniBand link do. Unlike the live read, it is the same on the
// sequential engine and on a World (where the live read is impossible
// across units): on a link between units every change a read at t needs
// (at or before t - Delay, before the window's start since Delay >= the
// lookahead) has reached the upstream at the window's end. The downstream logs every change of its accounting for the link
// (time, class, value); within a unit the upstream reads that log, across
// units a copy that a courier brings at windows' ends.

// ingressChange is one change of a switch's input accounting for a port
// and class: the value from at on.
type ingressChange struct {
	at    engine.Time
	class uint8
	bytes int64
}

// ingressView is an upstream port's delayed view of its downstream's
// input accounting for the link (see above).
type ingressView struct {
	down     *Switch
	idx      int // the link's port index at down
	log      []ingressChange
	in       []ingressChange // across units: the log's entries brought at windows' ends
	head     int             // the reader's position in in (across units) or log
	cur      [NumClasses]int64
	cross    bool
	src, dst int32 // down's unit, the upstream port's unit (cross)
	handed   bool
}

// record logs the accounting of class c after a change at now. Only a
// switch with a QueueMonitor calls it.
func (v *ingressView) record(now engine.Time, c uint8) {
	v.log = append(v.log, ingressChange{at: now, class: c, bytes: v.down.IngressBytes(v.idx, c)})
	if v.cross && !v.handed {
		v.handed = true
		v.down.net.Sim.Hand(v.src, v.dst, v)
	}
}

// Arrive implements engine.Courier: the window's changes move to the
// upstream's side.
func (v *ingressView) Arrive(*engine.Sim) {
	v.in = append(v.in, v.log...)
	v.log = v.log[:0]
	v.handed = false
}

// at is class c's accounting as of time t: after every change at or
// before t. Reads come at non-decreasing times.
func (v *ingressView) at(c uint8, t engine.Time) int64 {
	s := &v.log
	if v.cross {
		s = &v.in
	}
	l, i := *s, v.head
	for i < len(l) && l[i].at <= t {
		v.cur[l[i].class] = l[i].bytes
		i++
	}
	if i > 64 && i > len(l)/2 { // drop what was read
		n := copy(l, l[i:])
		*s, i = l[:n], 0
	}
	v.head = i
	return v.cur[c]
}

// viewChanged logs a change of s's input accounting for port in and
// class c to the delayed view reading it, if any. Only a switch with a
// QueueMonitor calls it.
func (s *Switch) viewChanged(now engine.Time, in int, c uint8) {
	if vs := s.net.ingressViews.down; vs != nil && vs[s.index] != nil {
		if v := vs[s.index][in]; v != nil {
			v.record(now, c)
		}
	}
}

// ingressViews are a network's delayed views (DelayIngressView), the same
// in every thread's view of the network: by the downstream switch's index
// and input port (written there), and by the upstream switch's index and
// output port (read there).
type ingressViews struct {
	down, up [][]*ingressView
}

// DelayIngressView makes every switch port whose peer is a switch see
// that switch's input accounting for the link one link delay late
// (PeerIngressBytesDelayed), on a plain network and on a World alike.
// Call it before the run starts; a second call changes nothing. The
// views are kept up to date only at switches with a QueueMonitor.
func (n *Network) DelayIngressView() {
	if n.ingressViews.down != nil {
		return
	}
	vs := ingressViews{down: make([][]*ingressView, len(n.Switches)), up: make([][]*ingressView, len(n.Switches))}
	for _, sw := range n.Switches {
		for _, pt := range sw.Ports {
			down, ok := pt.peerOwner.(*Switch)
			if !ok {
				continue
			}
			if vs.down[down.index] == nil {
				vs.down[down.index] = make([]*ingressView, len(down.Ports))
			}
			if vs.up[sw.index] == nil {
				vs.up[sw.index] = make([]*ingressView, len(sw.Ports))
			}
			v := &ingressView{down: down, idx: int(pt.peerIdx)}
			if pt.xl != nil {
				v.cross, v.src, v.dst = true, pt.xl.dst, pt.xl.src
			}
			vs.down[down.index][v.idx] = v
			vs.up[sw.index][pt.Index] = v
		}
	}
	for _, w := range n.allViews() {
		w.ingressViews = vs
	}
}

// PeerIngressBytesDelayed is what the switch at the other end of switch
// port pt held in its input buffer from pt in data class c one link delay
// before now, with DelayIngressView; 0 if the peer is a host or without
// it.
func (pt *Port) PeerIngressBytesDelayed(c uint8, now engine.Time) int64 {
	up := pt.net.ingressViews.up
	if up == nil || pt.sw == nil || up[pt.sw.index] == nil || c == 0 || c >= NumClasses {
		return 0
	}
	if v := up[pt.sw.index][pt.Index]; v != nil {
		return v.at(c, now-pt.Delay)
	}
	return 0
}

// allViews is the network's views, one per thread (n itself on a plain
// network).
func (n *Network) allViews() []*Network {
	if n.views == nil {
		return []*Network{n}
	}
	return n.views
}
