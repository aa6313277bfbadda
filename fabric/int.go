package fabric

import "github.com/dcsim/dcsim/engine"

// MaxINTHops is the depth of the INT stack a data packet carries
// (docs/model.md §3.5); a path longer than this wraps and overwrites.
const MaxINTHops = 5

// INTHop is one switch's in-band telemetry record, pushed on a data packet
// when it leaves an egress port and echoed to the sender in the ACK.
//
// dcsim keeps the exact values rather than the reference model's
// fixed-width fields (24-bit ns time, 20-bit byte counter in 128*INT_MULTI B
// units, 17-bit queue length in 80*INT_MULTI B units): the wire cost is
// still charged (42 B for HPCC), but the simulated sender sees unquantised
// telemetry. Deltas are therefore plain differences. Config.INTBytesUnit
// and INTQLenUnit (scenario compat: hpcc-ns3) quantise TxBytes and QLen to
// the reference's units instead; its 24-bit time field would wrap only
// after 16.8 ms between two samples of one hop, which is not reproduced.
type INTHop struct {
	LineRate engine.Rate // egress link rate
	Time     engine.Time // dequeue time of this packet
	TxBytes  int64       // bytes the port had transmitted before this packet
	QLen     int64       // bytes still queued at the port (all classes) after it left
}
