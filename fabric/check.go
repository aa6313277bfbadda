package fabric

import "fmt"

// allPorts visits every port: switch ports in switch order, then host ports.
func (n *Network) allPorts(f func(pt *Port)) {
	for _, sw := range n.Switches {
		for _, pt := range sw.Ports {
			f(pt)
		}
	}
	for _, pt := range n.HostPorts {
		f(pt)
	}
}

// InTransit counts the packets and payload bytes in egress queues and on
// wires (host NICs' own queues are not included).
func (n *Network) InTransit() (packets, payload int64) {
	n.allPorts(func(pt *Port) {
		for c := range pt.cls {
			pt.cls[c].q.each(n.Pool, func(p *Packet) {
				packets++
				payload += int64(p.Payload)
			})
		}
		pt.eachOnWire(func(p *Packet) {
			packets++
			payload += int64(p.Payload)
		})
	})
	return packets, payload
}

// CountInTransit is the number of packets of kind k in egress queues and
// on wires.
func (n *Network) CountInTransit(k Kind) (packets int64) {
	n.allPorts(func(pt *Port) {
		for c := range pt.cls {
			pt.cls[c].q.each(n.Pool, func(p *Packet) {
				if p.Kind == k {
					packets++
				}
			})
		}
		pt.eachOnWire(func(p *Packet) {
			if p.Kind == k {
				packets++
			}
		})
	})
	return packets
}

// Check verifies the fabric's invariants at any instant: per-queue byte
// counts equal their packets, a switch's buffer use equals its queued data
// bytes, the MMU's shared count is in range, and the flow-control mode's
// own: within the buffer (lossy), that and nothing dropped but packets
// that followed one sent into a paused class (PFC,
// Switch.PauseIgnoredDrops), or CheckCredits (credit-based links).
func (n *Network) Check() error {
	for _, sw := range n.Switches {
		var queued int64
		for _, pt := range sw.Ports {
			var total int64
			for c := range pt.cls {
				var b int64
				pt.cls[c].q.each(n.Pool, func(p *Packet) { b += int64(p.Size) })
				if b != pt.cls[c].bytes {
					return fmt.Errorf("fabric: %s port %d class %d: counted %d B, holds %d B", sw.Name, pt.Index, c, pt.cls[c].bytes, b)
				}
				if c != 0 {
					queued += b
				}
				total += b
			}
			if total != pt.qTotal {
				return fmt.Errorf("fabric: %s port %d: total %d B, holds %d B", sw.Name, pt.Index, pt.qTotal, total)
			}
		}
		m := &sw.mmu
		if queued != m.used {
			return fmt.Errorf("fabric: %s: buffer use %d B, queues hold %d B", sw.Name, m.used, queued)
		}
		if m.shared < 0 || m.shared > m.buffer {
			return fmt.Errorf("fabric: %s: shared use %d B out of [0, %d]", sw.Name, m.shared, m.buffer)
		}
		if err := n.ingress.check(sw); err != nil {
			return err
		}
	}
	return nil
}

// CheckQuiescent verifies the state of a drained fabric: nothing queued or
// on a wire, every PAUSE answered by a RESUME, no class paused anywhere,
// and every switch's buffer accounting back to zero.
func (n *Network) CheckQuiescent() error {
	if pk, _ := n.InTransit(); pk != 0 {
		return fmt.Errorf("fabric: %d packets still in transit", pk)
	}
	var bad error
	n.allPorts(func(pt *Port) {
		if pt.paused != 0 && bad == nil {
			bad = fmt.Errorf("fabric: port %d of %T still paused (mask %08b)", pt.Index, pt.Owner, pt.paused)
		}
	})
	if bad != nil {
		return bad
	}
	for _, sw := range n.Switches {
		if sw.PauseSent != sw.ResumeSent {
			return fmt.Errorf("fabric: %s sent %d PAUSE but %d RESUME", sw.Name, sw.PauseSent, sw.ResumeSent)
		}
		m := &sw.mmu
		if m.used != 0 || m.shared != 0 {
			return fmt.Errorf("fabric: %s: buffer accounting %d B used, %d B shared after drain", sw.Name, m.used, m.shared)
		}
		for i := range m.in {
			for c := uint8(1); c < NumClasses; c++ {
				if cl := m.in[i].class(c); cl.ingress != 0 || cl.hdrm != 0 || m.paused(i, c) {
					return fmt.Errorf("fabric: %s port %d class %d: ingress %d, headroom %d, paused %v after drain",
						sw.Name, i, c, cl.ingress, cl.hdrm, m.paused(i, c))
				}
			}
		}
	}
	return nil
}
