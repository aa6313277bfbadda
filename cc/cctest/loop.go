package cctest

import (
	"fmt"

	"github.com/dcsim/dcsim/cc"
	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/fabric"
)

// Loop is a toy closed loop around one QP: the sender paces full packets
// at Rate(), stops when Window() bytes are in flight, and every packet is
// ACKed exactly Env.BaseRTT after it left (no queues, no loss). A Signal
// decides what each ACK says about congestion. Timers fire at NextTimer().
// At one instant ACKs come first, then the timer, then a send.
type Loop struct {
	spec     cc.Spec
	env      cc.Env
	a        cc.Algorithm
	rtt      engine.Time
	mtu      int64
	now      engine.Time
	sndNxt   int64
	sndUna   int64
	nextSend engine.Time
	inflight []Packet // FIFO; head at index head
	head     int
	acks     int
	buf      []fabric.INTHop
}

// NewLoop starts a loop at time 0 around a, built from spec for env.
func NewLoop(spec cc.Spec, env cc.Env, a cc.Algorithm) *Loop {
	rtt := env.BaseRTT
	if rtt <= 0 {
		rtt = 10 * engine.Microsecond
	}
	return &Loop{spec: spec, env: env, a: a, rtt: rtt, mtu: max(env.MTU, 1),
		buf: make([]fabric.INTHop, 0, fabric.MaxINTHops)}
}

// Now is the loop's current time.
func (l *Loop) Now() engine.Time { return l.now }

// Acks is the number of ACKs delivered so far.
func (l *Loop) Acks() int { return l.acks }

// Run advances the loop by d with sig shaping the ACKs (nil: plain ACKs),
// calling each (if not nil) after every event.
func (l *Loop) Run(d engine.Time, sig Signal, each func(now engine.Time)) error {
	until := l.now + d
	for {
		ackAt := engine.Never
		if l.head < len(l.inflight) {
			ackAt = l.inflight[l.head].SentAt + l.rtt
		}
		timerAt := l.a.NextTimer()
		sendAt := engine.Never
		if w := l.a.Window(); w <= 0 || l.sndNxt-l.sndUna < w {
			sendAt = max(l.nextSend, l.now)
		}
		t := min(ackAt, timerAt, sendAt)
		if t > until {
			l.now = until
			return nil
		}
		if t < l.now {
			return fmt.Errorf("%s: NextTimer() = %v is before the loop's time %v", l.spec.Name, t, l.now)
		}
		l.now = t
		switch t {
		case ackAt:
			l.ack(sig)
		case timerAt:
			l.a.OnTimer(t)
			if next := l.a.NextTimer(); next <= t {
				return fmt.Errorf("%s: after OnTimer(%v), NextTimer() = %v, want later", l.spec.Name, t, next)
			}
		default:
			if err := l.send(); err != nil {
				return err
			}
		}
		if each != nil {
			each(t)
		}
	}
}

func (l *Loop) send() error {
	r := l.a.Rate()
	if r <= 0 {
		return fmt.Errorf("%s: Rate() = %v at %v, want positive", l.spec.Name, r, l.now)
	}
	if l.head > 0 && l.head == len(l.inflight) {
		l.inflight, l.head = l.inflight[:0], 0
	}
	l.inflight = append(l.inflight, Packet{SentAt: l.now, Seq: l.sndNxt, Bytes: l.mtu, Rate: r})
	l.sndNxt += l.mtu
	l.nextSend = l.now + r.TxTime(l.mtu)
	return nil
}

func (l *Loop) ack(sig Signal) {
	pkt := l.inflight[l.head]
	l.head++
	if l.head > 4096 && l.head*2 > len(l.inflight) { // keep the FIFO compact
		n := copy(l.inflight, l.inflight[l.head:])
		l.inflight, l.head = l.inflight[:n], 0
	}
	l.sndUna = max(l.sndUna, pkt.Seq+pkt.Bytes)
	fb := cc.Feedback{Now: l.now, AckSeq: l.sndUna, SndNxt: l.sndNxt, INT: l.buf[:0]}
	if l.spec.NeedsTimestamp {
		fb.RTT = l.now - pkt.SentAt
	}
	if sig != nil {
		sig(&fb, pkt)
	}
	l.acks++
	l.a.OnAck(&fb)
}
