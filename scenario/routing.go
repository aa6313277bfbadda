package scenario

import "github.com/dcsim/dcsim/engine"

// Routing kinds. The catalog's Routers list those a program has; these
// are the built-in ones whose knobs the schema knows.
const (
	RoutingECMP     = "ecmp"
	RoutingAdaptive = "adaptive"
	// RoutingSpray is per-packet spraying: every packet takes a uniformly
	// drawn equal-cost next hop (fabric.Spray, stream "spray").
	RoutingSpray = "spray"
)

// RouterKind is the schema of one routing function that
// switch.routing.kind may name: how a switch picks among equal-cost next
// hops.
type RouterKind struct {
	Name string
	Doc  string
	// PerPacket says that it may send a QP's consecutive packets on
	// different paths, so they arrive out of order: it needs a selective
	// NIC receiver.
	PerPacket bool
	// Diverts says that it moves packets off the flow hash's path, which
	// is what AFI (switch.isolation.afi) acts on.
	Diverts bool
	// Impl is the composition root's own descriptor (its constructor);
	// scenario never looks into it.
	Impl any
}

// Router returns the routing kind called name.
func (c *Catalog) Router(name string) (RouterKind, bool) {
	for _, r := range c.Routers {
		if r.Name == name {
			return r, true
		}
	}
	return RouterKind{}, false
}

// Routing replaces the compat profile's router (switch.routing). Absent,
// the switches route by the profile's ECMP, and the scenario prints as it
// did before the field existed; present, its fields take these defaults.
type Routing struct {
	// Kind is ecmp (per-flow, the default's hash) or adaptive: per
	// flowlet, the up port with the least egress occupancy
	// (fabric.Adaptive).
	Kind string `yaml:"kind"`
	// FlowletGap is the silence after which a flow may change port. It
	// must be positive unless nic.receiver is selective: per-packet
	// adaptive routing (a gap of 0) reorders a QP's packets, which only a
	// selective-repeat receiver keeps.
	// The default, 5 us, is the time a 100 Gbps port takes to drain the
	// 64 KB VC buffer of the ARN+AFI set-up (docs/model.md §10.2), so a
	// flowlet moved off a full queue does not overtake its predecessor.
	FlowletGap Duration `yaml:"flowlet_gap"`
	// FlowletSlots is the size of each switch's flowlet table, a power
	// of two (flows hashed into one slot share a flowlet).
	FlowletSlots int `yaml:"flowlet_slots"`
}

func defaultRouting() *Routing {
	return &Routing{Kind: RoutingAdaptive, FlowletGap: Duration(5 * engine.Microsecond), FlowletSlots: 4096}
}

func (r *Routing) setDefaults() { *r = *defaultRouting() }

// validate checks the fields; selective reports a selective-repeat NIC
// receiver, which allows per-packet adaptive routing.
func (r *Routing) validate(c *Catalog, selective bool) *FieldError {
	const p = "switch.routing."
	if r == nil {
		return nil
	}
	names := make([]string, len(c.Routers))
	for i, k := range c.Routers {
		names[i] = k.Name
	}
	if fe := oneOf(p+"kind", "routing kind", r.Kind, names); fe != nil {
		return fe
	}
	if k, _ := c.Router(r.Kind); k.PerPacket && !selective {
		return fieldErr(p+"kind", "%s reorders a QP's packets; it needs a selective nic.receiver (selective, ooo-eager or ooo-ordered)", r.Kind)
	}
	if r.Kind == RoutingAdaptive && r.FlowletGap <= 0 && !selective {
		return fieldErr(p+"flowlet_gap", "must be positive, got %v: per-packet adaptive routing reorders a QP's packets; it needs nic.receiver: selective", r.FlowletGap)
	}
	return firstErr(nonNegativeTime(p+"flowlet_gap", r.FlowletGap, false), slotCount(p+"flowlet_slots", r.FlowletSlots))
}

// maxSlots bounds a per-switch table indexed by hash bits: 2^20 slots (16
// to 24 MiB a switch) is beyond a switch ASIC's flowlet table (CONGA and
// LetFlow keep 64K). Every switch has one, so the tables' total is also
// part of the topology's footprint (validateTables).
const maxSlots = 1 << 20

// slotCount checks the size of a per-switch table indexed by hash bits.
func slotCount(path string, n int) *FieldError {
	if n < 1 || n > maxSlots || n&(n-1) != 0 {
		return fieldErr(path, "must be a power of two in [1, 2^20], got %d", n)
	}
	return nil
}
