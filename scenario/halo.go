package scenario

import "github.com/dcsim/dcsim/engine"

// Halo is the workload kind of the one-sided ring-buffer halo exchange.
const Halo = "halo"

// HaloParams are the fields of a halo workload (workloads/halo): ranks on
// an x*y*z grid, rank r on the r-th of workload.hosts, each ordered pair
// of face neighbours exchanging particles through a ring buffer at the
// receiver (docs/model.md §9.2).
type HaloParams struct {
	X        int  `yaml:"x"`
	Y        int  `yaml:"y"`
	Z        int  `yaml:"z"`
	Periodic bool `yaml:"periodic"`
	// Particles is what each ordered pair sends in all.
	Particles     int64 `yaml:"particles"`
	Batch         int64 `yaml:"batch"`
	ParticleBytes Size  `yaml:"particle_bytes"`
	RingCapacity  int64 `yaml:"ring_capacity"`
	// PollInterval is the receiver's polling period, and the sender's
	// wait before it reads a full ring's head again.
	PollInterval Duration `yaml:"poll_interval"`
	Start        Duration `yaml:"start"`
	// TwoSided sends each batch as one SEND (two-sided SEND/RECV).
	TwoSided bool `yaml:"two_sided"`
	// DMADelay is when a DMA write into host memory becomes visible after
	// the NIC placed it; RelaxedOrdering adds an independent delay drawn
	// uniformly from [0, relaxed_max) per write (PCIe relaxed ordering).
	DMADelay        Duration `yaml:"dma_delay"`
	RelaxedOrdering bool     `yaml:"relaxed_ordering"`
	RelaxedMax      Duration `yaml:"relaxed_max"`
}

func defaultHalo() *HaloParams {
	return &HaloParams{X: 2, Y: 2, Z: 2, Particles: 4096, Batch: 64, ParticleBytes: 128, RingCapacity: 4096,
		PollInterval: Duration(engine.Microsecond), RelaxedMax: Duration(engine.Microsecond)}
}

// Bounds on what a halo workload allocates and does: a ring of
// ring_capacity slots (32 B each) per ordered pair of face neighbours
// (at most 6 per rank), and a receiver's poll every poll_interval while
// the run lasts. The built-in halo has 16 ranks with rings of 4,096 slots.
const (
	haloMaxSide  = 1 << 20
	haloMaxRanks = 1 << 22
	haloMaxSlots = 1 << 26 // 2 GiB of ring slots
)

func (p *HaloParams) validate(at WorkloadCheck) *FieldError {
	prefix := at.Prefix + "halo."
	for _, f := range []struct {
		name string
		v    int64
	}{{"x", int64(p.X)}, {"y", int64(p.Y)}, {"z", int64(p.Z)}, {"batch", p.Batch},
		{"particle_bytes", int64(p.ParticleBytes)}, {"ring_capacity", p.RingCapacity}} {
		if f.v < 1 {
			return fieldErr(prefix+f.name, "must be at least 1, got %d", f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"x", p.X}, {"y", p.Y}, {"z", p.Z}} {
		if f.v > haloMaxSide {
			return fieldErr(prefix+f.name, "%d is above the limit of %d", f.v, haloMaxSide)
		}
	}
	ranks := int64(p.X) * int64(p.Y) * int64(p.Z)
	if ranks > haloMaxRanks {
		return fieldErr(prefix+"x", "a %dx%dx%d grid has more than %d ranks", p.X, p.Y, p.Z, haloMaxRanks)
	}
	if p.RingCapacity > haloMaxSlots/(6*ranks) {
		return fieldErr(prefix+"ring_capacity", "%d slots in each of up to %d rings are more than the limit of %d",
			p.RingCapacity, 6*ranks, haloMaxSlots)
	}
	switch {
	case p.Particles < 0:
		return fieldErr(prefix+"particles", "must not be negative, got %d", p.Particles)
	case p.PollInterval > 0 && p.PollInterval < Duration(engine.Nanosecond):
		return fieldErr(prefix+"poll_interval", "%v is below the limit of 1ns (a poll of host memory takes far longer)", p.PollInterval)
	case p.Batch > p.RingCapacity:
		return fieldErr(prefix+"batch", "%d is more than ring_capacity (%d)", p.Batch, p.RingCapacity)
	case p.PollInterval <= 0:
		return fieldErr(prefix+"poll_interval", "must be positive, got %v", p.PollInterval)
	case p.RelaxedOrdering && p.RelaxedMax <= 0:
		return fieldErr(prefix+"relaxed_max", "must be positive with relaxed_ordering, got %v", p.RelaxedMax)
	case ranks < 2:
		return fieldErr(prefix+"x", "a %dx%dx%d grid has fewer than 2 ranks", p.X, p.Y, p.Z)
	}
	if fe := firstErr(nonNegativeTime(prefix+"start", p.Start, false), nonNegativeTime(prefix+"dma_delay", p.DMADelay, false)); fe != nil {
		return fe
	}
	if at.Known && ranks > int64(len(at.Hosts)) {
		return fieldErr(prefix+"x", "a %dx%dx%d grid needs %d hosts, workload.hosts has %d", p.X, p.Y, p.Z, ranks, len(at.Hosts))
	}
	return nil
}
