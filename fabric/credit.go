package fabric

import (
	"fmt"
	"slices"

	"github.com/dcsim/dcsim/engine"
)

// Credit-based flow control (Config.Credits > 0), the optional link mode
// of docs/model.md §10.1's mapping ("credit-based links are an optional
// link mode"), as InfiniBand links and the ARN+AFI paper's simulator
// run: instead of PFC's PAUSE and RESUME, every port whose peer is a
// switch holds, per data class, credits for the bytes that the switch's
// input buffer of that class has free, Config.Credits at the start (a
// dedicated per-class input buffer, IB's per-VL buffer: switch.buffer is
// not consulted for admission, and nothing is ever dropped).
//
//   - Transmitting a packet of data class c spends its size. When the
//     class has fewer credits than the largest frame (Config.MaxFrame)
//     it stalls: the port treats it as paused (Port.Paused, so switch
//     queues and NIC sources skip it as under a PAUSE), and the stall
//     time adds to Port.PausedTime. No frame ever exceeds what is left.
//   - When the packet leaves the downstream switch (its egress dequeue,
//     where PFC mode would release its ingress accounting), its size
//     returns to the upstream port one link delay later (a credit update
//     takes the link's propagation delay and no serialisation: IB's
//     flow-control packets are small and go ahead of data).
//   - Ports facing hosts have no credits: a NIC consumes at line rate
//     (as isolation's detector counts a host as always free). Class 0
//     (control: ARNs, ACKs with ack_class control) is never held back.
//   - ACKs and NACKs a NIC sends into a stalled class under ack_high_prio
//     spend credits they do not have (the count goes negative; Overdraft
//     sums them): ACK_HIGH_PRIO ignores flow control under credits as it
//     does under PFC.
//
// The switch keeps each (input, class)'s held bytes in its ingress
// accounting (Switch.IngressBytes, which the congestion detector reads
// as the downstream buffer's occupancy), so with credits it never
// exceeds Config.Credits plus any overdraft (CheckCredits).
type credits struct {
	pt     *Port
	avail  [NumClasses]int64
	need   int64 // a class stalls below this many credits
	stall  uint8 // bit c: class c stalled for credits
	rets   []creditReturn
	head   int
	pushed bool          // an event for rets[head] is scheduled
	x      *crossCredits // returns from a switch in another unit, or nil

	// Counters.
	Stalls    [NumClasses]int64 // times class c ran out
	Overdraft int64             // bytes sent without credits (ack_high_prio)
}

type creditReturn struct {
	at    engine.Time
	class uint8
	bytes int64
}

// creditLinks is the flow-control mode of credit-based links: the
// ingress accounting above, with its per-port state in each upstream
// port's credits (Port.cr).
type creditLinks struct{ credits int64 }

// newCreditIngress gives every port facing a switch its credits.
func newCreditIngress(n *Network) ingress {
	n.allPorts(func(pt *Port) {
		if _, ok := pt.Peer.Owner.(*Switch); !ok {
			return
		}
		cr := &credits{pt: pt, need: max(1, n.cfg.MaxFrame)}
		for c := 1; c < NumClasses; c++ {
			cr.avail[c] = n.cfg.Credits
		}
		pt.cr, pt.creditFC = cr, true
	})
	return &creditLinks{credits: n.cfg.Credits}
}

// spend charges p to the port's credits at its transmission (the hook in
// Port.transmit, for ports with creditFC).
func (cr *credits) spend(now engine.Time, p *Packet) {
	c := p.Class
	if c == 0 {
		return
	}
	if cr.avail[c] < int64(p.Size) {
		cr.Overdraft += int64(p.Size) - max(0, cr.avail[c])
	}
	cr.avail[c] -= int64(p.Size)
	if cr.avail[c] < cr.need && cr.stall&(1<<c) == 0 {
		cr.stall |= 1 << c
		cr.Stalls[c]++
		cr.pt.setPausedBit(now, c, true)
	}
}

// admit takes a data packet into switch s's input buffer of its class
// without PFC or drops.
func (*creditLinks) admit(_ engine.Time, s *Switch, p *Packet, in int, _ *Port) bool {
	s.mmu.used += int64(p.Size)
	s.mmu.in[in].class(p.ectx).ingress += int64(p.Size)
	return true
}

// release frees p's space at its input and returns its credits upstream
// one link delay later.
func (*creditLinks) release(now engine.Time, s *Switch, p *Packet) {
	in := int(p.inPort)
	cl := s.mmu.in[in].class(p.ectx)
	cl.ingress -= int64(p.Size)
	if cl.ingress < 0 {
		panic(fmt.Sprintf("fabric: credit accounting below zero at %s port %d class %d: %d", s.Name, in, p.ectx, cl.ingress))
	}
	up := s.Ports[in].Peer
	cr := up.cr
	if cr == nil {
		return // a host's port without credits cannot feed a switch; defensive
	}
	r := creditReturn{at: now + up.Delay, class: p.ectx, bytes: int64(p.Size)}
	if x := cr.x; x != nil { // the upstream port is in another unit (world.go)
		x.send(s.net.Sim, r)
		return
	}
	cr.rets = append(cr.rets, r)
	if !cr.pushed {
		cr.pushed = true
		s.net.Sim.At(cr.rets[cr.head].at, cr, 0)
	}
}

// Fire applies the credit returns due now (they are in time order: one
// link, one constant delay) and schedules the next.
func (cr *credits) Fire(now engine.Time, _ uint8) {
	for cr.head < len(cr.rets) && cr.rets[cr.head].at <= now {
		r := cr.rets[cr.head]
		cr.head++
		cr.avail[r.class] += r.bytes
		if cr.stall&(1<<r.class) != 0 && cr.avail[r.class] >= cr.need {
			cr.stall &^= 1 << r.class
			cr.pt.setPausedBit(now, r.class, false)
		}
	}
	if cr.head == len(cr.rets) {
		cr.rets, cr.head, cr.pushed = cr.rets[:0], 0, false
		return
	}
	cr.pt.net.Sim.At(cr.rets[cr.head].at, cr, 0)
}

// returning lists the credit returns not yet applied: those scheduled,
// and between units those the downstream switch has not yet handed over.
func (cr *credits) returning() []creditReturn {
	rets := cr.rets[cr.head:]
	if cr.x != nil && len(cr.x.rets) > 0 {
		rets = append(slices.Clip(rets), cr.x.rets...)
	}
	return rets
}

// setPausedBit stalls or releases egress class c for credits: the same
// paused bit as a PAUSE (so every sender skips the class), without
// counting a PAUSE frame.
func (pt *Port) setPausedBit(now engine.Time, c uint8, on bool) {
	bit := uint8(1) << c
	if on {
		if pt.paused&bit == 0 {
			pt.paused |= bit
			pt.pausedSince[c] = now
		}
		return
	}
	if pt.paused&bit != 0 {
		pt.paused &^= bit
		pt.PausedTime[c] += now - pt.pausedSince[c]
		pt.Kick(now)
	}
}

// Credits reports port pt's credits for class c and whether the port
// runs credit-based flow control.
func (n *Network) Credits(pt *Port, c uint8) (int64, bool) {
	if pt.cr == nil {
		return 0, false
	}
	return pt.cr.avail[c], true
}

// CreditCounters sums the credit counters over all ports: stalls (a
// class running out) and overdraft bytes.
func (n *Network) CreditCounters() (stalls, overdraft int64) {
	n.allPorts(func(pt *Port) {
		if cr := pt.cr; cr != nil {
			for _, s := range cr.Stalls {
				stalls += s
			}
			overdraft += cr.Overdraft
		}
	})
	return stalls, overdraft
}

// CheckCredits verifies, per credit port and data class, that credits
// plus the bytes on the wire, held in the switch's input buffer and
// returning make exactly Config.Credits, and that no input holds more
// than Config.Credits plus the overdraft sent into it.
func (n *Network) CheckCredits() error {
	for _, sw := range n.Switches {
		if err := (&creditLinks{n.cfg.Credits}).check(sw); err != nil {
			return err
		}
	}
	return nil
}

// check is CheckCredits for the inputs of switch sw; a switch's buffer
// is not checked as a whole, as credits bound each input class instead.
func (l *creditLinks) check(sw *Switch) error {
	for i, in := range sw.Ports {
		pt, cr := in.Peer, in.Peer.cr
		if cr == nil {
			continue
		}
		var wire, ret [NumClasses]int64
		pt.eachOnWire(func(p *Packet) { wire[p.Class] += int64(p.Size) })
		for _, r := range cr.returning() {
			ret[r.class] += r.bytes
		}
		for c := 1; c < NumClasses; c++ {
			held := sw.mmu.in[i].class(uint8(c)).ingress
			if got := cr.avail[c] + wire[c] + held + ret[c]; got != l.credits {
				return fmt.Errorf("fabric: credits of %s class %d: %d available + %d on the wire + %d held + %d returning = %d, want %d",
					sw.Name, c, cr.avail[c], wire[c], held, ret[c], got, l.credits)
			}
			if held > l.credits+cr.Overdraft {
				return fmt.Errorf("fabric: %s input %d class %d holds %d B, more than its %d credits", sw.Name, i, c, held, l.credits)
			}
		}
	}
	return nil
}
