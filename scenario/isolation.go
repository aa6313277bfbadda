package scenario

import "github.com/dcsim/dcsim/engine"

// Isolation turns on congestion detection, ARNs and the Adapted Flow
// Channel (switch.isolation; package fabric/isolation, docs/model.md §10).
// Absent, switches have no detectors and nothing prints; present, its
// fields take these defaults.
type Isolation struct {
	// VCBuffer is the input buffer of one class at a port, the total of
	// its credits (docs/model.md §10.2: 64 KB per VC per port, ours).
	VCBuffer Size `yaml:"vc_buffer"`
	// HCDTh, LCDTh and FCTh are fractions of vc_buffer: the high and low
	// congestion-detection thresholds on an output queue's occupancy and
	// the free-credits threshold on the downstream input buffer
	// (docs/model.md §10.1: 50%, 25%, 50%).
	HCDTh float64 `yaml:"hcd_th"`
	LCDTh float64 `yaml:"lcd_th"`
	FCTh  float64 `yaml:"fc_th"`
	// CRT is the congestion root timer: how long the root condition must
	// hold (1 us).
	CRT Duration `yaml:"crt"`
	// ARN makes roots send adaptive routing notifications (true).
	ARN bool `yaml:"arn"`
	// AFCClass is the Adapted Flow Channel's class (7); 0 keeps adapted
	// packets in their class.
	AFCClass int `yaml:"afc_class"`
	// ARNEntryLifetime is how long a consumed ARN entry adapts packets
	// (100 us); ARNClearOnNormal makes a root that returns to normal
	// clear its entries (true).
	ARNEntryLifetime Duration `yaml:"arn_entry_lifetime"`
	ARNClearOnNormal bool     `yaml:"arn_clear_on_normal"`
	// AdaptGap is the silence after which a flow may move into or out of
	// the AFC at a switch (5 us, switch.routing's default flowlet gap):
	// moving a flow mid-flowlet reorders it, and the NIC's go-back-N
	// receiver answers each overtaking packet with a NACK. 0 moves
	// packets as soon as an entry matches, as the paper describes it.
	// FlowSlots is the size of each switch's table of flows (1024, 24 B
	// each: 17.7 MB on the 720 switches of a k = 24 fat-tree).
	AdaptGap  Duration `yaml:"adapt_gap"`
	FlowSlots int      `yaml:"flow_slots"`
	// AFI adapts, with no ARN, the data packets that adaptive routing at
	// a switch diverts from a next hop whose detector is a root or a
	// branch (the authors' earlier proposal; fabric/isolation doc.go).
	// Off by default; AFI alone is afi: true with arn: false.
	AFI bool `yaml:"afi,omitempty"`
	// CreditView is how a detector sees the downstream's free buffer (FCTh's
	// free credits): live, the downstream's buffer at the instant
	// (docs/model.md §10.1's mapping; the default, also when absent), or
	// delayed, as it was one link delay earlier: what the downstream can
	// have told the upstream over the link by then, as an InfiniBand
	// link's returned credits do. delayed is the same model on the
	// sequential and the parallel engine; live on the parallel engine reads
	// a switch in another unit as of the last window's end
	// (docs/parallel.md, "Congestion isolation on the World").
	CreditView string `yaml:"credit_view,omitempty"`
}

// CreditViews are switch.isolation.credit_view's values.
var CreditViews = []string{"live", "delayed"}

// DelayedCreditView reports whether detectors see the downstream's buffer
// one link delay late (credit_view: delayed); false without isolation.
func (c *Isolation) DelayedCreditView() bool { return c != nil && c.CreditView == "delayed" }

func defaultIsolation() *Isolation {
	return &Isolation{VCBuffer: Size(64 * engine.KB), HCDTh: 0.5, LCDTh: 0.25, FCTh: 0.5, CRT: Duration(engine.Microsecond),
		ARN: true, AFCClass: 7, ARNEntryLifetime: Duration(100 * engine.Microsecond), ARNClearOnNormal: true,
		AdaptGap: Duration(5 * engine.Microsecond), FlowSlots: 1024}
}

func (c *Isolation) setDefaults() { *c = *defaultIsolation() }

// Bytes is fraction f of the VC buffer in whole bytes.
func (c *Isolation) Bytes(f float64) int64 { return int64(f * float64(c.VCBuffer)) }

func (c *Isolation) validate(dataClass int) *FieldError {
	const p = "switch.isolation."
	if c == nil {
		return nil
	}
	if c.VCBuffer <= 0 {
		return fieldErr(p+"vc_buffer", "must be positive, got %v", c.VCBuffer)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"hcd_th", c.HCDTh}, {"lcd_th", c.LCDTh}, {"fc_th", c.FCTh}} {
		if !(f.v >= 0 && f.v <= 1) {
			return fieldErr(p+f.name, "%v is not a fraction of vc_buffer in [0, 1]", f.v)
		}
	}
	if c.LCDTh > c.HCDTh {
		return fieldErr(p+"lcd_th", "%v is above hcd_th (%v)", c.LCDTh, c.HCDTh)
	}
	if fe := firstErr(nonNegativeTime(p+"crt", c.CRT, false), between(p+"afc_class", c.AFCClass, 0, Classes-1)); fe != nil {
		return fe
	}
	if c.AFCClass != 0 && c.AFCClass == dataClass {
		return fieldErr(p+"afc_class", "%d is nic.data_class: the AFC must be a class of its own", c.AFCClass)
	}
	if c.ARNEntryLifetime <= 0 || c.ARNEntryLifetime.T() == engine.Never {
		return fieldErr(p+"arn_entry_lifetime", "must be positive and finite, got %v", c.ARNEntryLifetime)
	}
	return firstErr(nonNegativeTime(p+"adapt_gap", c.AdaptGap, false), slotCount(p+"flow_slots", c.FlowSlots),
		optionalOneOf(p+"credit_view", "credit view", c.CreditView, CreditViews))
}

// Queueing is a static mapping of data packets onto classes
// (switch.queueing; fabric/isolation.QueueMap): the DBBM, vFtree and
// Flow2SL baselines of the ARN+AFI paper. Absent, data stays in
// nic.data_class.
type Queueing struct {
	// Scheme is dbbm (destination mod vcs), vftree (the destination's
	// leaf mod vcs) or flow2sl (a hash of source and destination mod vcs).
	Scheme string `yaml:"scheme"`
	// VCs is the number of classes, from nic.data_class up (2: the
	// classes AFI-based schemes have, regular and AFC).
	VCs int `yaml:"vcs"`
}

var queueSchemes = []string{"dbbm", "vftree", "flow2sl"}

func defaultQueueing() *Queueing { return &Queueing{Scheme: "dbbm", VCs: 2} }

func (q *Queueing) setDefaults() { *q = *defaultQueueing() }

func (q *Queueing) validate(dataClass int, iso *Isolation) *FieldError {
	const p = "switch.queueing."
	if q == nil {
		return nil
	}
	if fe := oneOf(p+"scheme", "queueing scheme", q.Scheme, queueSchemes); fe != nil {
		return fe
	}
	if fe := between(p+"vcs", q.VCs, 1, Classes-dataClass); fe != nil {
		return fe
	}
	if iso != nil && iso.AFCClass >= dataClass && iso.AFCClass < dataClass+q.VCs {
		return fieldErr(p+"vcs", "classes %d..%d include switch.isolation.afc_class %d", dataClass, dataClass+q.VCs-1, iso.AFCClass)
	}
	return nil
}

// Credit is credit-based flow control on every link into a switch
// (switch.credit; fabric/credit.go), the optional link mode of
// docs/model.md §10.1's mapping: per data class, the upstream port may
// send only into the free space of the switch's input buffer for that
// class, which returns one link delay after the packet leaves. No PFC
// frame is sent and nothing is dropped. Absent: PFC.
type Credit struct {
	// Bytes is each switch input's buffer per data class: 64KB, the
	// paper set-up's buffer per VC per port (docs/model.md §10.2), which is
	// also switch.isolation.vc_buffer's default.
	Bytes Size `yaml:"bytes"`
}

func defaultCredit() *Credit { return &Credit{Bytes: 64 * 1000} }

func (c *Credit) setDefaults() { *c = *defaultCredit() }

func (c *Credit) validate(pfc bool) *FieldError {
	const p = "switch.credit."
	if c == nil {
		return nil
	}
	if !pfc {
		return fieldErr("switch.credit", "needs switch.pfc: true (credits replace PFC on a lossless fabric; a lossy one has neither)")
	}
	if c.Bytes < 1 {
		return fieldErr(p+"bytes", "must be at least 1 B, got %d", int64(c.Bytes))
	}
	return nil
}
