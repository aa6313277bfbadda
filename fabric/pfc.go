package fabric

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
)

// pfc is lossless flow control by per-class PAUSE and RESUME (Config.PFC)
// on the reference model's Broadcom-style MMU (mmu; docs/model.md §3.3):
// a packet that fits neither the port's shared share nor its headroom is
// dropped and counted as a sizing error or as the consequence of a packet
// sent into a paused class (Switch.HeadroomDrops, PauseIgnoredDrops).
type pfc struct {
	draws switchDraws // told of every PFC frame sent
}

func newPFC(n *Network) ingress { return &pfc{draws: n.draws} }

func (f *pfc) admit(now engine.Time, s *Switch, p *Packet, in int, _ *Port) bool {
	m := &s.mmu
	size := int64(p.Size)
	c := p.ectx
	if p.sentPaused && m.paused(in, c) {
		m.in[in].ignored |= 1 << c
	}
	if !m.admit(in, c, size) {
		if m.in[in].ignored&(1<<c) != 0 {
			s.PauseIgnoredDrops++
		} else {
			s.HeadroomDrops++
		}
		return false
	}
	m.used += size
	if !m.paused(in, c) && m.shouldPause(in, c) {
		m.setPaused(in, c, true)
		f.send(now, s, in, c, true)
	}
	return true
}

func (f *pfc) release(now engine.Time, s *Switch, p *Packet) {
	m := &s.mmu
	in, c := int(p.inPort), p.ectx
	m.release(in, c, int64(p.Size))
	if m.paused(in, c) && m.shouldResume(in, c) {
		m.setPaused(in, c, false)
		m.in[in].ignored &^= 1 << c
		f.send(now, s, in, c, false)
	}
}

// send queues a PAUSE (pause) or RESUME of class on s's port.
func (f *pfc) send(now engine.Time, s *Switch, port int, class uint8, pause bool) {
	p := s.net.Pool.Get()
	p.Kind = PFC
	p.Class = 0
	p.Size = PFCFrameBytes
	p.Arg = int64(class)
	p.Pause = pause
	p.Src, p.Dst = -1, -1
	f.draws.pfcFrame()
	if pause {
		s.PauseSent++
		s.net.PauseFrames++
	} else {
		s.ResumeSent++
	}
	s.Ports[port].enqueue(now, p)
}

// check: within the buffer, and nothing dropped but what followed a
// packet sent into a paused class.
func (*pfc) check(s *Switch) error {
	if err := checkBuffer(s); err != nil {
		return err
	}
	if s.Drops != s.PauseIgnoredDrops {
		return fmt.Errorf("fabric: %s: %d drops in a lossless fabric (%d of them at full headroom, %d explained by packets sent into a paused class)",
			s.Name, s.Drops, s.HeadroomDrops, s.PauseIgnoredDrops)
	}
	return nil
}
