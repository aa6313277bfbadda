package cloud

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/engine"
)

// flowListColumns are the required columns of a flow list.
var flowListColumns = [...]string{"src", "dst", "size_bytes", "start_ns"}

// ReadFlowList reads a CSV flow list. The first record is a header naming
// the columns src, dst, size_bytes and start_ns in any order (matched
// case-insensitively after trimming spaces); an optional "tag" column fills
// Flow.Tag and other columns are ignored. Lines starting with '#' are
// comments. src and dst are distinct non-negative host ids, size_bytes a
// positive integer, start_ns a non-negative decimal number of ns with at
// most three fractional digits (whole ps). Flows get Generator "flowlist"
// and are returned stably sorted by Start. Errors read
// "name:LINE: column: reason".
func ReadFlowList(name string, r io.Reader) ([]Flow, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty flow list, want a header %s", name, strings.Join(flowListColumns[:], ","))
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	line, _ := cr.FieldPos(0)
	var col [len(flowListColumns)]int
	tagCol := -1
	for i := range col {
		col[i] = -1
	}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		idx := slices.Index(flowListColumns[:], h)
		switch {
		case idx >= 0 && col[idx] >= 0, h == "tag" && tagCol >= 0:
			return nil, fmt.Errorf("%s:%d: column %s: appears twice in the header", name, line, h)
		case idx >= 0:
			col[idx] = i
		case h == "tag":
			tagCol = i
		}
	}
	for i, c := range col {
		if c < 0 {
			return nil, fmt.Errorf("%s:%d: column %s: missing from the header", name, line, flowListColumns[i])
		}
	}

	var flows []Flow
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		var f Flow
		field := func(i int) string { return strings.TrimSpace(rec[col[i]]) }
		if f.Src, err = parseHost(field(0)); err != nil {
			return nil, fmt.Errorf("%s:%d: column src: %v", name, line, err)
		}
		if f.Dst, err = parseHost(field(1)); err != nil {
			return nil, fmt.Errorf("%s:%d: column dst: %v", name, line, err)
		}
		if f.Src == f.Dst {
			return nil, fmt.Errorf("%s:%d: column dst: equals src %d", name, line, f.Src)
		}
		if f.Size, err = strconv.ParseInt(field(2), 10, 64); err != nil || f.Size <= 0 {
			return nil, fmt.Errorf("%s:%d: column size_bytes: want a positive integer, got %q", name, line, field(2))
		}
		if f.Start, err = parseStartNS(field(3)); err != nil {
			return nil, fmt.Errorf("%s:%d: column start_ns: %v", name, line, err)
		}
		if tagCol >= 0 {
			f.Tag = strings.TrimSpace(rec[tagCol])
		}
		f.Generator = "flowlist"
		flows = append(flows, f)
	}
	sort.SliceStable(flows, func(i, j int) bool { return flows[i].Start < flows[j].Start })
	return flows, nil
}

// csvError rewrites encoding/csv's errors as "name:LINE: reason".
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %w", name, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

func parseHost(s string) (int, error) {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("want a non-negative host id, got %q", s)
	}
	return int(v), nil
}

// parseStartNS converts decimal ns to ps exactly, through engine.ParseTime
// so that no float rounding is involved.
func parseStartNS(s string) (engine.Time, error) {
	if s == "" || strings.Trim(s, "0123456789.") != "" {
		return 0, fmt.Errorf("want a non-negative number of ns, got %q", s)
	}
	t, err := engine.ParseTime(s + "ns")
	if err != nil {
		return 0, fmt.Errorf("want a non-negative number of ns with at most 3 decimals, got %q", s)
	}
	if t > engine.MaxSpan {
		return 0, fmt.Errorf("%s ns is after 2^61 ps (26.7 days), the latest time a run can represent", s)
	}
	return t, nil
}
