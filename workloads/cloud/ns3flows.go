package cloud

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/internal/textline"
)

// ReadNS3Flows reads the HPCC ns-3 model's flow file (simulation/mix
// flow.txt, written by traffic_gen/traffic_gen.py): a first line with the
// flow count, then one line "src dst pg dport size start_s" per flow.
// Each flow starts where the reference model starts it: at
// engine.NS3Seconds(start_s), ns-3's truncating Seconds(double), so
// 2.000000577 becomes 2000000576 ns (third.cc ScheduleFlowInputs). Its Tag
// is "sport=N": the source port third.cc gives it, 10000, 10001, ... per
// (src, dst) pair in file order, which is how the reference's FCT output
// names the flow. The pg and dport columns must be 3 and 100 (every
// reference flow); sizes are positive, times non-decreasing. Errors read
// "name:LINE: reason".
func ReadNS3Flows(name string, r io.Reader) ([]Flow, error) {
	sc := textline.NewScanner(r)
	line := 0
	next := func() ([]string, bool) {
		for sc.Scan() {
			line++
			if f := strings.Fields(sc.Text()); len(f) > 0 {
				return f, true
			}
		}
		return nil, false
	}
	f, ok := next()
	if !ok {
		if err := textline.ScanErr(sc, line); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
		}
		return nil, fmt.Errorf("%s: empty flow file, want the flow count on line 1", name)
	}
	n, err := strconv.Atoi(f[0])
	if len(f) != 1 || err != nil || n < 0 || n > 1<<26 {
		return nil, fmt.Errorf("%s:%d: want the flow count, got %q", name, line, strings.Join(f, " "))
	}
	ports := map[[2]int]int{}
	// The declared count bounds the flows, not the memory: a 9-byte file
	// declaring 2^26 flows must not allocate gigabytes before it fails
	// (found by FuzzReadNS3Flows), so the slice grows with the lines read.
	flows := make([]Flow, 0, min(n, 4096))
	var last engine.Time
	for len(flows) < n {
		f, ok := next()
		if !ok {
			if err := textline.ScanErr(sc, line); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
			}
			return nil, fmt.Errorf("%s:%d: want %d flows, found %d", name, line, n, len(flows))
		}
		if len(f) != 6 {
			return nil, fmt.Errorf("%s:%d: want \"src dst pg dport size start_s\", got %d fields", name, line, len(f))
		}
		var fl Flow
		if fl.Src, err = parseHost(f[0]); err != nil {
			return nil, fmt.Errorf("%s:%d: src: %v", name, line, err)
		}
		if fl.Dst, err = parseHost(f[1]); err != nil {
			return nil, fmt.Errorf("%s:%d: dst: %v", name, line, err)
		}
		if fl.Src == fl.Dst {
			return nil, fmt.Errorf("%s:%d: dst: equals src %d", name, line, fl.Src)
		}
		if f[2] != "3" || f[3] != "100" {
			return nil, fmt.Errorf("%s:%d: pg %s dport %s: only pg 3, dport 100 are supported", name, line, f[2], f[3])
		}
		if fl.Size, err = strconv.ParseInt(f[4], 10, 64); err != nil || fl.Size <= 0 {
			return nil, fmt.Errorf("%s:%d: size: want a positive integer, got %q", name, line, f[4])
		}
		s, err := strconv.ParseFloat(f[5], 64)
		if err != nil || !(s >= 0) || s > 1e6 {
			return nil, fmt.Errorf("%s:%d: start: want seconds, got %q", name, line, f[5])
		}
		if fl.Start = engine.NS3Seconds(s); fl.Start < last {
			return nil, fmt.Errorf("%s:%d: start %s is before the previous flow's", name, line, f[5])
		}
		last = fl.Start
		pair := [2]int{fl.Src, fl.Dst}
		fl.Tag = "sport=" + strconv.Itoa(10000+ports[pair])
		ports[pair]++
		fl.Generator = "flowlist"
		flows = append(flows, fl)
	}
	if f, ok := next(); ok {
		return nil, fmt.Errorf("%s:%d: unexpected extra line %q", name, line, strings.Join(f, " "))
	}
	return flows, nil
}

// WriteFlowList writes flows as a flow-list CSV that ReadFlowList reads
// back: src,dst,size_bytes,start_ns,tag, times in ns with up to three
// decimals.
func WriteFlowList(w io.Writer, flows []Flow) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("src,dst,size_bytes,start_ns,tag\n")
	for _, f := range flows {
		ns := strconv.FormatInt(int64(f.Start/engine.Nanosecond), 10)
		if ps := f.Start % engine.Nanosecond; ps != 0 {
			ns += strings.TrimRight(fmt.Sprintf(".%03d", ps), "0")
		}
		fmt.Fprintf(bw, "%d,%d,%d,%s,%s\n", f.Src, f.Dst, f.Size, ns, f.Tag)
	}
	return bw.Flush()
}
