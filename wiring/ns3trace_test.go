package wiring

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
	"github.com/dcsim/dcsim/scenario"
)

// TestNS3Trace writes a packet trace of the ns-3 replay in the format of
// the instrumented reference model (docs/validation.md, "Against the HPCC
// ns-3 model, flow for flow": how the trace was made), so that the two can be compared event
// by event. It runs only with DCSIM_NS3_TRACE=<output file>:
//
//	DCSIM_NS3_TRACE_END  stop time in ns (default 2000300000: the first 300 µs)
//	DCSIM_NS3_CC         dcqcn (default) or hpcc
//	DCSIM_NS3_RUN        heavy or heavy-10ms: the ns3ref-heavy or ns3ref-heavy-10ms
//	                     run instead of ns3ref
//	DCSIM_NS3_ECN        the reference's trace: its ECN draws (E lines) are
//	                     replayed at each switch egress in order instead of
//	                     dcsim's own, so marking follows the same draws
//
// Lines: "T ns node if size prot src dst sport dport seq flags txns" for
// every transmission start (prot 11 data, fc ACK, fd NACK, fe PFC; flags
// are the ECN bits of data and the CNP bit of ACKs; for PFC sport is the
// class and seq 1 for PAUSE, 0 for RESUME), "R ns node dst sport rate" for
// every rate change. Switch interfaces are numbered from 1 as ns-3's
// devices are (device 0 is the loopback).
func TestNS3Trace(t *testing.T) {
	out := os.Getenv("DCSIM_NS3_TRACE")
	if out == "" {
		t.Skip("DCSIM_NS3_TRACE=<file> writes the replay's packet trace")
	}
	end := engine.Time(2000300000) * engine.Nanosecond
	if v := os.Getenv("DCSIM_NS3_TRACE_END"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		end = engine.Time(n) * engine.Nanosecond
	}
	cc := "dcqcn"
	if v := os.Getenv("DCSIM_NS3_CC"); v != "" {
		cc = v
	}
	ref, ok := ns3Refs[os.Getenv("DCSIM_NS3_RUN")]
	if !ok {
		t.Fatalf("DCSIM_NS3_RUN: no reference run %q", os.Getenv("DCSIM_NS3_RUN"))
	}
	s := ref.replay(t, cc, scenario.CompatHPCCNS3, end)
	sim, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	defer w.Flush()
	tr := &ns3Tracer{w: w, end: end, hosts: sim.Topology.Hosts}
	for h, pt := range sim.Net.HostPorts {
		pt.Observer = &ns3PortTracer{tr: tr, node: h, ifx: 1}
	}
	for _, sw := range sim.Net.Switches {
		for i, pt := range sw.Ports {
			pt.Observer = &ns3PortTracer{tr: tr, node: sw.ID, ifx: i + 1}
		}
	}
	sim.Cluster.Observer = tr
	if v := os.Getenv("DCSIM_NS3_ECN"); v != "" {
		draws, err := readNS3Draws(v)
		if err != nil {
			t.Fatal(err)
		}
		replayNS3Draws(sim, tr, draws)
	}
	sim.Engine.Run(end)
	tr.countUnused(sim)
	t.Logf("%d lines to %s; %v", tr.lines, out, tr)
}

// replayNS3Draws makes every switch egress of sim mark with the
// reference's draws at that (node, interface), in order, instead of its
// own, and check at each dequeue that a draw went to the packet ns-3 drew
// it for. Ports without a tracer get one that traces nothing.
func replayNS3Draws(sim *Sim, tr *ns3Tracer, draws map[[2]int][]ns3Draw) {
	for _, sw := range sim.Net.Switches {
		for i, pt := range sw.Ports {
			o, ok := pt.Observer.(*ns3PortTracer)
			if !ok {
				o = &ns3PortTracer{tr: tr, node: sw.ID, ifx: i + 1}
				pt.Observer = o
			}
			o.draws = draws[[2]int{sw.ID, i + 1}]
			for c := 1; c < fabric.NumClasses; c++ {
				pt.SetECNRand(c, o.draw)
			}
		}
	}
}

// countUnused adds up the draws of the reference that no packet took.
func (tr *ns3Tracer) countUnused(sim *Sim) {
	for _, sw := range sim.Net.Switches {
		for _, pt := range sw.Ports {
			if o, ok := pt.Observer.(*ns3PortTracer); ok {
				tr.missing += len(o.draws) - o.used
			}
		}
	}
}

func (tr *ns3Tracer) String() string {
	return fmt.Sprintf("ECN draws: %d replayed, %d beyond ns-3's, %d of ns-3's unused, %d for another packet (first: %s)",
		tr.replayed, tr.extra, tr.missing, tr.mismatched, tr.firstMismatch)
}

// ns3Draw is one ECN draw of the reference on a data packet.
type ns3Draw struct {
	t              int64
	src, dst, port int
	seq            int64
	u              float64
}

// readNS3Draws reads the reference trace's E lines on data packets that
// drew (u >= 0), in order per (switch node, interface).
func readNS3Draws(file string) (map[[2]int][]ns3Draw, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[[2]int][]ns3Draw{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<16)
	for line := 1; sc.Scan(); line++ {
		// E ns node if q bytes prot src dst sport seq u marked
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || fs[0] != "E" {
			continue
		}
		if len(fs) != 13 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 13", file, line, len(fs))
		}
		var n [11]int64
		var err error
		for i, j := range []int{1, 2, 3, 7, 8, 9, 10} {
			if n[i], err = strconv.ParseInt(fs[j], 10, 64); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", file, line, err)
			}
		}
		d := ns3Draw{t: n[0], src: int(n[3]), dst: int(n[4]), port: int(n[5]), seq: n[6]}
		if d.u, err = strconv.ParseFloat(fs[11], 64); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		if fs[6] == "11" && d.u >= 0 {
			k := [2]int{int(n[1]), int(n[2])}
			out[k] = append(out[k], d)
		}
	}
	return out, sc.Err()
}

type ns3Tracer struct {
	w          *bufio.Writer
	end        engine.Time
	hosts      int
	lines      int
	replayed   int
	extra      int
	missing    int
	mismatched int

	firstMismatch string
}

func (tr *ns3Tracer) Sent(engine.Time, *rnic.QP, *fabric.Packet)  {}
func (tr *ns3Tracer) Acked(engine.Time, *rnic.QP, *fabric.Packet) {}
func (tr *ns3Tracer) RateChange(now engine.Time, qp *rnic.QP, old, new engine.Rate) {
	if tr.w == nil {
		return
	}
	fmt.Fprintf(tr.w, "R %d %d %d %d %d\n", now.Nanoseconds(), qp.Src, qp.Dst, qp.SPort, int64(new/engine.BitPerSecond))
	tr.lines++
}

// ns3PortTracer traces one port, node and interface numbered as ns-3's.
type ns3PortTracer struct {
	fabric.NopObserver
	tr        *ns3Tracer
	node, ifx int
	draws     []ns3Draw
	used      int
	pending   *ns3Draw // the draw just handed out, checked at the dequeue
}

func (o *ns3PortTracer) draw() float64 {
	if o.used >= len(o.draws) {
		o.tr.extra++
		o.pending = nil
		return 1 // never marks
	}
	o.pending = &o.draws[o.used]
	o.used++
	o.tr.replayed++
	return o.pending.u
}

func (o *ns3PortTracer) Dequeue(now engine.Time, pt *fabric.Port, p *fabric.Packet) {
	d := o.pending
	if d == nil {
		return
	}
	o.pending = nil
	if int32(d.src) != p.Src || int32(d.dst) != p.Dst || d.port != int(p.SPort) || d.seq != p.Seq {
		o.tr.mismatched++
		if o.tr.firstMismatch == "" {
			o.tr.firstMismatch = fmt.Sprintf("node %d if %d at %d ns: ns-3's draw at %d ns was for %d->%d:%d seq %d, dcsim's packet is %d->%d:%d seq %d",
				o.node, o.ifx, now.Nanoseconds(), d.t, d.src, d.dst, d.port, d.seq, p.Src, p.Dst, p.SPort, p.Seq)
		}
	}
}

func (o *ns3PortTracer) Transmit(now engine.Time, pt *fabric.Port, p *fabric.Packet) {
	if o.tr.w == nil {
		return
	}
	prot, flags, sport, dport, seq := "11", 0, int(p.SPort), int(p.DPort), p.Seq
	src, dst := int(p.Src), int(p.Dst)
	switch p.Kind {
	case fabric.Data:
		if p.CE {
			flags = 3
		}
	case fabric.Ack, fabric.Nack:
		prot = "fc"
		if p.Kind == fabric.Nack {
			prot = "fd"
		}
		if p.CNP {
			flags = 1
		}
	case fabric.PFC:
		prot, src, dst, sport, dport, seq = "fe", 0, 0, int(p.Arg), 0, 0
		if p.Pause {
			seq = 1
		}
	default:
		prot = p.Kind.String()
	}
	fmt.Fprintf(o.tr.w, "T %d %d %d %d %s %d %d %d %d %d %d %d\n", now.Nanoseconds(), o.node, o.ifx, p.Size, prot,
		src, dst, sport, dport, seq, flags, pt.TxTime(int64(p.Size)).Nanoseconds())
	o.tr.lines++
}
