package rnic

// ReusedQPs is how many QPs the cluster opened in a closed QP's memory.
func ReusedQPs(c *Cluster) int64 { return c.reusedQPs }

// SetSchedulerForTest replaces h's scheduler (before any QP opens).
func SetSchedulerForTest(h *Host, s Scheduler) { h.sched = s }
