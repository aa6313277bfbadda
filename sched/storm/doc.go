// Package storm implements STORM, the RNIC scheduler of "STORM: Enabling
// Traffic Scheduling for RDMA" (SIGCOMM 2026), as dcsim reconstructs it
// (docs/model.md §6.6 says what is published, §6.7 what dcsim adds). Three
// variants share one Scheduler type and one Params struct:
//
//	storm         dynamic tags, first-BDP rule, receiver grants, urgency order
//	storm-sender  dynamic tags, first-BDP rule, no grants (the ConnectX-6 testbed)
//	storm-sw      tags chosen by host software at post time, round robin, no grants
//
// The variants are compositions, not modes (variant.go): each is a
// tagger (software tags decided at post time, or the NIC's dynamic tags),
// for dynamic tags a gate for bytes past the first BDP (the receiver's
// grants, or open), a hand-over of posted bytes (at once, or after the
// software decision delay) and, for storm, the receiver side and the
// sender's announcements. newScheduler installs a variant's policies as
// function-valued fields; no method asks which variant it is. A scenario
// builds one with New(p, Env{BDP: maxBdp}), p from DefaultParamsFor(variant)
// with its YAML overrides; Counters(hosts) gives the cluster's counts for
// run.parquet ("storm.guard_stalls", ...). The scheduler speaks only to
// rnic: Host.Wake when a grant or a hand-over may let it pick, Stamp to
// write its announcement into a packet, Host.SendControl for grants.
//
// # Units
//
// Sizes and offsets are bytes (offsets in a QP's byte stream, from 0, where
// a READ request or an ATOMIC occupies one unit: rocev2.Verb.Units),
// times engine.Time picoseconds, classes 0..7 with 0 the control class and
// lower numbers higher priorities.
//
// # Transactions
//
// STORM schedules transactions, not work requests. A message joins the
// QP's last transaction when that transaction still has unsent bytes and
// (grouping = auto, the default) both carry the same nonzero TxnID, or
// both carry TxnID 0 and the message is posted within group_window (1 us,
// inclusive: with 0 only posts at the same instant group) of the
// transaction's previous message; otherwise it starts a new
// transaction. grouping = id uses ids only (TxnID 0 never groups),
// temporal uses time only, none makes every message a transaction. The
// window is measured between consecutive posts, so a steady stream of
// posts closer than the window keeps growing one transaction; the
// "unsent bytes" rule ends it once the NIC has caught up. A transaction
// that is fully sent never grows, because its receiver learns of growth
// only from packets still to come. Backlog is the number of transactions
// queued behind the head-of-line one on the same QP.
//
// # Sender
//
// A transaction of at most bdp_bytes (default: the topology's maxBdp) is
// sent at P_small. A larger one sends its first bdp_bytes at P_backlog if
// another transaction was queued behind it when it became the head of
// line, else at P_low; that choice is made once, at that moment. In
// storm-sender the rest follows in the same class. In storm the rest
// waits for a grant and goes in the grant's class. A packet leaves only if
// its bytes are eligible and the NIC says the QP is ready (CC window and
// pacing are unchanged); since a packet carries up to one MTU, the last
// eligible packet may run past bdp_bytes or the granted offset by less
// than an MTU. Egress order: control first (the rnic's queue), then
// strict priority over classes, then within a class urgency order
// (backlog desc, remaining bytes of the HOL transaction asc, then the QP
// served least recently, then QP id) or, for storm-sw, round robin (least
// recently served first).
//
// storm-sw decides a transaction's class when it is posted, from its size
// so far and the number of the QP's transactions posted earlier and not
// yet completed ("backlog at post time": its queue position, since
// software sees its own unfinished work requests, not what queues behind);
// a message joining the transaction re-decides with the new size and the
// same position. It is never revised as the QP drains. The whole
// transaction uses that class; nothing is gated except by
// sw_decision_delay: a message reaches the NIC that long after it is
// posted (one software decision per message, decisions overlap).
//
// priorities = 2 merges P_backlog into P_small; priorities = 1 sends every
// packet in P_low (dcsim's choice: the published default is 3).
//
// # Receiver and grants (storm)
//
// Every data packet of a super-BDP transaction carries, in Packet.Arg, its
// transaction's ordinal on the QP, the QP's current backlog and the bytes
// of the transaction after it (see wire.go); the first such packet to
// arrive makes the transaction a candidate at its receiver. Packets that
// announce, the first-BDP ones (and small ones with small_in_active_set),
// cost storm_header_bytes extra on the wire. Candidates with backlog > 0
// wait for one of slots_backlog slots, ranked backlog desc, remaining asc
// (remaining = announced end minus the highest byte received), then
// announcement order; candidates with backlog 0 wait for one of
// slots_other slots, ranked by remaining. A free slot goes at once to the
// best candidate of its kind (with lend, of the other kind when none of
// its own waits), which gets a GRANT: a control packet of grant_bytes
// (60) in grant_class (0) from the receiver's NIC through the fabric,
// carrying the sender's QP id, the stream offset below which it may send
// (its transaction's end, or with grant_granularity = chunk the bytes
// received so far plus grant_chunk_bytes, renewed whenever less than a
// chunk is outstanding), and the class: P_backlog for a candidate with
// backlog, P_low for the other. The occupant's slot frees when its last
// byte arrives. If the transaction grows after its grant, a further grant
// follows. With small_in_active_set, P_small transactions occupy a slot
// from their first packet to their last without being granted (they may
// overfill it); a small transaction that grows past 1 BDP becomes a
// candidate. Grants in class 0 are never dropped; with grant_class > 0 on
// a lossy fabric a lost grant leaves its transaction waiting (no grant
// retransmission).
//
// # Receiver gap-fills
//
// The paper's text gives the ranking (backlog, then remaining), the 1+1
// slots and "grants", and is silent on how the receiver learns backlog
// that arises while a transaction waits, whether the active set is
// re-ranked, and what happens to a slot whose sender does not use its
// grant. Read literally (Params.Literal: preempt, backlog_updates,
// release_after_rtts and lend off), measured on storm-cloud at load 0.8
// (WebSearch, DCQCN, issue #12): 99.6% of waiting transactions with work
// queued behind them were ranked as having none, because a transaction
// that waits for a grant sends no data to piggyback on; the backlog slot
// sat empty 99.97% of the waiting time; and in 72% of the moments a
// receiver's downlink idled while candidates waited, its one granted
// sender was busy with another receiver's grant (Homa's overcommitment
// problem). Full STORM then had a mean slowdown 1.4x fair sharing's. Each
// gap is filled with the reading the authors most plausibly meant, as a
// knob (defaults in brackets):
//
//   - backlog_updates [true]: the sender tells the receiver when the
//     backlog behind its announced, not fully sent, HOL transaction
//     changes, in a control packet of backlog_update_bytes [60, a grant's
//     size] in grant_class, counted as storm.backlog_updates (their bytes
//     in the run's control bytes). The ranking the paper publishes is
//     "larger backlog first"; it can only work if the receiver hears of
//     backlog, and a waiting transaction has no data packet to carry it.
//     Rate limit: at most one per QP per backlog_update_gap [0 = the base
//     RTT], a change within the gap sent at its end. Backlog behind a live
//     transaction only grows, so coalescing loses nothing but latency, and
//     a receiver cannot act on backlog faster than a grant's round trip.
//   - preempt [true]: the active set is ranked continuously. A candidate
//     more urgent than the least urgent occupant of its kind takes its
//     slot when it is announced, when a backlog update re-ranks it, or when
//     it returns from release; the occupant's grant is revoked at the bytes
//     received (the receiver knows exactly those; what is in flight still
//     arrives) and it becomes a candidate again. "Active set ... ranked by
//     backlog, then remaining" reads as a ranked set, not a first-come
//     lock held for a whole remainder of megabytes. A candidate's own
//     trailing data (the tail of its first BDP or of a revoked grant)
//     re-ranks it but does not preempt: each revocation's bytes in flight
//     would make the revoked transaction look the more urgent, and two
//     transactions would take the slot back and forth (measured before
//     this rule in TestActiveSet's set-up).
//   - release_after_rtts [2]: an occupant of which no byte arrived for
//     that many base RTTs while a candidate waits for its slot is
//     released (storm.grants_released; a revocation at the bytes
//     received) and parked as long again before it is a candidate again.
//     One release check is pending at a time, so the release comes when
//     the occupant has been idle release_after and at the latest
//     release_after after a candidate began to wait.
//     This is the counterpart of pHost's token expiry and downgrading of
//     unresponsive senders (docs/model.md §6.5): a grant that is not used
//     goes to someone who can use it. Two RTTs: a grant used at once
//     returns its first byte one RTT after it leaves (one way each), and
//     a sending occupant's bytes arrive back to back; a second RTT is the
//     margin for queueing in the data classes. Parking: the sender was
//     busy elsewhere, so granting it again at once would idle the slot
//     again. Sensitivity: docs/studies/storm.md.
//   - lend [false]: a slot with no candidate of its kind may go to the
//     other kind. The paper's "two-slot receiver controller" has one slot
//     per priority, so lending is an ablation axis, as are slots_backlog
//     and slots_other (published default 1 and 1, kept).
//
// # Promotion guard
//
// In-order RoCEv2 must never let a QP's later packet overtake an earlier
// one, and packets of different classes can overtake each other at a
// strict-priority or PFC-paused switch port. With guard = stall (default)
// a QP whose next packet's class differs from the class of its
// unacknowledged packets waits until they are all acknowledged; with
// inherit it keeps sending in the old class until then; off sends anyway
// (for ablations: it produces NACKs). Under a guard all of a QP's
// unacknowledged packets share one class, so a go-back-N retransmission
// (send point below the highest byte sent) is sent in that class and
// passes every gate: it only repeats bytes already sent. Counters:
// storm.guard_stalls counts stall episodes, storm.guard_inherited the
// packets sent in an inherited class.
//
// # Limits of the wire encoding
//
// The receiver learns a QP's backlog saturated at 1023 (its ranking
// cannot tell larger backlogs apart), transactions by their ordinal on the
// QP modulo 65536 (two live transactions of one QP never collide unless
// 65536 are queued), and a transaction's end exactly once fewer than 2^36
// of its bytes remain (before that, a remainder grant is unbounded and
// ranking treats it as the largest). storm_header_bytes are added to the
// packet in Stamp (rnic.Stamper), before the rnic computes the QP's pacing
// gap and the port's serialisation from its size, so they cost pacing
// like any other header. storm-sender and storm-sw announce nothing and
// pay no header.
//
// # Invariants
//
// Pick returns a QP that is ready, whose next bytes are eligible, in a
// class that is not paused; a QP is in exactly one class heap while it may
// send and in none otherwise, re-ranked in O(log n) on every notification
// that concerns it. Every decision costs O(number of classes + log n).
// The scheduler is deterministic: it iterates no maps and draws no random
// numbers. It passes sched/schedtest.Run.
package storm
