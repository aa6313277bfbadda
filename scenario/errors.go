package scenario

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/internal/textline"
)

// Error is bad scenario input, located. It prints as one line:
//
//	scenario.yaml:12: workload.load: 1.4 is not in (0, 1)
//	<builtin default>:3: nic.mtu: must be at least 1, got 0
//	--set workload.load=1.4: workload.load: 1.4 is not in (0, 1)
//
// The --set form is used when the offending value came from an override.
type Error struct {
	File string // file name, or "<builtin NAME>"
	Line int    // 1-based; 0 when unknown
	Set  string // the --set argument that supplied the value, if any
	Path string // dotted field path, e.g. "switch.ecn.kmin"; "" if none
	Msg  string
}

// Error prints e on one line, each value it quotes (the --set, the file
// name, the field path, a %q in the message) clipped to
// textline.MaxEcho bytes: a 1 MB --set value gives a short line.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Set != "" {
		b.WriteString("--set ")
		b.WriteString(oneLine(textline.Clip(e.Set)))
	} else {
		b.WriteString(oneLine(textline.Clip(e.File)))
		if e.Line > 0 {
			b.WriteString(":")
			b.WriteString(strconv.Itoa(e.Line))
		}
	}
	if e.Path != "" {
		b.WriteString(": ")
		b.WriteString(oneLine(textline.Clip(e.Path)))
	}
	b.WriteString(": ")
	b.WriteString(oneLine(textline.ClipQuoted(e.Msg)))
	return b.String()
}

// oneLine quotes text that would break the one-line error format.
func oneLine(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f || r == 0x2028 || r == 0x2029 || r == 0x85 }) {
		q := strconv.Quote(s)
		return q[1 : len(q)-1]
	}
	return s
}

// FieldError is what Validate returns: the dotted path of the field at
// fault and why. Parse turns it into an *Error with the field's line.
type FieldError struct {
	Path string
	Msg  string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Msg }

func fieldErr(path, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a yaml.v3 parse error into an *Error that keeps its
// line.
func syntaxError(file string, err error) *Error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: line, Msg: m[2]}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	// yaml.v3 leaves the line out of a scanner or parser error on the
	// first line (its mark's line 0); its reader's errors (bad UTF-8,
	// control characters) have no position at all.
	if !strings.Contains(msg, "UTF-8") && !strings.Contains(msg, "control characters") && !strings.Contains(msg, "Unicode") {
		return &Error{File: file, Line: 1, Msg: msg}
	}
	return &Error{File: file, Msg: msg}
}
