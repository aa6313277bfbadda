// Package rocev2 is the RoCEv2 reliable-connection transport as pure state
// machines: a Sender (requester) and a Receiver (responder) are handed the
// time and a packet's fields and answer with what to send; the NIC does the
// scheduling and the packets. Each has two implementations, go-back-N
// (GBNSender, GBNReceiver: the reference model) and selective repeat
// (SelectiveSender, SelectiveReceiver); a NIC picks one of each per QP when
// it is built and calls only the interfaces. Every Sender keeps a Stream
// (Una, Nxt, End, HighSent) that the NIC reads as plain fields on its hot
// path. Where the two differ in a rule rather than in state, the rule is
// the implementation's: a READ response acknowledges its request under
// go-back-N (Sender.OnResponse) and a go-back-N receiver does not ACK an
// in-order READ request; a selective receiver discards an out-of-order
// ATOMIC unless ReceiverConfig.KeepAtomics.
//
// Sequence numbers are offsets in a QP's sequence space, as in the
// reference model: SEND, WRITE and READ-response data occupy their bytes
// (so CC sees byte sequences, as it does in the reference), and a READ
// request or an ATOMIC, which carry no payload, occupy one unit (the PSN
// they consume in InfiniBand). Opcode is a packet's BTH opcode (SEND,
// WRITE and READ response first/middle/last/only, READ request,
// FETCH_ADD, CMP_SWAP, ATOMIC ACK, ACK, NAK); Verb is a work request's,
// and Verb.Packet gives the opcode of each of its packets, Verb.PSNs the
// packet sequence numbers it consumes (a READ as many as its response has
// packets). Headers.RequestWire and AtomicAckWire add the extended
// transport headers (RETH 16 B, AtomicETH 28 B, AtomicAckETH 8 B). The
// go-back-N receiver accepts only the next expected byte: an in-order packet is ACKed when the in-order point
// passes the next milestone (AckInterval bytes; 1 = every packet, the
// reference) or ends a message; a packet beyond a gap is discarded and
// answered with a NACK of the expected offset, at most once per
// NackInterval for the same offset; a duplicate is discarded silently,
// except that a duplicate ending a message is re-ACKed (an InfiniBand
// responder re-acknowledges duplicates; the reference model does not, and
// without it a lost final ACK in a lossy run hangs the flow until it is
// resent forever). CE marks are echoed on the next ACK or NACK (the
// reference's CNP flag).
//
// The go-back-N sender keeps snd_una, snd_nxt and the highest byte ever sent; a NACK
// acknowledges what precedes it and rewinds snd_nxt to it, a timeout
// rewinds to snd_una, and bytes sent again are counted as retransmitted.
//
// SelectiveSender and SelectiveReceiver are the same QP under IRN-style
// selective repeat (SIGCOMM 2018, "Revisiting Network Support for RDMA",
// section 3.1; selective.go): out-of-order data is kept and NACKed with
// its range, the requester resends only the lost ranges; the sender's Nxt
// is the next hole to resend, else HighSent. rnic uses them under
// nic.receiver: selective.
//
// # Reordering is not loss: the reorder-tolerant mode
//
// IRN's requester treats every byte below a selectively acknowledged one
// as lost the moment a NACK names it: right on one path, where only a
// drop reorders, and wrong under per-packet or flowlet adaptive routing,
// where packets of one QP overtake each other and every overtaking packet
// draws a NACK and a resend of a packet that is only late (measured:
// 264k NACKs and 388 MB resent at k = 12 with per-packet AR and no hot
// spot). SelectiveSender.DupThresh > 0 (scenario nic.sack) with
// ReceiverConfig.Sack is the mode TCP uses for the same problem: the
// responder answers an out-of-order packet with an ACK that carries the
// cumulative point and the packet's range (a SACK, the size of a NACK)
// and says nothing about loss; the requester (OnSack) keeps its
// scoreboard of SACKed ranges and treats a hole as lost only when RFC
// 6675's IsLost holds for it: DupThresh discontiguous SACKed ranges above
// it, or more than (DupThresh - 1) x MTU SACKed bytes above it (DupThresh
// full packets). The default, 3, is TCP's three duplicate ACKs (RFC 5681,
// RFC 6675's DupThresh). Lost bytes are resent once (RFC 6675; a second
// recovery does not resend a hole already resent and still open) and the
// timeout covers a lost resend and a loss with fewer than DupThresh
// packets after it (a tail loss), as IRN's does.
//
// Why a count of packets by default, and RACK's time window (RFC 8985: a
// packet is lost once one sent after it is delivered and a reorder
// window, by default a quarter of the minimum RTT, has passed) only as an
// option: the count uses the scoreboard the sender already keeps and needs
// no clock, where RACK needs a send time per packet in flight and an RTT
// estimate, which a QP without an RTT-based CC does not have; it is exact
// in packets, so tests state it in packets; and it is what TCP stacks
// without RACK do. Its cost: reordering deeper than DupThresh packets is
// still taken for loss (spurious resends; dup_threshold is the knob), and
// a real loss is resent DupThresh - 1 packets later than IRN resends it.
// Per-packet adaptive routing reorders deeper than 3 packets (docs/fabric-and-transport.md,
// "Reordering is not loss"), so SelectiveSender.ReorderWindow (scenario
// nic.sack.reorder_window, default 0: off) adds RACK's idea in the form
// the scoreboard supports: the lowest hole is lost only when the count
// condemns it and it has been open for the window since the first SACK
// above it (the time since reordering was seen, not since the packet was
// sent, so no per-packet send times). The verdict is taken when an ACK
// arrives and, as RACK's reorder timer does, when the window ends
// (VerdictAt: rnic arms a timer there), so a loss after which no ACK
// comes is resent one window after the first SACK above it. Holes
// above the lowest wait until it is filled, so several losses in one
// window are resent one window apart; in a lossless fabric every hole is
// reordering and fills itself. NICs built for adaptive routing place
// out-of-order packets directly in memory, as dcsim's selective receiver
// does (eager placement); how they decide loss is not published, so the
// default follows TCP's published rule. With DupThresh 0 (the default)
// everything is IRN's, byte for byte.
//
// Headers gives wire sizes: ReferenceHeaders (data = payload + 48 B, ACK =
// max(60, 46 + CC bytes)) and RealisticHeaders (62 B Ethernet/IP/UDP/BTH
// overhead, 66 B ACKs, 20 B preamble and gap per frame).
package rocev2
