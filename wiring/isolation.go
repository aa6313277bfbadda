package wiring

import (
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/fabric/isolation"
	"github.com/dcsim/dcsim/scenario"
)

// queueMap wraps the router in fcfg with switch.queueing's class map,
// and returns it (nil without); Bind it once the network is built.
func queueMap(s *scenario.Scenario, fcfg *fabric.Config) (*isolation.QueueMap, error) {
	q := s.Switch.Queueing
	if q == nil {
		return nil, nil
	}
	m, err := isolation.NewQueueMap(q.Scheme, fcfg.Router, uint8(s.NIC.DataClass), q.VCs)
	if err != nil {
		return nil, err
	}
	fcfg.Router = m
	return m, nil
}

// isolationRouter wraps the router in fcfg with ARN tables when the
// scenario has switch.isolation, and returns the wrapper (nil without).
func isolationRouter(s *scenario.Scenario, fcfg *fabric.Config) *isolation.Router {
	if s.Switch.Isolation == nil {
		return nil
	}
	r := isolation.NewRouter(fcfg.Router)
	fcfg.Router = r
	return r
}

// installIsolation puts detectors and ARN tables on net's switches.
func installIsolation(s *scenario.Scenario, net *fabric.Network, r *isolation.Router) (*isolation.Isolation, error) {
	if r == nil {
		return nil, nil
	}
	c := s.Switch.Isolation
	iso, err := isolation.Install(net, isolation.Config{
		Thresholds: isolation.Thresholds{HCDTh: c.Bytes(c.HCDTh), LCDTh: c.Bytes(c.LCDTh), FCTh: c.Bytes(c.FCTh),
			CRT: engine.Time(c.CRT)},
		VCBuffer: int64(c.VCBuffer), ARN: c.ARN, AFC: uint8(c.AFCClass),
		EntryLifetime: engine.Time(c.ARNEntryLifetime), ClearOnNormal: c.ARNClearOnNormal,
		AdaptGap: engine.Time(c.AdaptGap), FlowSlots: c.FlowSlots, AFI: c.AFI, DelayedView: c.DelayedCreditView(),
	})
	if err != nil {
		return nil, err
	}
	r.Bind(iso)
	return iso, nil
}

// isolationCounters adds the isolation counters to run.parquet's map.
func isolationCounters(iso *isolation.Isolation, into map[string]int64) {
	if iso == nil {
		return
	}
	k := iso.Counts()
	for name, v := range map[string]int64{
		"isolation_roots": k.Roots, "isolation_branches": k.Branches, "isolation_normals": k.Normals,
		"arn_generated": k.Generated, "arn_clears": k.Clears, "arn_refreshes": k.Refreshes, "arn_sent": k.Sent,
		"arn_received": k.Received, "arn_consumed": k.Consumed, "arn_forwarded": k.Forwarded,
		"arn_duplicates": k.Duplicates, "arn_dropped": k.Dropped, "arn_expired": k.Expired, "arn_removed": k.Removed,
		"afc_adapted_packets": k.Adapted,
	} {
		into[name] = v
	}
	if iso.Config().AFI {
		into["afi_diverted"] = k.Diverted
	}
}

// creditCounters adds credit_stalls and credit_overdraft_bytes when the
// links run credit-based flow control (switch.credit).
func creditCounters(net *fabric.Network, into map[string]int64) {
	if net.Config().Credits <= 0 {
		return
	}
	into["credit_stalls"], into["credit_overdraft_bytes"] = net.CreditCounters()
}
