package rnic

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// NewClusterOnUnits is NewCluster with host h run by hostSim(h) in unit
// hostUnit(h), for a test's own World.
func NewClusterOnUnits(net *fabric.Network, cfg Config, newSched func(h *Host) Scheduler,
	hostSim func(h int) *engine.Sim, hostUnit func(h int) int32) (*Cluster, error) {
	return newCluster(net, cfg, newSched, hostSim, hostUnit)
}

// ReusedQPs is how many QPs the cluster opened in a closed QP's memory.
func ReusedQPs(c *Cluster) int64 {
	var n int64
	for _, l := range c.locals {
		n += l.reusedQPs
	}
	return n
}

// SetSchedulerForTest replaces h's scheduler (before any QP opens).
func SetSchedulerForTest(h *Host, s Scheduler) { h.sched = s }
