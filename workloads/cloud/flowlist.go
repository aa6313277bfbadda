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
	"github.com/dcsim/dcsim/internal/textline"
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
	fr, err := newFlowListReader(name, r)
	if err != nil {
		return nil, err
	}
	var flows []Flow
	for {
		f, ok, err := fr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		flows = append(flows, f)
	}
	sort.SliceStable(flows, func(i, j int) bool { return flows[i].Start < flows[j].Start })
	return flows, nil
}

// flowListReader reads a flow list's records one at a time, holding one
// record: ReadFlowList, ScanFlowList and the cursor share it, so that they
// accept the same files with the same errors.
type flowListReader struct {
	name   string
	cr     *csvLines
	col    [len(flowListColumns)]int
	tagCol int
	line   int // of the record next returned last
	flows  int // records returned
}

// MaxFlowListFlows bounds the flows of a flow list, which a sorted list
// streams from the file and an unsorted one holds (about 0.1 KB a flow):
// 2^26, 67 million, the ns-3 flow file's bound too. A file past it (an
// endless pipe, say) fails there instead of reading on.
const MaxFlowListFlows = 1 << 26

// newFlowListReader reads and checks the header.
func newFlowListReader(name string, r io.Reader) (*flowListReader, error) {
	cr := newCSVLines(r)
	header, err := cr.read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty flow list, want a header %s", name, strings.Join(flowListColumns[:], ","))
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	line := cr.line
	fr := &flowListReader{name: name, cr: cr, tagCol: -1}
	for i := range fr.col {
		fr.col[i] = -1
	}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		idx := slices.Index(flowListColumns[:], h)
		switch {
		case idx >= 0 && fr.col[idx] >= 0, h == "tag" && fr.tagCol >= 0:
			return nil, fmt.Errorf("%s:%d: column %s: appears twice in the header", name, line, h)
		case idx >= 0:
			fr.col[idx] = i
		case h == "tag":
			fr.tagCol = i
		}
	}
	for i, c := range fr.col {
		if c < 0 {
			return nil, fmt.Errorf("%s:%d: column %s: missing from the header", name, line, flowListColumns[i])
		}
	}
	return fr, nil
}

// next returns the next flow; ok is false at the end of the list.
func (fr *flowListReader) next() (f Flow, ok bool, err error) {
	name, col := fr.name, &fr.col
	rec, err := fr.cr.read()
	if err == io.EOF {
		return Flow{}, false, nil
	}
	if err != nil {
		return Flow{}, false, csvError(name, err)
	}
	line := fr.cr.line
	fr.line = line
	if fr.flows++; fr.flows > MaxFlowListFlows {
		return Flow{}, false, fmt.Errorf("%s:%d: more than %d flows, the limit of a flow list", name, line, MaxFlowListFlows)
	}
	field := func(i int) string { return strings.TrimSpace(rec[col[i]]) }
	if f.Src, err = parseHost(field(0)); err != nil {
		return Flow{}, false, fmt.Errorf("%s:%d: column src: %v", name, line, err)
	}
	if f.Dst, err = parseHost(field(1)); err != nil {
		return Flow{}, false, fmt.Errorf("%s:%d: column dst: %v", name, line, err)
	}
	if f.Src == f.Dst {
		return Flow{}, false, fmt.Errorf("%s:%d: column dst: equals src %d", name, line, f.Src)
	}
	if f.Size, err = strconv.ParseInt(field(2), 10, 64); err != nil || f.Size <= 0 {
		return Flow{}, false, fmt.Errorf("%s:%d: column size_bytes: want a positive integer, got %q", name, line, field(2))
	}
	if f.Start, err = parseStartNS(field(3)); err != nil {
		return Flow{}, false, fmt.Errorf("%s:%d: column start_ns: %v", name, line, err)
	}
	if fr.tagCol >= 0 {
		f.Tag = strings.TrimSpace(rec[fr.tagCol])
	}
	f.Generator = "flowlist"
	return f, true, nil
}

// FlowListScan is what ScanFlowList found: the number of flows and whether
// they are in non-decreasing Start order in the file.
type FlowListScan struct {
	Flows  int64
	Sorted bool
}

// ScanFlowList reads a whole flow list once, holding one record, and
// reports the first problem as ReadFlowList would: a malformed record
// anywhere first (name:LINE: column: reason), else the first error that
// check returns for a flow, in the stably sorted order ReadFlowList
// returns (the one with the smallest Start, the earliest in the file on
// ties). check may be nil.
func ScanFlowList(name string, r io.Reader, check func(Flow) error) (FlowListScan, error) {
	fr, err := newFlowListReader(name, r)
	if err != nil {
		return FlowListScan{}, err
	}
	scan := FlowListScan{Sorted: true}
	var last engine.Time
	var checkErr error
	var checkAt engine.Time
	for {
		f, ok, err := fr.next()
		if err != nil {
			return FlowListScan{}, err
		}
		if !ok {
			break
		}
		if scan.Flows > 0 && f.Start < last {
			scan.Sorted = false
		}
		last = f.Start
		scan.Flows++
		if check != nil && (checkErr == nil || f.Start < checkAt) {
			if err := check(f); err != nil {
				checkErr, checkAt = err, f.Start
			}
		}
	}
	return scan, checkErr
}

// NewFlowListCursor is a generator over a flow list whose flows are in
// non-decreasing Start order (ScanFlowList said Sorted, and said no
// error): it reads one record per Next, so a list of any length costs one
// record of memory, and yields the flows ReadFlowList and NewFlowList
// would, in the same order. A record that no longer reads (the file
// changed after the scan) or goes back in time ends the flows; Err says
// why.
func NewFlowListCursor(name string, r io.Reader) (*FlowListCursor, error) {
	fr, err := newFlowListReader(name, r)
	if err != nil {
		return nil, err
	}
	return &FlowListCursor{r: fr}, nil
}

// FlowListCursor is NewFlowListCursor's generator.
type FlowListCursor struct {
	r    *flowListReader
	last engine.Time
	err  error
	done bool
	// OnEnd, if set, is called once when the flows end (to close the file).
	OnEnd func()
}

// Next implements Generator.
func (c *FlowListCursor) Next() (Flow, bool) {
	if c.done {
		return Flow{}, false
	}
	f, ok, err := c.r.next()
	if err == nil && ok && f.Start < c.last {
		err = fmt.Errorf("%s:%d: column start_ns: %v is before the previous flow's %v: the file changed since it was read at build", c.r.name, c.r.line, f.Start, c.last)
	}
	if err != nil || !ok {
		c.err, c.done = err, true
		if c.OnEnd != nil {
			c.OnEnd()
		}
		return Flow{}, false
	}
	c.last = f.Start
	return f, true
}

// Err is the error that ended the flows early, or nil.
func (c *FlowListCursor) Err() error { return c.err }

// csvError rewrites encoding/csv's errors as "name:LINE: reason".
func csvError(name string, err error) error {
	var pe *csv.ParseError
	var tl *textline.TooLongError
	if errors.As(err, &tl) {
		return fmt.Errorf("%s:%d: %w", name, tl.Line, tl)
	}
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
	if t, ok := parseStartNSFast(s); ok {
		return t, nil
	}
	return parseStartNSGeneral(s)
}

// parseStartNSGeneral is parseStartNS for any string, with its errors.
func parseStartNSGeneral(s string) (engine.Time, error) {
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

// parseStartNSFast is parseStartNS for the common form, 1 to 15 digits with
// an optional '.' and 1 to 3 more (at most 10^18 ps, below MaxSpan), with
// no allocation; ok is false for anything else, which the general path
// then reads (the same value for every string both accept:
// TestParseStartNSFast). A flow list of 10^6 flows spent 0.4 s of CPU in
// the general path's string concatenation and unit search.
func parseStartNSFast(s string) (engine.Time, bool) {
	whole, frac, hasDot := strings.Cut(s, ".")
	if len(whole) == 0 || len(whole) > 15 || (hasDot && (len(frac) == 0 || len(frac) > 3)) {
		return 0, false
	}
	var ps int64
	for i := 0; i < len(whole); i++ {
		c := whole[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		ps = ps*10 + int64(c-'0')
	}
	ps *= 1000
	scale := int64(100)
	for i := 0; i < len(frac); i++ {
		c := frac[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		ps += int64(c-'0') * scale
		scale /= 10
	}
	return engine.Time(ps) * engine.Picosecond, true
}
