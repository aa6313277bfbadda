// Package rocev2 is the RoCEv2 reliable-connection transport as pure state
// machines: Sender (requester) and Receiver (responder) are handed the time
// and a packet's fields and answer with what to send; the NIC does the
// scheduling and the packets.
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
// receiver accepts only the next expected
// byte (go-back-N): an in-order packet is ACKed when the in-order point
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
// The sender keeps snd_una, snd_nxt and the highest byte ever sent; a NACK
// acknowledges what precedes it and rewinds snd_nxt to it, a timeout
// rewinds to snd_una, and bytes sent again are counted as retransmitted.
//
// SelectiveSender and SelectiveReceiver are the same QP under IRN-style
// selective repeat (SIGCOMM 2018, "Revisiting Network Support for RDMA",
// section 3.1; selective.go): out-of-order data is kept and NACKed with
// its range, the requester resends only the lost ranges. They are tested
// state machines; rnic drives them under nic.receiver: selective.
//
// Headers gives wire sizes: ReferenceHeaders (data = payload + 48 B, ACK =
// max(60, 46 + CC bytes)) and RealisticHeaders (62 B Ethernet/IP/UDP/BTH
// overhead, 66 B ACKs, 20 B preamble and gap per frame).
package rocev2
