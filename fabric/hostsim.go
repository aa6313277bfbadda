package fabric

import "github.com/dcsim/dcsim/engine"

// HostSim is the Sim that runs host h's unit: every event of the host (its
// NIC, QPs, timers) is scheduled there. n.Sim on a network that is not
// built on an engine.World.
//
// A stand-in until the network runs on a World (issue 29): the World
// build replaces it.
func (n *Network) HostSim(h int) *engine.Sim { return n.Sim }

// HostUnit is host h's unit of the World the network runs on; 0 on a
// network that is not built on one. A stand-in, as HostSim.
func (n *Network) HostUnit(h int) int32 { return 0 }
