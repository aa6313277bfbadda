package storm

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/rnic"
)

// Stats are one NIC's STORM event counts.
type Stats struct {
	Transactions    int64 // transactions formed from posted messages
	GroupedMessages int64 // messages that joined an earlier message's transaction
	GuardStalls     int64 // times the guard held a QP back (one per episode)
	GuardInherited  int64 // packets sent in an inherited class (guard = inherit)
	Announced       int64 // super-BDP transactions that became receiver candidates
	GrantsSent      int64 // grants and revocations sent by this NIC as a receiver
	GrantsRevoked   int64 // revocations among them (preempt or release)
	GrantsReleased  int64 // of the revocations, releases of idle occupants
	BacklogUpdates  int64 // backlog updates sent by this NIC as a sender
	UpdatesStale    int64 // updates that reached this NIC's receiver for a transaction it no longer tracks
	GrantsReceived  int64 // grants that reached this NIC as a sender
	GrantsStale     int64 // of those, for a QP or transaction already gone
	// GrantLatencyMin is the shortest time a grant took from its
	// receiver to this NIC (0 if none arrived): at least the one-way
	// delay, since grants cross the fabric.
	GrantLatencyMin engine.Time
}

// Stats returns the NIC's counts so far.
func (s *Scheduler) Stats() Stats { return s.stats }

func (st *Stats) add(o Stats) {
	st.Transactions += o.Transactions
	st.GroupedMessages += o.GroupedMessages
	st.GuardStalls += o.GuardStalls
	st.GuardInherited += o.GuardInherited
	st.Announced += o.Announced
	st.GrantsSent += o.GrantsSent
	st.GrantsRevoked += o.GrantsRevoked
	st.GrantsReleased += o.GrantsReleased
	st.BacklogUpdates += o.BacklogUpdates
	st.UpdatesStale += o.UpdatesStale
	st.GrantsReceived += o.GrantsReceived
	st.GrantsStale += o.GrantsStale
	if o.GrantLatencyMin > 0 && (st.GrantLatencyMin == 0 || o.GrantLatencyMin < st.GrantLatencyMin) {
		st.GrantLatencyMin = o.GrantLatencyMin
	}
}

// Map is the counts under the names run.parquet's counters map uses.
func (st Stats) Map() map[string]int64 {
	return map[string]int64{
		"storm.transactions":         st.Transactions,
		"storm.grouped_messages":     st.GroupedMessages,
		"storm.guard_stalls":         st.GuardStalls,
		"storm.guard_inherited":      st.GuardInherited,
		"storm.announced":            st.Announced,
		"storm.grants_sent":          st.GrantsSent,
		"storm.grants_revoked":       st.GrantsRevoked,
		"storm.grants_released":      st.GrantsReleased,
		"storm.backlog_updates":      st.BacklogUpdates,
		"storm.updates_stale":        st.UpdatesStale,
		"storm.grants_received":      st.GrantsReceived,
		"storm.grants_stale":         st.GrantsStale,
		"storm.grant_latency_min_ns": st.GrantLatencyMin.Nanoseconds(),
	}
}

// Counters returns this NIC's counts as a counters map.
func (s *Scheduler) Counters() map[string]int64 { return s.stats.Map() }

// Total sums the counts of every host whose scheduler is a STORM
// Scheduler (the minimum grant latency is the minimum over hosts).
func Total(hosts []*rnic.Host) Stats {
	var st Stats
	for _, h := range hosts {
		if s, ok := h.Scheduler().(*Scheduler); ok {
			st.add(s.stats)
		}
	}
	return st
}

// Counters is Total(hosts).Map(): the cluster's STORM counters for
// run.parquet.
func Counters(hosts []*rnic.Host) map[string]int64 { return Total(hosts).Map() }
