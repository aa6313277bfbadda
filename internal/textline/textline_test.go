package textline

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// A line of MaxLine bytes reads; one byte more fails, at its line number,
// through Limit and through NewScanner alike.
func TestLongLine(t *testing.T) {
	ok := strings.Repeat("x", MaxLine)
	for _, tc := range []struct {
		in   string
		line int // of the long line; 0 when none
	}{
		{"a\n" + ok + "\nb\n", 0},
		{"a\n" + ok + "\r\nb\n", 2}, // a \r is a byte of its line
		{ok, 0},
		{"a\nb\n" + ok + "x\nc\n", 3},
		{ok + "x", 1},
	} {
		for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.HalfReader(strings.NewReader(tc.in)), bufio.NewReaderSize(strings.NewReader(tc.in), 16)} {
			_, err := io.ReadAll(Limit(r))
			check(t, "Limit", err, tc.line)
		}
		sc := NewScanner(strings.NewReader(tc.in))
		lines := 0
		for sc.Scan() {
			lines++
		}
		check(t, "NewScanner", ScanErr(sc, lines), tc.line)
	}
}

func check(t *testing.T, what string, err error, line int) {
	t.Helper()
	var tl *TooLongError
	switch {
	case line == 0 && err != nil:
		t.Errorf("%s: got %v, want no error", what, err)
	case line > 0 && (!errors.As(err, &tl) || tl.Line != line):
		t.Errorf("%s: got %v, want a long line at line %d", what, err, line)
	}
}

// Limit stops an endless line at MaxLine bytes, without reading on.
func TestLimitEndless(t *testing.T) {
	n, err := io.Copy(io.Discard, Limit(zeros{}))
	var tl *TooLongError
	if !errors.As(err, &tl) || tl.Line != 1 || n != MaxLine {
		t.Errorf("got %d bytes, %v; want %d bytes and a long line 1", n, err, MaxLine)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestClip(t *testing.T) {
	long := strings.Repeat("x", 99) + "é" + strings.Repeat("y", 1<<20)
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{strings.Repeat("a", MaxEcho), strings.Repeat("a", MaxEcho)},
		{strings.Repeat("a", MaxEcho+1), strings.Repeat("a", MaxEcho) + "…(101 bytes)"},
		{long, strings.Repeat("x", 99) + "…(1048677 bytes)"}, // not half of the é
	} {
		if got := Clip(tc.in); got != tc.want || Clip(got) != got {
			t.Errorf("Clip(%.20q...): got %.200q, want %.200q", tc.in, got, tc.want)
		}
	}
}

func TestClipQuoted(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, tc := range []struct{ in, want string }{
		{`f.csv:2: column src: want a non-negative host id, got "a"`, `f.csv:2: column src: want a non-negative host id, got "a"`},
		{`compat: unknown compat profile "` + long + `" (valid: none, hpcc-ns3)`,
			`compat: unknown compat profile "` + strings.Repeat("x", MaxEcho) + `…(1048576 bytes)" (valid: none, hpcc-ns3)`},
		{`a "\"` + long + `" b "c"`, `a "\"` + strings.Repeat("x", MaxEcho-1) + `…(1048577 bytes)" b "c"`},
	} {
		if got := ClipQuoted(tc.in); got != tc.want || ClipQuoted(got) != got {
			t.Errorf("got %.300q, want %.300q", got, tc.want)
		}
	}
}
