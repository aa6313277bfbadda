package storm

import "testing"

func TestAnnounceRoundTrip(t *testing.T) {
	for _, a := range []announce{
		{kindSmall, 0, 0, 0},
		{kindBig, 65535, 1023, remUnknown - 1},
		{kindBig, 17, 5, 123456789},
	} {
		if got := decodeAnnounce(a.encode()); got != a {
			t.Errorf("decode(encode(%+v)) = %+v", a, got)
		}
	}
	// Saturation: a backlog above 1023 reads 1023, a remainder beyond the
	// field reads "unknown".
	got := decodeAnnounce(announce{kindBig, 1, 5000, 1 << 40}.encode())
	if got.backlog != maxWireBacklog || got.remAfter != remUnknown {
		t.Errorf("saturated announce decodes to %+v, want backlog %d and remAfter unknown", got, maxWireBacklog)
	}
	for _, g := range []grantArg{{0, 0, false}, {7, 65535, true}, {3, 12, false}} {
		if got := decodeGrant(g.encode()); got != g {
			t.Errorf("decodeGrant(encode(%+v)) = %+v", g, got)
		}
	}
}

// FuzzDecodeAnnounce: any Arg decodes to fields within their ranges, and
// re-encoding a decoded value is stable.
func FuzzDecodeAnnounce(f *testing.F) {
	f.Add(int64(0))
	f.Add(int64(-1))
	f.Add(announce{kindBig, 9, 3, 1000}.encode())
	f.Fuzz(func(t *testing.T, arg int64) {
		a := decodeAnnounce(arg)
		if a.kind > 3 || a.backlog < 0 || a.backlog > maxWireBacklog || a.remAfter < 0 || a.remAfter > remUnknown {
			t.Fatalf("decodeAnnounce(%#x) = %+v out of range", arg, a)
		}
		if b := decodeAnnounce(a.encode()); b != a {
			t.Fatalf("re-encoding %+v gives %+v", a, b)
		}
		g := decodeGrant(arg)
		if h := decodeGrant(g.encode()); h != g {
			t.Fatalf("re-encoding grant %+v gives %+v", g, h)
		}
	})
}
