package fabric

import "github.com/dcsim/dcsim/engine"

// ingress is a switch's ingress flow control: whether a data packet may
// take buffer, what its departure gives back, and what Check verifies.
// Build picks one mode for the network from its Config (ingressModes);
// the mode holds no per-switch state of its own (that lives in the
// switch's mmu and, for credits, in the ports facing it), so every
// switch calls the same value.
//
// Control frames (class 0) never reach it: they are neither admitted
// against the buffer nor paused.
type ingress interface {
	// admit charges data packet p, arrived on ingress port in and routed
	// to out, to s's buffer (mmu.used included). false means the switch
	// drops p; admit has counted why.
	admit(now engine.Time, s *Switch, p *Packet, in int, out *Port) bool
	// release gives back what admit charged to p's ingress (port
	// p.inPort, class p.ectx) as p leaves s; mmu.used is already
	// released.
	release(now engine.Time, s *Switch, p *Packet)
	// check verifies the mode's invariants on s at any instant.
	check(s *Switch) error
}

// ingressMode is one flow-control mode: on reports whether a
// configuration selects it, new makes it for a built network (ports
// wired, buffers set up).
type ingressMode struct {
	name string
	on   func(*Config) bool
	new  func(*Network) ingress
}

// ingressModes are the flow-control modes in the order Build tries them:
// the first whose on reports true for the configuration runs on every
// switch. A new mode is a file with its type and one line here.
var ingressModes = []ingressMode{
	{"credit", func(c *Config) bool { return c.Credits > 0 }, newCreditIngress},
	{"pfc", func(c *Config) bool { return c.PFC }, newPFC},
	{"lossy", func(*Config) bool { return true }, newLossy},
}

// newIngress is the flow control of n's configuration (ingressModes).
func newIngress(n *Network) ingress {
	for _, m := range ingressModes {
		if m.on(&n.cfg) {
			return m.new(n)
		}
	}
	panic("fabric: no flow-control mode") // lossy takes every configuration
}
