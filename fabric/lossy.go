package fabric

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
)

// lossy is tail drop without PFC (Config.PFC false): one egress queue
// may hold at most LossyAlpha times the free buffer (Choudhury-Hahne
// dynamic threshold), so a congested queue cannot starve the others (and
// the ACKs) of buffer, optionally capped by LossyQueueLimit. The
// reference model has no lossy mode.
type lossy struct {
	alpha float64
	limit int64 // LossyQueueLimit; 0: none
}

func newLossy(n *Network) ingress {
	return &lossy{alpha: n.cfg.LossyAlpha, limit: n.cfg.LossyQueueLimit}
}

func (l *lossy) admit(_ engine.Time, s *Switch, p *Packet, _ int, out *Port) bool {
	m := &s.mmu
	size := int64(p.Size)
	limit := int64(l.alpha * float64(m.buffer-m.used))
	if l.limit > 0 {
		limit = min(limit, l.limit)
	}
	if m.used+size > m.buffer || out.cls[p.Class].bytes+size > limit {
		return false
	}
	m.used += size
	return true
}

func (*lossy) release(engine.Time, *Switch, *Packet) {}

func (*lossy) check(s *Switch) error { return checkBuffer(s) }

// checkBuffer verifies that s holds no more than its buffer.
func checkBuffer(s *Switch) error {
	if m := &s.mmu; m.used > m.buffer {
		return fmt.Errorf("fabric: %s: buffer use %d B above the %d B buffer", s.Name, m.used, m.buffer)
	}
	return nil
}
