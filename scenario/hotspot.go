package scenario

import "github.com/dcsim/dcsim/engine"

// HotSpotParams are the fields of a hotspot workload (cloud.HotSpots): a
// fraction of workload.hosts, split over trees destinations, each offering
// its full line rate to its tree's destination from start until stop.
// H10 is {fraction: 0.1, trees: 1}, H25-4 {fraction: 0.25, trees: 4}.
type HotSpotParams struct {
	Fraction float64  `yaml:"fraction"`
	Trees    int      `yaml:"trees"`
	FlowSize Size     `yaml:"flow_size"`
	Start    Duration `yaml:"start"`
	// Stop is when the senders stop posting; 0 means duration.
	Stop Duration `yaml:"stop"`
}

func defaultHotSpot() *HotSpotParams {
	return &HotSpotParams{Fraction: 0.1, Trees: 1, FlowSize: Size(1 * engine.MB), Start: Duration(100 * engine.Microsecond)}
}

func (p *HotSpotParams) validate(at WorkloadCheck) *FieldError {
	prefix := at.Prefix + "hotspot."
	switch {
	case !(p.Fraction > 0 && p.Fraction < 1):
		return fieldErr(prefix+"fraction", "%v is not in (0, 1)", p.Fraction)
	case p.Trees < 1:
		return fieldErr(prefix+"trees", "must be at least 1, got %d", p.Trees)
	case p.FlowSize < 1:
		return fieldErr(prefix+"flow_size", "must be at least 1 B, got %d", int64(p.FlowSize))
	}
	if fe := firstErr(nonNegativeTime(prefix+"start", p.Start, false), nonNegativeTime(prefix+"stop", p.Stop, false)); fe != nil {
		return fe
	}
	if p.Stop > 0 && p.Stop < p.Start {
		return fieldErr(prefix+"stop", "%v is before start (%v)", p.Stop, p.Start)
	}
	if !at.Known {
		return nil
	}
	per := int(p.Fraction*float64(len(at.Hosts))+0.5) / p.Trees
	if per < 1 || p.Trees*(per+1) > len(at.Hosts) {
		return fieldErr(prefix+"fraction", "%d senders per tree for %d trees among %d hosts", per, p.Trees, len(at.Hosts))
	}
	return nil
}
