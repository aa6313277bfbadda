// Package isolation models congestion isolation in fat-trees with ARN+AFI
// (Rocher-Gonzalez, Escudero-Sahuquillo, Garcia, Quiles, arXiv
// 2502.00616; docs/model.md §10): a congestion detector per switch
// output port and class, adaptive routing notifications (ARNs) from the
// root of a congestion tree to the lower stages that can route around it,
// and the Adapted Flow Channel (AFC), a class of its own at every input
// buffer for the flows the notifications adapt. The authors' simulator
// (SAURON, OMNeT++, InfiniBand-like with credits) is not public; what the
// paper leaves open is chosen here and said so.
//
// # Detector
//
// Detector is a pure state machine (Observe is handed now, the queue's
// occupancy and the downstream's free credits). With HCDTh, LCDTh, FCTh
// and CRT:
//
//	occ > HCDTh and free > FCTh, continuously for CRT -> Root
//	occ > HCDTh otherwise                             -> Branch
//	occ < LCDTh                                       -> Normal
//
// (LCDTh's hysteresis is docs/model.md §10.1's inference.) A candidate waiting
// out CRT is a Branch; the waiting is exact, by a timer event at the end
// of CRT, not sampled. Occupancy is the class's egress queue at the port;
// for a Root it also counts the AFC's bytes at the port, since the flows
// its ARN adapted are still the congestion at that port (without that a
// root would drain its own class into the AFC, return to normal, clear
// its entries, and form again every few microseconds). Free credits map
// onto Ethernet as docs/model.md §10.1 says: a downstream switch's free
// input buffer for the class, VCBuffer minus what it holds from this port
// in that class (fabric.Switch.IngressBytes; with Config.DelayedView as it
// was one link delay earlier), 0 while the class is paused by PFC; a host
// always has VCBuffer free. Detectors are observed at every
// enqueue and dequeue of their class (fabric.QueueMonitor) and at their
// timers. The AFC has no detector: adapted flows cannot root new trees.
// Counters count the transitions into each state, and Config.OnChange is
// the trace point of every change.
//
// # ARNs
//
// A port that becomes a Root generates an ARN {destination, output port,
// class, ARNid, the root's tier}: the destination is the one with the most
// bytes in the root's queue. (The paper gives the field, not how a root
// picks it. The packet at the head of the queue was the first reading
// tried: at a root below the hot spot's leaf, where hot-spot and other
// traffic share a queue, it sometimes named a victim's destination, whose
// flow was then adapted into the AFC behind the tree and stalled until
// the entry expired.) The root's switch handles it as every
// switch handles an arriving one (handle):
//
//   - an ARNid seen before at this switch is a duplicate and is dropped;
//   - a switch with more than one next hop towards the destination (an
//     alternative up port) consumes it: an entry in its ARN table;
//   - any other switch forwards it upstream: on every port towards a
//     switch that is not one of its next hops to the destination, i.e.
//     every port from which traffic for the destination can arrive.
//
// In a fat-tree with the root at a leaf's port to a host, the ARN climbs
// to the pod's aggregation switches, which pass it to their cores and
// their pod's other leaves (those consume it); the cores pass it down to
// the aggregation switch of every other pod, which consumes it. On a
// k = 4 fat-tree that is 20 frames, 7 entries and 7 duplicates
// (TestARNOneRoot). The paper says "forwarded upstream until a lower stage
// with an alternative upward port"; which upstream ports it takes is not
// given: all of them, as here, reaches every switch whose traffic can feed
// the root, and the ARNid stops the copies.
//
// Entries live Config.EntryLifetime (arn_entry_lifetime, default 100 us:
// not given in the paper). A port that stays a root sends a fresh ARN
// (new ARNid) every EntryLifetime/2, which renews the entry for its
// destination and class wherever it is consumed, so its entries never
// lapse while it lasts (with a refresh every EntryLifetime the renewal
// raced the expiry and adapted flows fell back to their class for an
// instant, reordering and PAUSEing it again); a root that returns to Normal sends, with ClearOnNormal
// (arn_clear_on_normal, default true), a clearing ARN with its last ARNid
// along the same way, which removes that entry where it was consumed.
// ARN frames are 64 B control frames (class 0: never paused, not
// admitted against the buffer).
//
// Every frame is accounted for: Sent = Received + in transit, and every
// message handled, generated or received, is consumed, forwarded, a
// duplicate or dropped (Check; under -tags invariants it runs at every
// 64th received frame and its failure panics).
//
// # Routing and the AFC
//
// Router wraps the base router (ECMP or fabric.Adaptive). A data packet
// whose (destination, class) matches a live entry at this switch gets the
// adapted bit: its class becomes the AFC's (Config.AFC, default 7), which
// is how the bit is carried (the class is the SL-to-VC choice; nothing
// else may use the AFC's class). An adapted packet, there or at any later
// switch, is routed deterministically: next hop destination mod the
// number of next hops (D-mod-k), so the adapted flows to one destination
// converge on one path and cannot spread the tree. The paper's "takes
// the alternative upward port" is this port. ACKs of adapted data travel
// in the AFC too, since the NIC answers in the data's class.
//
// At the switch that adapts a packet, the packet stays charged to the
// input buffer of the class it arrived in until it leaves (the ingress
// class the switch keeps for it); the AFC begins at the next switch's
// input. That is the paper's switch: routing decides at the input
// buffer, where the packet is already stored in the VC it came in, and
// the adapted bit selects the VC of the next input buffer (the SL-to-VC
// table is applied per hop). So an adapted packet held up downstream can
// fill its old class's input and PAUSE (with credit links: stall) that
// class upstream, for one hop, as it would in the paper's network;
// charging it to the AFC's input instead would free buffer the packet
// still occupies. fabric's TestAdaptedPacketHoldsItsArrivalClass shows
// the accounting under PFC and under credits.
//
// Config.AdaptGap (switch.isolation.adapt_gap, default 5 us) makes the
// decision per flowlet: a flow moves into or out of the AFC at a switch
// only after that much silence there, as switch.routing's flowlets do.
// The paper's network has no transport; dcsim's NIC is go-back-N, and a
// flow moved mid-flowlet overtakes its own packets queued in the old
// class, each costing a NACK and a resend of the window. 0 is the paper's
// reading (move at once).
//
// # Baselines
//
// QueueMap is the static queueing schemes the paper compares with, each
// a function from a data packet to one of VCs classes, the same at every
// switch: DBBM (destination mod VCs), vFtree (the destination's leaf mod
// VCs) and Flow2SL (a hash of source and destination mod VCs); the
// paper names them without restating them, and these are the readings
// used. 1Q is no map (one data class); adaptive routing alone is
// fabric.Adaptive without Isolation; ARN off with the AFC on is
// Isolation with Config.ARN false (detectors and counters, no entries,
// so nothing enters the AFC: it shows that the AFC alone changes
// nothing). AFI is below.
//
// # AFI
//
// AFI, the authors' earlier proposal that the paper compares with, is
// named there but not restated. Config.AFI (switch.isolation.afi, off by
// default) models it as the reading its name and the paper's contrast
// suggest: adaptive routing with the AFC and the same detectors, but no
// ARN. The switch that diverts a packet is the one that adapts it: a data
// packet not yet in the AFC whose base router decision at this switch (the
// adaptive routing choice) is not the next hop it takes with idle ports
// (the ECMP hash's, which fabric.Adaptive's tie-break reproduces, so
// "diverted" is exact) while that next hop's detector for the packet's
// class is a Root or a Branch gets the adapted bit: it leaves on the
// adaptive choice in the AFC and is routed D-mod-k at every later switch,
// as ARN-adapted packets are (Router.Route, adapt, diverted). The
// detection is local, so only congestion the switch itself sees at its up
// ports is avoided, and only after adaptive routing has already moved
// the flow; ARN+AFI moves the flows that feed a root at the lowest stage
// that can avoid it, before their packets reach the congested port. With
// AdaptGap > 0 the decision is per flowlet, as for ARN entries. AFI alone
// is AFI with ARN false (examples/isolation scheme afi); both on adapt a
// packet when either says so. Counters.Diverted counts AFI's decisions;
// under ECMP (no adaptive routing) nothing is ever diverted.
// TestAFIDivertsFromCongestedPort checks every case on a k = 4 fat-tree.
//
// # On a World
//
// Everything a switch's handlers touch is its own: its detectors and
// their timers (on the switch's thread, fabric.Switch.Network().Sim), its
// ARN table, the ARNids it gives out (its index in the high bits, so
// roots at different switches never collide, as the one global counter
// they replace never did) and its counters (Counts sums them). ARN
// frames are packets and cross units on the links like any other. The
// one thing a switch reads of another is the downstream's free buffer
// (free), which a switch in another unit of a World cannot read at the
// instant while its thread runs. So on a World isolation runs with
// Config.DelayedView (switch.isolation.credit_view: delayed) only: every
// detector sees its downstream's buffer as it was one link delay earlier
// (fabric.Network.DelayIngressView), within a unit and across units, which
// is the same model on the sequential engine. In the paper's network the
// upstream's free credits are themselves a link delay old (credits come
// back over the link). Over 16 seeds of arn-afi the delayed view moves no
// metric of the sequential engine systematically (docs/parallel.md,
// "Congestion isolation on the World"); an earlier design, a copy of the
// downstream's buffer refreshed at windows' ends, lowered the slowdown by
// 11-14% and was dropped. The invariants check of every 64th ARN frame reads
// every switch and runs on the sequential engine only; Check at the
// run's end runs on both.
package isolation
