// Package fabric models the network: packets, links, switch ports and
// their queues, the shared buffer with PFC, ECN marking, INT stamping,
// routing, topologies and trace points. It knows nothing of transports or
// NICs: a host attaches to its port as a Node (what arrives) and a Source
// (what to send when the transmitter is free).
//
// # Links and ports
//
// A Port is one end of a full-duplex link. Its transmitter serializes one
// packet at a time at Rate (size*8/rate, exact in ps); the packet then
// travels Delay and is delivered to the Peer's owner. Packets in flight
// wait in the port's own ring with their delivery times, so only the next
// delivery is in the event queue. A transmitter that finishes with nothing
// left to send schedules no event; the next enqueue starts it (Kick).
//
// # Switches
//
// Switches are output queued with 8 priority classes per egress port. Class
// 0 (control: PFC, CNP, optionally ACKs and grants) is always served first
// and never paused, marked or admitted against the buffer. The other
// classes are served by strict priority (the classes in Config.Strict, in
// class order) and then weighted round robin with Config.Weights packets
// per turn ("rr" = all weights 1, the reference model's discipline;
// "strict" = every class strict), skipping paused classes.
//
// Buffer and PFC follow the reference model's Broadcom-style MMU exactly
// (docs/model.md §3.3; switch-mmu.cc SwitchMmu): per ingress (port, class)
// reserve, shared and headroom bytes, a dynamic PAUSE threshold (buffer -
// headroom - reserve - shared) >> shift with shift 3 at the NIC rate and
// one less per doubling, RESUME with a 3072 B offset. Receivers hold a
// PAUSE until the RESUME (the reference ignores the pause timer). In lossy
// mode there is no PFC and an egress queue may hold at most LossyAlpha
// times the free buffer (Choudhury-Hahne dynamic threshold; the reference
// model has no lossy mode), optionally capped by LossyQueueLimit; drops
// are counted.
//
// # Headroom and the no-drop invariant
//
// What differs from the reference is the size of each ingress port's
// headroom, the bytes it may still take after the switch decided to
// PAUSE. The HPCC ns-3 model sets it in third.cc (ConfigHdrm: rate * delay
// / 8 / 10^9 * 3, delay in ns) and switch-mmu.cc only checks it
// (CheckIngressAdmission drops with "Headroom full"): three one-way
// link-delays of bytes whatever the MTU, 37,500 B at 100 Gbps and 1 us.
// That covers the round trip (25,000 B) and 12,500 B of frames, which is
// enough at MTU 1000 but not at 9000 (three 9048 B frames), where a
// lossless fabric dropped. Config.Headroom = HeadroomSized sizes it from
// what can arrive after the decision (Config.SizedHeadroom): the round
// trip's bytes, three maximum frames (the one delaying the PAUSE at this
// end, the one the upstream has started, and the one that triggered the
// PAUSE when the dynamic threshold had already fallen below the port's
// share), the PAUSE frame and the upstream's response time. With two
// frames instead of three a k = 4 fat-tree without CC drops at MTU 9000
// and 4096; with three it never does (scenario TestLosslessNeverDrops).
// At MTU 1000 the sized headroom is smaller than the reference's (28,187 B
// against 37,500 at 100 Gbps, 103,187 against 150,000 at 400 Gbps).
// Scenarios use HeadroomCovering (switch.pfc_headroom: auto), the larger
// of the two per port: where the reference's number suffices, dcsim's
// PFC thresholds stay the reference model's, so results at the
// reference's MTU are comparable with it unchanged; where it would drop,
// the sized number. A smaller headroom than the reference's would only
// move the PAUSE threshold by a few KB (4,076,096 B against 4,034,064 on
// a default leaf's 100 Gbps port), not fix anything. switch.pfc_headroom:
// sized and reference select one rule; compat: hpcc-ns3 keeps
// HeadroomReference, ns-3's exact number.
//
// A drop in lossless mode counts in one of two ways. A packet that
// reaches an ingress (port, class) that, during the current PAUSE,
// received a packet its sender sent into the paused class counts as
// PauseIgnoredDrops: NICs send ACKs while their data class is paused
// (ack_high_prio, the reference's ACK_HIGH_PRIO), and no headroom bounds
// that; the reference drops such ACKs too. Any other drop counts as
// HeadroomDrops, a sizing error: Check (run after every 64 events under
// -tags invariants) fails on it, and a scenario run warns on it.
//
// Credit-based links (Config.Credits > 0, scenario switch.credit; credit.go)
// replace PFC: a port towards a switch may send a data packet of class c
// only while it holds credits for it (at least MaxFrame), spends its size
// at transmission, and gets it back one link delay after the packet left
// the switch; no PAUSE is sent and nothing is dropped, and each switch
// input holds at most Credits bytes per class (CheckCredits, part of
// Check). Ports facing hosts have none. Off, the only cost is one
// boolean test per transmission.
//
// # Flow control and the reference profile: policies chosen at Build
//
// Lossy, PFC and credit-based links are three implementations of one
// unexported interface, ingress (ingress.go): admit a data packet to the
// buffer or refuse it, release it as it leaves, check the mode's
// invariants. Build picks one from the Config by the table ingressModes
// (credits if Credits > 0, else PFC if PFC, else lossy) and every switch
// calls it; its state stays where it was, per switch (the mmu) and per
// upstream port (credits, Port.cr), so a mode holds none and a
// partitioned run could share it read-only. A new mode is its file
// (lossy.go, pfc.go, credit.go) and one line in that table.
//
// The fabric's half of scenario compat: hpcc-ns3 is chosen the same way,
// once, from the Config fields that wiring's rules table sets
// (wiring/ns3profile.go). One is an interface value that the default
// path calls as it called the code it replaced; three stay a test on the
// path, in lines it loads anyway:
//
//   - the serialization clock, Port.wholeNs: engine.Rate.TxTime, or
//     TxTimeWholeNs under Config.WholeNs, asked only where a port has no
//     whole per-byte time (with WholeNs, every port); a flag in the
//     port's transmission line rather than a function value, which gave
//     its 8 bytes to the link-between-units pointer (Port.xl);
//   - the switches' random draws, switchDraws: RED's marking decisions
//     from the seed's "ecn" stream, or from NS3Rand, which also takes a
//     stream for every packet in RED's range that dcsim does not judge
//     and for every PFC frame (the default's hooks for those do nothing);
//     a switch releases a dequeued packet's buffer after the marking
//     decision under both, the order ns-3's draws need, which changes no
//     run with dcsim's own (marking reads the egress queue, the release
//     the ingress accounting);
//   - the event order, Port.eventPerPkt (Config.NS3EventOrder), stays a
//     byte on the port's delivery line tested at a delivery and twice at
//     a transmission: what it changes is when events are scheduled, and
//     a function value there would be an indirect call per packet;
//   - INT's quantisation (Config.INTBytesUnit), one test per stamped
//     hop, only where INT is on.
//
// An interface call per admission and per release was chosen over a
// switch on a mode number because it measured no dearer. Instructions
// (cachegrind; the shared machine's CPU times vary by 5-50%), dcsim's own
// code in one BenchmarkNetwork/dcqcn run: 8.079 G with the branches,
// 8.004 G with the modes, built without profile-guided optimisation
// (-0.9%: the modes test nothing per packet, the draws take no nil test
// of NS3Rand); with cmd/dcsim's default.pgo, profiled on the code
// before, 7.545 G and 7.584 G (+0.5%: the profile no longer names the
// call sites, so mmu.admit is no longer inlined), and 7.267 G with a
// profile taken on this code. BenchmarkSwitchPath, 400,000 packets:
// 783.5 M and 778.2 M. A mode with a value receiver cost 20 instructions
// more per call (the interface went through a copying wrapper): the
// modes have pointer receivers. CPU time, interleaved (benchstat, 12
// runs each): Network/dcqcn 795k pkts/cpu-s ± 5% before, 820k ± 8% after
// (p = 0.89); LargeFabric hosts=1024 (8 runs) 508k ± 28% and 509k ± 17%.
//
// ECN is RED at dequeue on the egress class queue's bytes after the packet
// left: above kmax always, between kmin and kmax with probability rising to
// pmax. Thresholds are given at 100 Gbps and scaled with the port rate;
// ClassECN overrides them per class. INT, when on, pushes one exact hop
// record (rate, time, bytes sent before the packet, bytes left queued) per
// switch egress on data packets; see INTHop for how it differs from the
// reference's quantised fields.
//
// # Parallel runs
//
// BuildWorld instantiates a topology on an engine.World (docs/parallel.md;
// world.go has the design): Units puts each switch in a unit with its
// hosts, Lookahead is the smallest delay between units (a zero one is an
// error naming the link), and each unit's ports and switch run on its
// thread's view of the Network, with the thread's Sim, Pool, ring arena
// and counters (Counters sums them). A link between units hands the
// window's packets to the receiving unit at the window's end, which then
// delivers them one at a time as a link within a unit does, so a port's
// Observer sees Deliver on the receiving unit's thread. Credit returns
// between units go the same way. ECN and spraying draw from a stream per
// switch ("ecn/<index>", "spray/<index>"), so a World's run differs from
// Build's, but not between thread counts: every port, switch and host
// observes the same for any number of threads and any split of units
// (TestWorldSameForEveryThreadCount). The ns-3 compatibility settings,
// routers not known to be safe (ParallelRouter) and fabric/isolation stay
// on Build's single thread.
//
// # Routing
//
// Router is a per-switch decision. ECMP hashes (src, dst, sport|dport<<16)
// with MurmurHash3 salted with the switch id (and a seed-derived salt) over
// the equal-cost next hops; Spray picks a next hop per packet. NS3ECMP is
// the reference model's hash exactly, for scenario compat: hpcc-ns3
// (switch-node.cc SwitchNode::GetOutDev, EcmpHash): the hosts' IPs as
// third.cc node_id_to_ip gives them (11.0.x.1 from the node id), the
// switch's node id as the seed, no salt, over next hops in the order the
// reference's BFS (third.cc CalculateRoute) lists them, which is port
// order here.
//
// Adaptive is adaptive routing: among the equal-cost next hops (a
// fat-tree switch's up ports towards a leaf not below it) the one with
// the least egress occupancy (queued bytes, then a busy transmitter),
// ties by the flow's ECMP hash, so that with idle up ports it routes as
// ECMP with the same salt does. Per flowlet (FlowletGap > 0, a table of
// FlowletSlots slots per switch indexed by the flow hash) a flow changes
// port only after a silence of FlowletGap; per packet (FlowletGap = 0)
// every packet is routed afresh and a QP's packets reorder.
// TestAdaptiveBalancesCollision: two line-rate flows that ECMP
// hashes onto one of two up ports get 571 packets each in 100 us, under
// adaptive routing 1,142 each (the full line).
//
// A switch with a QueueMonitor (Switch.SetMonitor; package
// fabric/isolation) tells it of every enqueue and dequeue of a data
// class and hands it the ARN frames that arrive; the router may then
// change a packet's class (the egress class), while the buffer charges
// the class it arrived in (Packet.ectx). Without a monitor a hop pays
// one nil comparison.
//
// Switch.Routes gives a switch's equal-cost next hops towards a host, in
// port order, from one of two tables:
//
//   - Up/down tables, for topologies with tiers (Topology.Tiers: SpineLeaf,
//     FatTree, Star). Every switch has a Tier (leaf, aggregation, core)
//     and its UpPorts and DownPorts (links to a higher and a lower tier,
//     hosts included), for adaptive routing to build on. A packet for a
//     leaf below the switch takes the one down port towards it; any other
//     goes up on all up ports. The table is one uint16 port per leaf below
//     the switch, dense over that range of leaves: k^4/8 entries for a
//     k-ary fat-tree's cores and k^3/4 for its aggregation switches (663k
//     entries, 1.3 MB at k = 48), S x L for a spine-leaf; leaves need none.
//     The build computes them bottom up in time proportional to their
//     size and rejects tiers that break the rules (then it falls back).
//   - Shortest-path tables, for topologies without tiers (topology files,
//     dumbbell): per destination switch, the ports whose peer is one hop
//     closer by BFS, filled for one destination switch at a time when a
//     packet (or PathBetween) first needs it, so memory and time grow with
//     the destinations in use, at most S^2.
//
// Both give the same next hops in the same order where both apply
// (TestUpDownMatchesShortestPaths compares them switch by switch and host
// by host on spine-leaf and fat-tree shapes), so ECMP's and NS3ECMP's
// choices, and every output, are those of the all-pairs BFS that preceded
// them. MaxRTTBDP on up/down tables climbs each leaf's chain of first up
// ports and reuses, per (ancestor, child) on a chain, the longest down
// path per bottleneck rate, instead of walking every pair of leaves.
//
// Config.WholeNs truncates every serialization time to whole ns as ns-3's
// Seconds(DataRate::CalculateTxTime(size)) does (qbb-net-device.cc
// QbbNetDevice::TransmitStart; engine.Rate.TxTimeWholeNs): 1048 B at 100
// Gbps take 83 ns, not 83.84, a 60 B ACK 4 ns and an exact 80 ns 79. It
// costs nothing when off: such ports take the path that non-integral
// per-byte rates already take. Config.NS3EventOrder gives each packet its
// own delivery event, scheduled when its transmission starts, as ns-3's
// QbbChannel::TransmitStart schedules QbbNetDevice::Receive, so that
// deliveries due at the same ns run in the order they were sent (with
// whole-ns times such ties are common); the default keeps only a link's
// next delivery in the event queue. Config.INTBytesUnit and INTQLenUnit
// quantise INT's byte counter and queue length as ns-3's IntHop::Set does
// (int-header.h: 128 and 80 B times INT_MULTI). Config.NS3Rand makes ECN
// draw as ns-3 does: each draw is the first output of the next stream of
// ns-3.17's MRG32k3a generator (switch-mmu.cc ShouldSendCN creates a fresh
// UniformVariable per decision; rng-stream.cc), streams also being taken
// for packets ns-3 draws for and dcsim does not mark (ACKs in a data
// class) and for each PFC frame (qbb-net-device.cc SendPfc); the buffer is
// released after the marking decision, in SwitchNotifyDequeue's order.
// With it the replay of the reference run marks the same packets.
//
// Adaptive routing fits the Router interface: it sees the switch's ports
// and their queues. Hosts never carry transit traffic.
//
// # Topologies
//
// SpineLeaf (default 8 leaves x 16 hosts at 100 Gbps, 4 spines, one 400
// Gbps link per leaf-spine pair, 1 us links: 1:1, docs/model.md §2.1), Star,
// Dumbbell, FatTree (k-ary, three tiers) and ReadTopologyFile (the
// reference model's topology.txt, parallel links kept). Host h is node h;
// switches follow. SpineLeaf's leaves are TierLeaf and its spines
// TierAggregation; FatTree's edge, aggregation and core switches are
// TierLeaf, TierAggregation and TierCore. EstimateFootprint gives the heap
// a topology needs (ports and MMU state, route tables, hosts) so that
// scenario validation rejects one too large before building it; a k = 48
// fat-tree (27,648 hosts) builds in under 1 s of CPU and 203 MiB of heap
// (BenchmarkBuild), k = 160 (1,024,000 hosts) in 10 s of CPU and 7.3
// GiB resident. PathBetween gives the first shortest path's rates and
// delays for ideal-FCT computations; MaxRTTBDP gives maxRtt and maxBdp.
//
// # Trace points and checks
//
// A Port's Observer sees enqueue, dequeue, transmit, deliver, drop, mark
// and pause/resume; a nil Observer costs one comparison. Check verifies
// the accounting at any instant, CheckQuiescent a drained network (every
// PAUSE answered, buffers empty).
//
// Packets are pooled (Pool): the component that removes a packet from the
// network returns it, and nothing keeps a pointer after that.
//
// # Memory layout
//
// What limits a packet simulator's speed is cache misses, not arithmetic:
// at 50% load the 128-host network holds 10-20 thousand packets in flight,
// and each hop touches a packet last seen a microsecond (thousands of
// events) ago. So a Packet is one 64-byte line, allocated line-aligned in
// 64 KiB slabs and recycled last-in first-out; wires and NIC queues are
// rings of pointers (pushing never touches another packet), switch class
// queues are linked through the packets (below); a Port keeps what
// every hop touches in its first three lines and each class's queue, byte
// count and ECN threshold in a line of its own, and caches its peer's owner
// and index so a delivery does not touch the peer; a switch's per-ingress
// accounting for one (port, class) sits in one line. TestPacketIsOneCacheLine,
// TestPortLayout and TestSwitchLayout pin this. Tried and dropped, measured with cachegrind:
// carrying a 24-byte header copy beside each packet in the rings (so a hop
// never touches the packet) cost more in ring traffic and copying than the
// misses it saved.
//
// Deep queues (no congestion control: a k = 8 fat-tree's 32 MiB buffers
// hold about a million packets) make both touches of a hop miss: the
// dequeue reads a packet queued milliseconds ago, the delivery one that
// left a microsecond ago, and the network holds 64 MB of packets. So each
// dequeue prefetches the next packet of its class queue, and each delivery
// the next packet on its wire (wire.touchNext), and the miss overlaps the
// work until that packet's turn instead of stalling it. The prefetch is a
// PREFETCHT0 instruction (internal/prefetch: Go has no prefetch intrinsic,
// so it is a two-instruction assembly function; a plain load on other
// architectures). A plain load, what these sites did first, holds up
// retirement until the line arrives, so a few such loads in flight stall
// the core; the instruction does not.
//
// A deep queue still costs more CPU per packet than the default network
// (issue #19): a backlogged port has a tx-done event per packet at every
// hop where an idle one sends on the enqueue, and each event waits longer
// on memory, because each hop dequeues a packet last touched milliseconds
// before. The event queue costs the same per event, and the garbage
// collector and page faults are a few percent. Tried and not kept, none
// outside the noise: prefetching the ring line after the head's or the
// one the next push writes; deep rings and packet slabs from huge-page
// blocks; CLDEMOTE of a packet queued behind others; PREFETCHT1 for
// PREFETCHT0. Both prefetches above pay for themselves. Measurements:
// docs/performance-notes.md, sections 2 and 3.1.
//
// So a switch port's class queue is a FIFO linked through its packets
// (qfifo), not a ring of pointers: the dequeue finds the next packet's
// index in the packet it pops, a line it loads anyway (and prefetched at
// the previous dequeue), and prefetches the next one from it, where it
// used to wait first for a ring slot written milliseconds before. The
// link is a 32-bit index (Packet.link: the packet's own index in its
// pool, or while it is queued behind another the next one's; Pool.at maps
// an index to the packet through a table of 1,024-packet chunks, 8 KB
// for a million packets), and INT stacks are named by a 32-bit index too
// (Pool.Hops), so the two fit in the 8 bytes the INT pointer took and
// the Packet holds no pointer: its slabs are not scanned by the garbage
// collector. Order is unchanged (a FIFO per class; the discipline picks
// the class as before), and so is every output. How much it gains
// depends on the host's cache (measurements: docs/performance-notes.md,
// section 3.1).
//
// Large fabrics span more memory than the TLB maps: a k = 32 fat-tree's
// 49,152 ports take 44 MB in 4 KiB pages, and BenchmarkSparseFabric (the
// same 128 flows on 128 and on 8,192 hosts) costs about twice as much per
// event on it with as many ports in use. So Build asks the kernel for
// transparent huge pages on the port slab before its first write
// (adviseHugePages: madvise MADV_HUGEPAGE on Linux, where THP set to
// "madvise" honours it; Go does not ask by itself). The rest of the
// per-hop state is in huge pages too: every switch's ingress accounting in
// one block (Build), a pool's slabs of packets past its first 2 MiB in
// 8 MiB slabs (newSlab; Go aligns them to 8 KiB only, so at least three of
// every four 2 MiB pages in them are whole), and, on networks of 4,096
// ports or more, the wires' and class queues' rings of up to 64 slots
// from 8 MiB blocks (ringArena) rather than one Go allocation each.
// Addresses decide no result, so outputs are unchanged.
//
// On a k = 32 fat-tree at 50% load (BenchmarkLargeFabric hosts=8192, 164k
// packets in flight over 49,152 ports) a delivery was three misses in a
// row: the port's first line, then the ring slot it names, then the
// packet the slot names. So a wire keeps its head packet in the port's
// first line (wire.hp): the packet's address comes with the port, and the
// next slot is read after the pop, off the chain. And ECMP takes a single
// next hop (a down port) from Switch.nextHops as a port number, without
// loading the one-element slice of portIDs that Routes returns.
// Measurements: docs/performance-notes.md, sections 2 and 3.1.
//
// Then the per-hop state was laid out again so that a hop touches fewer
// lines (issue #19; the per-hop lines table in docs/performance-notes.md,
// section 2, counts them: about 21 distinct lines per switch hop before, 16 after,
// two of those pairs). A hop of a data packet is the delivery at the
// upstream port A, the switch's Receive (route, admission, enqueue) and
// the egress port B's transmission:
//
//   - Port (896 B, a multiple of 128, page-aligned slab): line 0 holds the
//     wire (head packet and its time, the ring header) and the peer's
//     owner; line 1 the observer, the network, the peer, the transmitter's
//     busy time and flags. A delivery touches these two lines only, a
//     128-byte aligned pair (Intel's L2 spatial prefetcher fetches the
//     pair together); it used to touch three (line 2 for eventPerPkt and
//     peerIdx). Line 2 holds the queue summary, timing and counters for
//     enqueue and transmission; Owner, Rate, Index, the pause bookkeeping
//     and the report-only counters are cold, and no hop touches them
//     (enqueue and transmit loaded the cold line for Port.net before).
//     The wire keeps no byte count (WireBytes visits the packets), so a
//     pop does not load the packet's size on its chain.
//   - Switch (384 B, all in one page-aligned block): line 0 the network,
//     its block of ports, the router and monitor; line 1 the up/down
//     table and UpPorts; line 2 the accounting's summary (free, the PAUSE
//     threshold's constant part, reserve, shared, used). A switch's ports
//     are contiguous in the port slab (Build allocates each node's ports
//     together, in link order), so Receive takes the egress port as
//     &ports[i] and no longer loads the pointer array Ports.
//   - Ingress accounting (mmuPort): 128 B per switch port, 128-aligned,
//     with entries for the data classes 1-7 only (class 0 is never
//     admitted against the buffer): the header and classes 1-3 share the
//     first line, so admitting or releasing a packet of the default data
//     class (3) touches one line where it touched two (144 B per port,
//     the header and class 3 always 64 B apart).
//
// Tried and not kept: the wire's first two packets inline in line 0 with
// the ring's header in the cold lines (busy 100 Gbps wires hold a dozen
// packets, so most pops still read a ring slot, and now behind a load of
// the cold ring header); and prefetching, at each pop, the ring line the
// next pop will read when the head moves into a new one (four slots share
// a line): not shown to help (docs/performance-notes.md, section 3.1).
package fabric
