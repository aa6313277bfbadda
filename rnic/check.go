package rnic

import "fmt"

// Check verifies the conservation laws of the whole network at any
// instant: every payload byte sent is delivered to a NIC, dropped and
// counted, or in a queue or on a wire; every live packet is somewhere; no
// QP acknowledges beyond what it sent; and the fabric's own invariants.
// With more than one thread it reads every thread's state, so it runs
// between runs only.
func (c *Cluster) Check() error {
	if err := c.Net.Check(); err != nil {
		return err
	}
	pk, payload := c.Net.InTransit()
	t := c.Totals()
	k := &t
	nk := c.Net.Counters()
	if k.PayloadSent != k.PayloadArrived+nk.DroppedPayload+payload {
		return fmt.Errorf("rnic: payload sent %d != arrived %d + dropped %d + in transit %d",
			k.PayloadSent, k.PayloadArrived, nk.DroppedPayload, payload)
	}
	var ctrl int64
	for _, h := range c.Hosts {
		ctrl += int64(h.ctrl.Len())
	}
	if live := nk.PacketsLive; live != pk+ctrl {
		return fmt.Errorf("rnic: %d live packets, but %d in transit + %d in NIC control queues", live, pk, ctrl)
	}
	if err := checkQPs(c.Hosts); err != nil {
		return err
	}
	if c.Net.Config().PFC && nk.DroppedBytes != 0 {
		return fmt.Errorf("rnic: %d bytes dropped in a lossless network", nk.DroppedBytes)
	}
	return nil
}

// CheckDrained verifies a run that has finished every message: nothing in
// flight, no QP with unacknowledged bytes, and a quiescent fabric.
func (c *Cluster) CheckDrained() error {
	if err := c.Check(); err != nil {
		return err
	}
	if k := c.Totals(); k.MessagesDone != k.MessagesPosted {
		return fmt.Errorf("rnic: %d of %d messages done", k.MessagesDone, k.MessagesPosted)
	}
	for _, h := range c.Hosts {
		if h.ctrl.Len() != 0 {
			return fmt.Errorf("rnic: host %d has %d control packets queued", h.ID, h.ctrl.Len())
		}
	}
	return c.Net.CheckQuiescent()
}

// checkQPs verifies that no QP of hosts acknowledges beyond what it sent.
func checkQPs(hosts []*Host) error {
	for _, h := range hosts {
		for _, qp := range h.qps {
			s := qp.st
			if !(0 <= s.Una && s.Una <= s.Nxt && s.Nxt <= s.End && s.Nxt <= s.HighSent && s.HighSent <= s.End) {
				return fmt.Errorf("rnic: host %d qp %d: una %d nxt %d high %d end %d out of order", h.ID, qp.ID, s.Una, s.Nxt, s.HighSent, s.End)
			}
		}
	}
	return nil
}
