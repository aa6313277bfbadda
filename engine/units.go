package engine

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Time is simulated time in integer picoseconds. At 100 Gbps one byte takes
// exactly 80 ps, so serialization times of whole bytes are exact at every
// common link rate.
type Time int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000 * Picosecond
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
	// Never is a time after every event; it marks "no deadline".
	Never Time = math.MaxInt64
	// MaxSpan is the longest finite span a scenario may give (2^61 ps,
	// about 26.7 days). Any two such spans and a clock within two of them
	// still add up below Never, so deadlines such as duration + drain_limit
	// or now + timeout cannot overflow int64.
	MaxSpan Time = 1 << 61
)

// SatAdd returns a + b for non-negative a and b, saturating at Never: a
// deadline computed from a "never" span stays Never instead of wrapping
// negative.
func SatAdd(a, b Time) Time {
	if b > Never-a {
		return Never
	}
	return a + b
}

// Nanoseconds returns t in ns, truncated toward zero.
func (t Time) Nanoseconds() int64 { return int64(t / Nanosecond) }

// Seconds returns t in seconds as a float, for reporting only.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// namedUnit is a unit of a quantity and its name in the scenario forms.
type namedUnit[T ~int64] struct {
	name string
	unit T
}

var timeUnits = []namedUnit[Time]{{"s", Second}, {"ms", Millisecond}, {"us", Microsecond}, {"ns", Nanosecond}, {"ps", Picosecond}}

// String prints t in the largest unit that represents it exactly, e.g.
// "1us", "8200ns", "80ps"; zero prints "0s". ParseTime reads it back.
func (t Time) String() string {
	if t == Never {
		return "never"
	}
	if t == 0 {
		return "0s"
	}
	return formatExact(t, timeUnits)
}

// formatExact prints v in the largest of units (largest first, the last
// one 1) that divides it.
func formatExact[T ~int64](v T, units []namedUnit[T]) string {
	for _, u := range units {
		if v%u.unit == 0 {
			return strconv.FormatInt(int64(v/u.unit), 10) + u.name
		}
	}
	panic("engine: a unit list must end with the unit 1")
}

// ParseTime reads a duration such as "1us", "1.5ms", "8200ns", "80ps" or
// "0". A bare number other than 0 is rejected: the unit is required so that
// a scenario never means ns where it says ps. "µs" is accepted for "us".
func ParseTime(s string) (Time, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	s2 := strings.Replace(s, "µs", "us", 1)
	for _, u := range []struct {
		name string
		unit Time
	}{{"ps", Picosecond}, {"ns", Nanosecond}, {"us", Microsecond}, {"ms", Millisecond}, {"s", Second}} {
		if !strings.HasSuffix(s2, u.name) {
			continue
		}
		num := strings.TrimSpace(strings.TrimSuffix(s2, u.name))
		if u.name == "s" && (strings.HasSuffix(num, "p") || strings.HasSuffix(num, "n") || strings.HasSuffix(num, "u") || strings.HasSuffix(num, "m")) {
			continue
		}
		if unit := trailingUnit(num); unit != "" {
			return 0, fmt.Errorf("bad duration %q: unknown unit %q (valid: ps, ns, us, ms, s)", s, unit+u.name)
		}
		v, err := scaleDecimal(num, int64(u.unit))
		if err != nil {
			return 0, fmt.Errorf("bad duration %q: %v", s, err)
		}
		return Time(v), nil
	}
	return 0, fmt.Errorf("bad duration %q: want a number with a unit (ps, ns, us, ms, s)", s)
}

// trailingUnit returns the letters after the number in num ("Ti" of
// "1Ti", "day" of "30day"), or "" when num ends in a digit or is empty.
func trailingUnit(num string) string {
	i := strings.LastIndexFunc(num, func(r rune) bool { return r >= '0' && r <= '9' || r == '.' })
	if i < 0 || i == len(num)-1 {
		return ""
	}
	return strings.TrimSpace(num[i+1:])
}

// notDecimal says what is wrong with num, which has a character other
// than a digit or one '.': strconv.ParseFloat reads more than the
// exponent notation a user may mean, and each of its forms gets its own
// reason.
func notDecimal(num string) error {
	lower := strings.ToLower(strings.TrimLeft(num, "+-"))
	switch {
	case lower == "nan":
		return fmt.Errorf("not a number (NaN)")
	case lower == "inf" || lower == "infinity":
		return fmt.Errorf("not a finite number")
	case strings.Contains(num, "_"):
		return fmt.Errorf("digit separators (_) are not accepted: write %s", strings.ReplaceAll(num, "_", ""))
	case strings.HasPrefix(lower, "0x") || strings.HasPrefix(lower, "0b") || strings.HasPrefix(lower, "0o"):
		return fmt.Errorf("not a decimal number")
	}
	if _, err := strconv.ParseFloat(num, 64); err == nil && strings.ContainsAny(lower, "e") {
		return fmt.Errorf("exponent notation is not accepted: write the digits")
	}
	return fmt.Errorf("not a decimal number")
}

// scaleDecimal parses a non-negative decimal number and multiplies it by
// unit exactly; the result must be an integer and fit in int64.
func scaleDecimal(num string, unit int64) (int64, error) {
	if num == "" {
		return 0, fmt.Errorf("missing number")
	}
	if strings.HasPrefix(num, "-") {
		return 0, fmt.Errorf("negative value")
	}
	num = strings.TrimPrefix(num, "+")
	intPart, frac, hasDot := strings.Cut(num, ".")
	if intPart == "" && frac == "" {
		return 0, fmt.Errorf("missing number")
	}
	for _, part := range []string{intPart, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return 0, notDecimal(num)
			}
		}
	}
	if hasDot && frac == "" {
		return 0, fmt.Errorf("not a decimal number")
	}
	var whole int64
	if intPart != "" {
		w, err := strconv.ParseInt(intPart, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("out of range")
		}
		whole = w
	}
	hi, lo := bits.Mul64(uint64(whole), uint64(unit))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, fmt.Errorf("out of range")
	}
	total := int64(lo)
	// Fractional digits: each must land on a whole multiple of the base unit.
	scale := unit
	for _, c := range frac {
		if scale%10 != 0 {
			if c != '0' {
				return 0, fmt.Errorf("finer than the smallest unit")
			}
			continue
		}
		scale /= 10
		add := int64(c-'0') * scale
		if total > math.MaxInt64-add {
			return 0, fmt.Errorf("out of range")
		}
		total += add
	}
	return total, nil
}

// Rate is a link or sending rate in bits per second.
type Rate int64

// Units of Rate (SI, powers of ten).
const (
	BitPerSecond Rate = 1
	Kbps         Rate = 1000
	Mbps         Rate = 1000 * Kbps
	Gbps         Rate = 1000 * Mbps
	Tbps         Rate = 1000 * Gbps
)

var rateUnits = []namedUnit[Rate]{{"Tbps", Tbps}, {"Gbps", Gbps}, {"Mbps", Mbps}, {"Kbps", Kbps}, {"bps", BitPerSecond}}

// String prints r like "100Gbps" or "615Mbps", exact.
func (r Rate) String() string {
	if r == 0 {
		return "0bps"
	}
	return formatExact(r, rateUnits)
}

// ParseRate reads "100Gbps", "2.5Gbps", "615Mbps", "1000Mb/s" or "400G".
// Units are SI: 1 Gbps = 10^9 b/s.
func ParseRate(s string) (Rate, error) {
	t := strings.TrimSpace(s)
	t = strings.Replace(t, "b/s", "bps", 1)
	for _, u := range rateUnits {
		for _, name := range []string{u.name, strings.TrimSuffix(u.name, "bps")} {
			if name == "" || !strings.HasSuffix(t, name) {
				continue
			}
			num := strings.TrimSpace(strings.TrimSuffix(t, name))
			v, err := scaleDecimal(num, int64(u.unit))
			if err != nil {
				return 0, fmt.Errorf("bad rate %q: %v", s, err)
			}
			if v == 0 {
				return 0, fmt.Errorf("bad rate %q: must be positive", s)
			}
			return Rate(v), nil
		}
	}
	return 0, fmt.Errorf("bad rate %q: want a number with a unit (bps, Kbps, Mbps, Gbps, Tbps)", s)
}

// TxTime is the serialization time of n bytes at rate r, rounded up to the
// next picosecond (exact for every rate that divides 8*10^12, e.g. 25, 50,
// 100, 200 and 400 Gbps).
func (r Rate) TxTime(n int64) Time {
	if r <= 0 {
		panic(fmt.Sprintf("engine: TxTime at non-positive rate %d", r))
	}
	hi, lo := bits.Mul64(uint64(n), 8*uint64(Second))
	q, rem := bits.Div64(hi, lo, uint64(r))
	if rem != 0 {
		q++
	}
	return Time(q)
}

// PsPerByte is the time one byte takes at rate r when that is a whole
// number of picoseconds (8*10^12 divisible by r: 80 ps at 100 Gbps), so
// that a hot path can multiply instead of divide; 0 otherwise.
func (r Rate) PsPerByte() Time {
	if r <= 0 || (8*uint64(Second))%uint64(r) != 0 {
		return 0
	}
	return Time(8 * uint64(Second) / uint64(r))
}

// BytesIn is the number of whole bytes rate r sends in d.
func (r Rate) BytesIn(d Time) int64 {
	hi, lo := bits.Mul64(uint64(d), uint64(r))
	q, _ := bits.Div64(hi, lo, 8*uint64(Second))
	return int64(q)
}

// Size units. KB, MB, GB are SI (10^3...); KiB, MiB, GiB are IEC (2^10...).
const (
	KB  int64 = 1000
	MB  int64 = 1000 * KB
	GB  int64 = 1000 * MB
	KiB int64 = 1024
	MiB int64 = 1024 * KiB
	GiB int64 = 1024 * MiB
)

var sizeUnits = []struct {
	name string
	unit int64
}{{"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB}, {"GB", GB}, {"MB", MB}, {"KB", KB}, {"B", 1}}

// ParseSize reads a byte count: "1000", "1000B", "400KB" (400,000 B),
// "32MiB" (33,554,432 B), "1.5MB". KB is 1000 bytes; KiB is 1024.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.name) {
			num := strings.TrimSpace(strings.TrimSuffix(t, u.name))
			if unit := trailingUnit(num); unit != "" {
				return 0, fmt.Errorf("bad size %q: unknown unit %q (valid: B, KB, KiB, MB, MiB, GB, GiB)", s, unit+u.name)
			}
			v, err := scaleDecimal(num, u.unit)
			if err != nil {
				return 0, fmt.Errorf("bad size %q: %v", s, err)
			}
			return v, nil
		}
	}
	v, err := scaleDecimal(t, 1)
	if err != nil {
		return 0, fmt.Errorf("bad size %q: want bytes with an optional unit (B, KB, KiB, MB, MiB, GB, GiB)", s)
	}
	return v, nil
}

// FormatSize prints n bytes in the largest unit that divides it exactly,
// preferring IEC units for powers of two ("32MiB", "400KB", "1000B").
func FormatSize(n int64) string {
	if n == 0 {
		return "0B"
	}
	for _, u := range sizeUnits {
		if n%u.unit == 0 && n/u.unit > 0 {
			return strconv.FormatInt(n/u.unit, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// MulDiv is a*b/c for non-negative a, b and positive c, truncated, with a
// 128-bit intermediate; it saturates at MaxInt64. Byte-time products
// (bytes * 8 * 10^9 / rate, ns * rate / 10^9) overflow 64 bits for sizes
// and times the model otherwise represents.
func MulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}
