package engine

import (
	"strings"
	"testing"
)

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Time
	}{
		{"0", 0}, {"1us", Microsecond}, {"1µs", Microsecond}, {"8200ns", 8200 * Nanosecond},
		{"80ps", 80}, {"1.5ms", 1500 * Microsecond}, {"10ms", 10 * Millisecond}, {"2s", 2 * Second},
		{"0.001ns", 1}, {" 5 us ", 5 * Microsecond}, {"0s", 0},
	} {
		got, err := ParseTime(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "10", "-1us", "1.2.3us", "1e3ns", "0.0001ns", "us", "10 furlongs", "1.us", "99999999999s"} {
		if got, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", bad, got)
		}
	}
}

func TestTimeStringRoundTrip(t *testing.T) {
	for _, v := range []Time{0, 1, 80, Nanosecond, 8200 * Nanosecond, Microsecond, 1500 * Microsecond, Second, 123456789} {
		got, err := ParseTime(v.String())
		if err != nil || got != v {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", v.String(), got, err, v)
		}
	}
}

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
	}{
		{"100Gbps", 100 * Gbps}, {"400G", 400 * Gbps}, {"2.5Gbps", 2500 * Mbps}, {"615Mbps", 615 * Mbps},
		{"1000Mb/s", Gbps}, {"1Tbps", Tbps}, {"20Kbps", 20 * Kbps}, {"7bps", 7},
	} {
		got, err := ParseRate(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if back, err := ParseRate(got.String()); err != nil || back != got {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", got.String(), back, err, got)
		}
	}
	for _, bad := range []string{"", "100", "0Gbps", "-1Gbps", "100Mbit", "fastbps"} {
		if got, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) = %v, want an error", bad, got)
		}
	}
}

func TestTxTime(t *testing.T) {
	for _, tc := range []struct {
		r    Rate
		n    int64
		want Time
	}{
		{100 * Gbps, 1, 80}, {400 * Gbps, 1, 20}, {100 * Gbps, 1048, 83840}, {25 * Gbps, 1, 320},
		{3 * Gbps, 1, 2667}, // 2666.67 ps rounds up
		{100 * Gbps, 1 << 40, Time(1<<40) * 80},
	} {
		if got := tc.r.TxTime(tc.n); got != tc.want {
			t.Errorf("%v.TxTime(%d) = %d ps, want %d", tc.r, tc.n, got, tc.want)
		}
	}
	if got := (100 * Gbps).BytesIn(Microsecond); got != 12500 {
		t.Errorf("BytesIn(1us) at 100G = %d, want 12500", got)
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1000", 1000}, {"1000B", 1000}, {"400KB", 400000}, {"32MiB", 33554432}, {"4KiB", 4096},
		{"1.5MB", 1500000}, {"2GB", 2e9}, {"1GiB", 1 << 30},
	} {
		got, err := ParseSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if back, err := ParseSize(FormatSize(got)); err != nil || back != got {
			t.Errorf("ParseSize(FormatSize(%d)=%q) = %d, %v", got, FormatSize(got), back, err)
		}
	}
	for _, bad := range []string{"", "-1", "1.5B", "10 MBs", "KB", "0.1KiB"} {
		if got, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", bad, got)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"1us", "0", "1.5ms", "80ps", "-1s", "1e9ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseTime(s)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("ParseTime(%q) = %d < 0", s, v)
		}
		if back, err := ParseTime(v.String()); err != nil || back != v {
			t.Fatalf("round trip of %q: %v -> %q -> %v, %v", s, v, v.String(), back, err)
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"100Gbps", "2.5G", "1000Mb/s", "0bps"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		if err != nil {
			return
		}
		if v <= 0 {
			t.Fatalf("ParseRate(%q) = %d <= 0", s, v)
		}
		if back, err := ParseRate(v.String()); err != nil || back != v {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"32MiB", "400KB", "1000", "1.5MB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("ParseSize(%q) = %d < 0", s, v)
		}
		if back, err := ParseSize(FormatSize(v)); err != nil || back != v {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}

// PsPerByte is exact where it is not zero: n bytes take n*PsPerByte = TxTime(n).
func TestPsPerByte(t *testing.T) {
	for _, r := range []Rate{25 * Gbps, 40 * Gbps, 100 * Gbps, 400 * Gbps, 1 * Tbps, 3 * Gbps, 7, 8 * Tbps, 9 * Tbps} {
		pb := r.PsPerByte()
		for _, n := range []int64{1, 64, 1048, 9216} {
			if pb != 0 && Time(n)*pb != r.TxTime(n) {
				t.Fatalf("%v: %d B: PsPerByte %v * n != TxTime %v", r, n, pb, r.TxTime(n))
			}
		}
		if exact := (8*uint64(Second))%uint64(r) == 0; exact != (pb != 0) {
			t.Fatalf("%v: PsPerByte %v, exact %v", r, pb, exact)
		}
	}
}

func TestSatAdd(t *testing.T) {
	for _, tc := range []struct{ a, b, want Time }{
		{1, 2, 3}, {0, Never, Never}, {Millisecond, Never, Never}, {Never, 0, Never},
		{MaxSpan, MaxSpan, 2 * MaxSpan}, {Never - 1, 1, Never}, {Never - 1, 2, Never},
	} {
		if got := SatAdd(tc.a, tc.b); got != tc.want {
			t.Errorf("SatAdd(%d, %d): got %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// A number that is not plain decimal digits says what it is instead
// (issue 27, item 9: 100_000ns and NaNs said "exponent notation").
func TestParseTimeNotDecimal(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"100_000ns", `bad duration "100_000ns": digit separators (_) are not accepted: write 100000`},
		{"NaNs", `bad duration "NaNs": not a number (NaN)`},
		{"infs", `bad duration "infs": not a finite number`},
		{"1e3ns", `bad duration "1e3ns": exponent notation is not accepted: write the digits`},
		{"0x10ns", `bad duration "0x10ns": not a decimal number`},
		{"1,5us", `bad duration "1,5us": not a decimal number`},
	} {
		_, err := ParseTime(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseTime(%q): got %v, want %s", tc.in, err, tc.want)
		}
	}
	if _, err := ParseSize("1_000KB"); err == nil || !strings.Contains(err.Error(), "digit separators") {
		t.Errorf("ParseSize(1_000KB): got %v, want digit separators named", err)
	}
}
