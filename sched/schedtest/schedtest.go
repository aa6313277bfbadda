package schedtest

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/rnic"
)

// Eligibility is implemented by schedulers that may withhold a ready QP
// (waiting for a grant, an in-order guard, a software delay, or because
// the QP's class is paused). Eligible reports whether Pick could return qp
// now, with the classes in paused paused. Schedulers without it are
// assumed to be work-conserving whenever no class is paused.
type Eligibility interface {
	Eligible(qp *rnic.QP, paused uint8) bool
}

// Run is the conformance suite every rnic.Scheduler must pass. Each case
// runs a random workload on a small star network twice and checks:
//
//   - Pick never returns nil while some QP is eligible, and never returns a
//     QP that the scheduler's own Eligible denies (the rnic itself panics
//     on a QP that is not ready or a paused class);
//   - work conservation: after all events of an instant, a free port
//     never has an eligible QP (a gate that opens must kick the port);
//   - every message completes, and the network drains (conservation, no
//     packet or pause left behind);
//   - determinism: the second run's finish times equal the first's.
//
// The cases cover per-flow QPs (opened and closed with each message),
// per-pair and pool QPs with transaction ids and temporal bursts, window-
// and pacing-limited QPs, lossless incast with PFC pauses, strict and
// round-robin switch classes, and a lossy fabric with go-back-N.
func Run(t *testing.T, name string, newSched func(h *rnic.Host) rnic.Scheduler) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			first, problems := runCase(t, name, c, newSched)
			for _, p := range problems {
				t.Error(p)
			}
			if len(problems) > 0 {
				return
			}
			second, _ := runCase(t, name, c, newSched)
			if err := sameFinish(first, second); err != nil {
				t.Errorf("%s: not deterministic: %v", name, err)
			}
		})
	}
}

// sameFinish compares two runs' finish times.
func sameFinish(first, second []engine.Time) error {
	for i := range first {
		if i < len(second) && first[i] != second[i] {
			return fmt.Errorf("message %d finished at %v, then at %v", i, first[i], second[i])
		}
	}
	if len(first) != len(second) {
		return fmt.Errorf("%d then %d finish times", len(first), len(second))
	}
	return nil
}

type conformanceCase struct {
	name    string
	hosts   int
	mapping rnic.Mapping
	cc      string
	strict  bool  // strict priority over all switch classes
	lossy   bool  // lossy fabric (else PFC)
	buffer  int64 // switch buffer, bytes (0 = default 32 MiB)
	ackCtl  bool  // ACKs in class 0
	incast  int   // this many senders of incastSize to host 0 at 20 us
	wantPFC bool  // the case must produce PFC pauses
	msgs    int   // random background messages
	maxSize int64 // their sizes are log-uniform in [1, maxSize]
	txn     bool  // give them transaction ids and bursts
	seed    uint64
}

const incastSize = 400_000

var cases = []conformanceCase{
	{name: "per-flow", hosts: 6, mapping: rnic.Mapping{PerFlow: true}, msgs: 200, maxSize: 600_000, seed: 1},
	{name: "per-pair-txn", hosts: 6, mapping: rnic.Mapping{Pool: 1}, msgs: 200, maxSize: 600_000, txn: true, strict: true, seed: 2},
	{name: "pool2-window", hosts: 5, mapping: rnic.Mapping{Pool: 2}, cc: Window, msgs: 150, maxSize: 300_000, txn: true, ackCtl: true, seed: 3},
	{name: "per-pair-paced", hosts: 5, mapping: rnic.Mapping{Pool: 1}, cc: Paced, msgs: 120, maxSize: 300_000, txn: true, strict: true, seed: 4},
	{name: "incast-pfc-strict", hosts: 9, mapping: rnic.Mapping{Pool: 1}, strict: true, buffer: 1 << 20,
		incast: 8, wantPFC: true, msgs: 120, maxSize: 400_000, txn: true, seed: 5},
	{name: "incast-pfc-per-flow", hosts: 9, mapping: rnic.Mapping{PerFlow: true}, buffer: 1 << 20, ackCtl: true,
		incast: 8, wantPFC: true, msgs: 120, maxSize: 400_000, seed: 6},
	{name: "lossy", hosts: 9, mapping: rnic.Mapping{Pool: 1}, lossy: true, buffer: 512 << 10, ackCtl: true,
		incast: 8, msgs: 80, maxSize: 300_000, txn: true, seed: 7},
}

// checked wraps a scheduler and checks every decision.
type checked struct {
	rnic.Scheduler
	name     string
	h        *rnic.Host
	elig     Eligibility
	qps      []*rnic.QP // open QPs, in opening order
	problems *[]string  // shared by the rig's hosts
}

func (c *checked) Attach(h *rnic.Host) {
	c.h = h
	c.Scheduler.Attach(h)
}

func (c *checked) QPOpened(qp *rnic.QP) {
	c.qps = append(c.qps, qp)
	c.Scheduler.QPOpened(qp)
}

func (c *checked) QPClosed(qp *rnic.QP) {
	if i := slices.Index(c.qps, qp); i >= 0 {
		c.qps = slices.Delete(c.qps, i, i+1)
	}
	c.Scheduler.QPClosed(qp)
}

// Rewound forwards rnic.Rewinder to schedulers that implement it.
func (c *checked) Rewound(qp *rnic.QP) {
	if rw, ok := c.Scheduler.(rnic.Rewinder); ok {
		rw.Rewound(qp)
	}
}

// Stamp forwards rnic.Stamper to schedulers that implement it.
func (c *checked) Stamp(qp *rnic.QP, p *fabric.Packet) {
	if st, ok := c.Scheduler.(rnic.Stamper); ok {
		st.Stamp(qp, p)
	}
}

func (c *checked) errorf(format string, args ...any) {
	if len(*c.problems) < 5 {
		*c.problems = append(*c.problems, fmt.Sprintf("%s: host %d: "+format, append([]any{c.name, c.h.ID}, args...)...))
	}
}

func (c *checked) eligible(qp *rnic.QP, paused uint8) bool {
	if c.elig != nil {
		return c.elig.Eligible(qp, paused)
	}
	return qp.Ready() && paused == 0
}

// firstEligible is an eligible open QP, or nil.
func (c *checked) firstEligible(paused uint8) *rnic.QP {
	for _, qp := range c.qps {
		if qp.Ready() && c.eligible(qp, paused) {
			return qp
		}
	}
	return nil
}

func (c *checked) Pick(now engine.Time, paused uint8) (*rnic.QP, uint8) {
	qp, class := c.Scheduler.Pick(now, paused)
	if qp == nil {
		if e := c.firstEligible(paused); e != nil {
			c.errorf("at %v Pick returned nil, but qp %d is eligible (paused %08b)", now, e.ID, paused)
		}
		return nil, 0
	}
	if c.elig != nil && !c.elig.Eligible(qp, paused) {
		c.errorf("at %v Pick returned qp %d in class %d, which its Eligible denies (paused %08b)", now, qp.ID, class, paused)
	}
	return qp, class
}

// checkIdle reports a free port with an eligible QP after all events of
// instant now have run.
func (c *checked) checkIdle(now engine.Time) {
	pt := c.h.Port()
	if pt.FreeAt() > now || c.h.ReadyQPs() == 0 {
		return
	}
	if e := c.firstEligible(pt.PausedMask()); e != nil {
		c.errorf("port idle at %v (free since %v) while qp %d is eligible: a gate opened without a kick", now, pt.FreeAt(), e.ID)
	}
}

// runCase runs one case and returns every message's finish time and the
// conformance problems found (setup errors fail tb at once).
func runCase(tb testing.TB, name string, c conformanceCase, newSched func(*rnic.Host) rnic.Scheduler) ([]engine.Time, []string) {
	var wrapped []*checked
	var problems []string
	cfg := Config{Hosts: c.hosts, Mapping: c.mapping, CC: c.cc, Seed: c.seed,
		Fabric: func(f *fabric.Config) {
			f.PFC = !c.lossy
			if c.buffer > 0 {
				f.Buffer = c.buffer
			}
			if c.strict {
				f.Strict = 0xff
			}
		},
		NIC: func(n *rnic.Config) { n.AckControl = c.ackCtl }}
	r := NewRig(tb, cfg, func(h *rnic.Host) rnic.Scheduler {
		s := newSched(h)
		w := &checked{Scheduler: s, name: name, problems: &problems}
		w.elig, _ = s.(Eligibility)
		wrapped = append(wrapped, w)
		return w
	})
	postWorkload(r, c)
	// Step through time one instant at a time: all events at an instant
	// run before the ports are inspected, so a packet that starts later
	// in the same instant is not a false alarm.
	const limit = 200 * engine.Millisecond
	for len(problems) == 0 {
		at := r.Sim.NextEventTime()
		if at == engine.Never || at > limit {
			break
		}
		r.Sim.Run(at)
		for _, w := range wrapped {
			w.checkIdle(at)
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	if len(r.Done) != len(r.Posted) {
		return nil, []string{fmt.Sprintf("%s: %s", name, r.Stuck())}
	}
	if err := r.Cluster.CheckDrained(); err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", name, err)}
	}
	if c.wantPFC && r.Net.PauseFrames == 0 {
		problems = append(problems, fmt.Sprintf("%s: the incast produced no PFC pause; the case does not test pauses", name))
	}
	if c.lossy && r.Net.DroppedBytes == 0 {
		problems = append(problems, fmt.Sprintf("%s: the lossy case dropped nothing; it does not test go-back-N", name))
	}
	k := r.Cluster.Counters
	tb.Logf("%s: %d messages, last finished at %v, %d pause frames, %d B dropped, %d nacks, %d rtos, %d control packets",
		name, len(r.Posted), lastFinish(r), r.Net.PauseFrames, r.Net.DroppedBytes, k.Nacks, k.RTOs, k.ControlPackets)
	out := make([]engine.Time, len(r.Posted))
	for i, m := range r.Posted {
		out[i] = m.Finished
	}
	return out, problems
}

func lastFinish(r *Rig) engine.Time {
	var t engine.Time
	for _, m := range r.Posted {
		t = max(t, m.Finished)
	}
	return t
}

// postWorkload posts the case's messages: random background traffic over
// 300 us and an optional incast at 20 us.
func postWorkload(r *Rig, c conformanceCase) {
	rng := engine.NewStream(c.seed, "schedtest")
	var txn int64
	logMax := math.Log(float64(c.maxSize))
	for i := 0; i < c.msgs; {
		src := rng.IntN(c.hosts)
		dst := rng.IntN(c.hosts - 1)
		if dst >= src {
			dst++
		}
		at := engine.Time(rng.Int64N(int64(300 * engine.Microsecond)))
		burst := 1
		var id int64
		if c.txn {
			switch rng.IntN(4) {
			case 0: // several work requests of one transaction
				burst = 1 + rng.IntN(4)
				txn++
				id = txn
			case 1: // a temporal burst without ids
				burst = 1 + rng.IntN(4)
			case 2: // a transaction of one
				txn++
				id = txn
			}
		}
		for j := 0; j < burst && i < c.msgs; j++ {
			size := max(1, int64(math.Exp(rng.Float64()*logMax)))
			r.PostAt(at+engine.Time(j)*100*engine.Nanosecond, src, dst, size, id)
			i++
		}
	}
	for s := 1; s <= c.incast; s++ {
		r.PostAt(20*engine.Microsecond, s, 0, incastSize, 0)
	}
}
