// Package textline bounds the lines of the text files dcsim reads (flow
// lists, CDFs, SimAI workloads, ns-3 flow and topology files), so that a
// file without newlines (/dev/zero, a binary file given by mistake) fails
// at the first MaxLine bytes with one short error instead of being read
// into memory whole. A line of a real input is under 200 bytes; MaxLine
// leaves room for any hand-written one.
//
// Line-at-a-time readers use NewScanner; a reader that hands its input to
// encoding/csv, which has no line bound of its own, wraps it in Limit.
// Both report a long line as a *TooLongError with its line number.
package textline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// MaxLine is the most bytes one line may have, its newline excluded (a
// \r before it counts).
const MaxLine = 1 << 20

// TooLongError is a line of more than MaxLine bytes.
type TooLongError struct {
	Line int // 1-based
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("line longer than %d bytes", MaxLine)
}

// NewScanner is a bufio.Scanner of lines whose buffer grows to hold a
// line of MaxLine bytes and its newline, and no more.
func NewScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine+1)
	return sc
}

// ScanErr is sc.Err() with bufio.ErrTooLong as a *TooLongError; lines is
// the number of lines sc has returned, so the long one is the next.
func ScanErr(sc *bufio.Scanner, lines int) error {
	err := sc.Err()
	if errors.Is(err, bufio.ErrTooLong) {
		return &TooLongError{Line: lines + 1}
	}
	return err
}

// Limit returns a reader of r's bytes that fails with a *TooLongError as
// soon as more than MaxLine bytes pass without a newline. It counts lines
// from r's start.
func Limit(r io.Reader) io.Reader { return &limited{r: r} }

type limited struct {
	r     io.Reader
	lines int // newlines passed
	run   int // bytes since the last newline
	err   error
}

func (l *limited) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	if b := p[:n]; n <= MaxLine {
		// No line that both starts and ends in b can be too long: check
		// the one it continues, count its newlines and keep its tail, in
		// three vectorised scans instead of one call per line.
		first := bytes.IndexByte(b, '\n')
		if first < 0 {
			first = n
		}
		if l.run+first <= MaxLine {
			if first == n {
				l.run += n
			} else {
				l.lines += bytes.Count(b, []byte{'\n'})
				l.run = n - 1 - bytes.LastIndexByte(b, '\n')
			}
			return n, err
		}
	}
	for b := p[:n]; len(b) > 0; {
		i := bytes.IndexByte(b, '\n')
		seg := len(b)
		if i >= 0 {
			seg = i
		}
		if l.run+seg > MaxLine {
			l.err = &TooLongError{Line: l.lines + 1}
			// The bytes of the long line past the limit are not passed on,
			// so no reader above sees more than MaxLine of it.
			return n - len(b) + (MaxLine - l.run), l.err
		}
		if i < 0 {
			l.run += seg
			break
		}
		l.lines++
		l.run = 0
		b = b[i+1:]
	}
	return n, err
}

// MaxEcho is the most bytes of a value an error message quotes.
const MaxEcho = 100

// Clip shortens a value quoted in an error message to its first MaxEcho
// bytes (at a character boundary) and a marker with its length,
// "abc…(1048576 bytes)", so that a long value (a 1 MB --set, a 1 MiB line)
// still gives a one-line message a terminal shows whole.
func Clip(s string) string {
	if clipped.MatchString(s) {
		return s
	}
	return ClipTo(s, MaxEcho)
}

// ClipTo is Clip with the limit n: s itself when it has at most n bytes,
// else its first n bytes (at a character boundary) and the marker.
func ClipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d bytes)", s[:cut], len(s))
}

// clipped matches what Clip returns for a long value, so that a message
// clipped twice keeps the first length.
var clipped = regexp.MustCompile(`^(?s:.{0,` + strconv.Itoa(MaxEcho) + `})…\(\d+ bytes\)$`)

// quoted matches a Go-quoted string ("%q") in a message.
var quoted = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)

// ClipQuoted clips every quoted value in msg that is longer than MaxEcho
// bytes, as Clip does, and keeps the rest of msg: error messages quote the
// values at fault with %q in many places, and this is applied where they
// are printed.
func ClipQuoted(msg string) string {
	if len(msg) <= MaxEcho {
		return msg
	}
	return quoted.ReplaceAllStringFunc(msg, func(q string) string {
		if len(q) <= MaxEcho+2 {
			return q
		}
		if s, err := strconv.Unquote(q); err == nil {
			return strconv.Quote(Clip(s))
		}
		return `"` + Clip(q[1:len(q)-1]) + `"`
	})
}
