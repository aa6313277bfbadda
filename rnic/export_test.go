package rnic

import "github.com/dcsim/dcsim/fabric"

// Placement is where a host runs (placement).
type Placement = placement

// NewClusterPlaced is NewCluster with host h placed by place(h), for a
// test's own World.
func NewClusterPlaced(net *fabric.Network, cfg Config, newSched func(h *Host) Scheduler, place func(h int) Placement) (*Cluster, error) {
	return newCluster(net, cfg, newSched, place)
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
