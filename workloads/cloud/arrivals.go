package cloud

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dcsim/dcsim/engine"
)

// arrival is the next arrival time of one source; pos is the source's
// index in its generator's host list.
type arrival struct {
	at   engine.Time
	host int
	pos  int
}

// arrivals is a binary min-heap of per-source next-arrival times ordered by
// (time, host id), so simultaneous arrivals come out in host order. Typed,
// so push/pop do not box.
type arrivals []arrival

func (h arrivals) less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].host < h[j].host)
}

func (h *arrivals) push(a arrival) {
	*h = append(*h, a)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// removeMin drops the root.
func (h *arrivals) removeMin() {
	s := *h
	n := len(s) - 1
	s[0] = s[n]
	*h = s[:n]
	h.down()
}

// down restores the heap after the root's time grew.
func (h arrivals) down() {
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// poissonClock draws exponential gaps in picoseconds.
type poissonClock struct {
	meanGap float64 // ps
	stop    engine.Time
}

// after returns the next arrival after t and whether it falls before stop.
// The exponential gap is rounded to the nearest picosecond: the rounding is
// at most 0.5 ps per gap and zero in the mean, so the arrival rate is kept.
// The comparison with stop is made before rounding so that huge gaps cannot
// overflow int64.
func (c poissonClock) after(t engine.Time, r *rand.Rand) (engine.Time, bool) {
	gap := r.ExpFloat64() * c.meanGap
	if t >= c.stop || !(gap < float64(c.stop-t)) { // also catches NaN
		return 0, false
	}
	next := t + engine.Time(math.Round(gap))
	return next, next < c.stop
}

// hostArrivals are independent Poisson processes of one mean gap, one
// per host, merged in time order: the heap holds each host's next arrival.
type hostArrivals struct {
	clock poissonClock
	heap  arrivals
}

// start draws each host's first arrival after start, in hosts order.
func (h *hostArrivals) start(meanGap float64, hosts []int, start, stop engine.Time, r *rand.Rand) {
	h.clock = poissonClock{meanGap: meanGap, stop: stop}
	h.heap = make(arrivals, 0, len(hosts))
	for pos, host := range hosts {
		if at, ok := h.clock.after(start, r); ok {
			h.heap.push(arrival{at: at, host: host, pos: pos})
		}
	}
}

// advance replaces the earliest arrival by its host's next one, or drops
// it when the host has no arrival left before stop.
func (h *hostArrivals) advance(r *rand.Rand) {
	a := &h.heap[0]
	if next, ok := h.clock.after(a.at, r); ok {
		a.at = next
		h.heap.down()
	} else {
		h.heap.removeMin()
	}
}

// meanGapPS is the mean inter-arrival time, in ps, of a Poisson process
// that sends bytesPerArrival bytes per arrival at a long-run rate of
// load * rate bits/s (docs/model.md §7.3: 8 * mean / (B_host * load)).
func meanGapPS(bytesPerArrival float64, rate engine.Rate, load float64) float64 {
	return 8 * bytesPerArrival / (float64(rate) * load) * float64(engine.Second)
}

// sampleOthers puts into dst[:0] the hosts other than self, of which the
// first k, in ascending id, are a uniform sample without replacement (a
// partial Fisher-Yates, k draws from r), and returns it. Incast's senders
// and a storage request's servers are drawn so.
func sampleOthers(dst, hosts []int, self, k int, r *rand.Rand) []int {
	dst = dst[:0]
	for _, h := range hosts {
		if h != self {
			dst = append(dst, h)
		}
	}
	for i := 0; i < k; i++ {
		j := i + r.IntN(len(dst)-i)
		dst[i], dst[j] = dst[j], dst[i]
	}
	slices.Sort(dst[:k])
	return dst
}

// checkHosts validates a host list: at least min hosts, non-negative, distinct.
func checkHosts(field string, hosts []int, least int) error {
	if len(hosts) < least {
		return fmt.Errorf("%s: need at least %d hosts, got %d", field, least, len(hosts))
	}
	seen := make(map[int]bool, len(hosts))
	for _, h := range hosts {
		if h < 0 {
			return fmt.Errorf("%s: negative host %d", field, h)
		}
		if seen[h] {
			return fmt.Errorf("%s: host %d listed twice", field, h)
		}
		seen[h] = true
	}
	return nil
}

// checkWindow validates an arrival window [start, stop).
func checkWindow(start, stop engine.Time) error {
	if start < 0 {
		return fmt.Errorf("start: negative time %v", start)
	}
	if stop < start {
		return fmt.Errorf("stop: %v is before start %v", stop, start)
	}
	return nil
}

// checkLoad accepts finite non-negative loads.
func checkLoad(field string, load float64) error {
	if math.IsNaN(load) || math.IsInf(load, 0) || load < 0 {
		return fmt.Errorf("%s: must be a finite number >= 0, got %v", field, load)
	}
	return nil
}
