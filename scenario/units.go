package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/engine"
	"go.yaml.in/yaml/v3"
)

// Duration is an engine.Time that reads and prints with a unit: "10ms",
// "1us", "8200ns", "0s". A bare number other than 0 is an error, so a
// scenario never means ns where it says ps. "never" is engine.Never.
type Duration engine.Time

// Rate is an engine.Rate (bit/s) that reads and prints with a unit:
// "100Gbps", "615Mbps", "2.5Gbps". Units are SI: 1 Gbps = 10^9 b/s.
type Rate engine.Rate

// Size is a byte count that reads and prints with a unit: "32MiB",
// "400KB", "4KiB", "1000B" or a bare number of bytes. KB = 1000 B,
// KiB = 1024 B (docs/design.md "Model rules").
type Size int64

// T returns d as an engine.Time.
func (d Duration) T() engine.Time { return engine.Time(d) }

// R returns r as an engine.Rate.
func (r Rate) R() engine.Rate { return engine.Rate(r) }

// Bytes returns s as a byte count.
func (s Size) Bytes() int64 { return int64(s) }

func (d Duration) String() string { return engine.Time(d).String() }
func (r Rate) String() string     { return engine.Rate(r).String() }
func (s Size) String() string {
	if s < 0 {
		return strconv.FormatInt(int64(s), 10) + "B"
	}
	return engine.FormatSize(int64(s))
}

// MarshalYAML prints d with its unit.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalYAML prints r with its unit.
func (r Rate) MarshalYAML() (any, error) { return r.String(), nil }

// MarshalYAML prints s with its unit.
func (s Size) MarshalYAML() (any, error) { return s.String(), nil }

// UnmarshalYAML reads a duration with a unit.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	return readScalar(n, d, func(v string) (Duration, error) { t, err := parseTime(v); return Duration(t), err })
}

// UnmarshalYAML reads a rate with a unit.
func (r *Rate) UnmarshalYAML(n *yaml.Node) error {
	return readScalar(n, r, func(v string) (Rate, error) { x, err := parseRate(v); return Rate(x), err })
}

// UnmarshalYAML reads a byte count with an optional unit.
func (s *Size) UnmarshalYAML(n *yaml.Node) error {
	return readScalar(n, s, func(v string) (Size, error) {
		x, err := engine.ParseSize(v)
		if err == nil && x > MaxBytes {
			err = fmt.Errorf("size %q is larger than 1 PiB (2^50 B), beyond what the model's byte arithmetic holds", v)
		}
		return Size(x), err
	})
}

// readScalar sets *dst to parse of n's text, leaving it as it was when n
// is not a single value or parse fails.
func readScalar[T any](n *yaml.Node, dst *T, parse func(string) (T, error)) error {
	v, err := scalarValue(n)
	if err != nil {
		return err
	}
	x, err := parse(v)
	if err != nil {
		return err
	}
	*dst = x
	return nil
}

// parseTime is engine.ParseTime plus "never", which engine.Time.String
// prints for engine.Never.
func parseTime(s string) (engine.Time, error) {
	if strings.TrimSpace(s) == "never" {
		return engine.Never, nil
	}
	t, err := engine.ParseTime(s)
	if err == nil && t > engine.MaxSpan {
		return 0, fmt.Errorf("bad duration %q: longer than the longest span dcsim can add without overflow, 2^61 ps (about 26.7 days)", s)
	}
	return t, err
}

// parseRate is engine.ParseRate, except that a zero rate ("0", "0bps")
// parses to 0 so that every rate prints back to text that reads; fields
// that need a positive rate say so in Validate, naming the field.
func parseRate(s string) (engine.Rate, error) {
	r, err := engine.ParseRate(s)
	if err == nil {
		return r, nil
	}
	t := strings.TrimSpace(s)
	for _, unit := range []string{"Tbps", "Gbps", "Mbps", "Kbps", "bps", "Tb/s", "Gb/s", "Mb/s", "Kb/s", "b/s", "T", "G", "M", "K"} {
		if num, ok := strings.CutSuffix(t, unit); ok {
			t = strings.TrimSpace(num)
			break
		}
	}
	if isDecimalZero(t) {
		return 0, nil
	}
	return 0, err
}

// isDecimalZero matches "0", "00", "0.0" and the like.
func isDecimalZero(s string) bool {
	whole, frac, _ := strings.Cut(s, ".")
	return whole != "" && strings.Trim(whole, "0") == "" && strings.Trim(frac, "0") == "" && !strings.HasSuffix(s, ".")
}

// scalarValue returns the text of a scalar node, or an error naming what
// was found instead.
func scalarValue(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("want a single value, got %s", NodeKind(n))
	}
	return n.Value, nil
}

// QPMapping says how the RNIC maps messages onto queue pairs
// (docs/model.md §6.1). It reads and prints as "per-flow" (one QP per
// message, the reference model's), "per-pair" (one QP per ordered host
// pair, pool:1) or "pool:K" (K QPs per ordered host pair; messages queue
// FIFO on their QP).
type QPMapping struct {
	// Pool is the number of QPs per ordered host pair; 0 means per-flow.
	Pool int
}

// PerFlow reports whether every message gets its own QP.
func (m QPMapping) PerFlow() bool { return m.Pool == 0 }

func (m QPMapping) String() string {
	switch {
	case m.Pool == 0:
		return "per-flow"
	case m.Pool == 1:
		return "per-pair"
	}
	return "pool:" + strconv.Itoa(m.Pool)
}

// ParseQPMapping reads "per-flow", "per-pair" or "pool:K" with K >= 1.
func ParseQPMapping(s string) (QPMapping, error) {
	switch s {
	case "per-flow":
		return QPMapping{}, nil
	case "per-pair":
		return QPMapping{Pool: 1}, nil
	}
	if k, ok := strings.CutPrefix(s, "pool:"); ok {
		n, err := strconv.Atoi(k)
		if err != nil {
			return QPMapping{}, fmt.Errorf("bad pool size %q in %q: want pool:K with K a positive integer", k, s)
		}
		if n < 1 {
			return QPMapping{}, fmt.Errorf("%q: the pool size must be at least 1", s)
		}
		return QPMapping{Pool: n}, nil
	}
	return QPMapping{}, fmt.Errorf("unknown mapping %q (valid: per-flow, per-pair, pool:K)", s)
}

// MarshalYAML prints the mapping's name.
func (m QPMapping) MarshalYAML() (any, error) { return m.String(), nil }

// UnmarshalYAML reads the mapping's name.
func (m *QPMapping) UnmarshalYAML(n *yaml.Node) error { return readScalar(n, m, ParseQPMapping) }

// HostSet selects hosts by index: "all", or a comma-separated list of
// host indices and inclusive ranges, e.g. "0-15,32,40-47". Hosts are
// numbered from 0 in topology order (for spine-leaf, leaf by leaf).
type HostSet string

// AllHosts selects every host.
const AllHosts HostSet = "all"

// maxHosts bounds every host count and index: far beyond what a
// packet-level run can simulate, small enough that host lists fit memory.
const maxHosts = 1 << 20

// Resolve returns the selected host indices in ascending order for a
// topology of n hosts. Indices must be below n and appear once.
func (h HostSet) Resolve(n int) ([]int, error) {
	if h == AllHosts {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	ranges, err := h.ranges()
	if err != nil {
		return nil, err
	}
	for _, r := range ranges {
		if r[1] >= n {
			return nil, fmt.Errorf("host %d does not exist (the topology has %d hosts)", r[1], n)
		}
	}
	seen := make([]bool, n)
	var out []int
	for _, r := range ranges {
		for i := r[0]; i <= r[1]; i++ {
			if seen[i] {
				return nil, fmt.Errorf("host %d is listed twice", i)
			}
			seen[i] = true
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out, nil
}

// ranges parses the list form into inclusive [lo, hi] pairs, checking only
// syntax and the global bound.
func (h HostSet) ranges() ([][2]int, error) {
	if h == AllHosts {
		return nil, nil
	}
	s := strings.TrimSpace(string(h))
	if s == "" {
		return nil, errors.New(`empty host set (want "all" or a list such as "0-15,32")`)
	}
	var out [][2]int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := hostIndex(lo)
		if err != nil {
			return nil, fmt.Errorf("bad host %q in %q: %v", part, s, err)
		}
		b := a
		if isRange {
			if b, err = hostIndex(hi); err != nil {
				return nil, fmt.Errorf("bad host range %q in %q: %v", part, s, err)
			}
			if b < a {
				return nil, fmt.Errorf("bad host range %q in %q: the end is below the start", part, s)
			}
		}
		out = append(out, [2]int{a, b})
	}
	return out, nil
}

func hostIndex(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("missing number")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, errors.New("not a host index")
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n >= maxHosts {
		return 0, fmt.Errorf("index above the limit of %d hosts", maxHosts)
	}
	return n, nil
}

// MaxBytes bounds every size in a scenario (1 PiB): buffers, thresholds
// and message sizes are int64 bytes that the model scales by port rates
// (up to 16x from 100 Gbps) and multiplies by 8 bits, so a size near the
// int64 limit would overflow inside it (a lossy switch with a
// 9223372036854775807 B buffer dropped every packet).
const MaxBytes = 1 << 50
