package scenario

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		sets []string
		want string
	}{
		{"malformed yaml", "name: x\nworkload: [\n", nil,
			"scenario.yaml:2: did not find expected node content"},
		{"bad indentation", "name: x\n  seed: 2\n", nil,
			"scenario.yaml:2: mapping values are not allowed in this context"},
		// yaml.v3 names no line for an error on the first one.
		{"syntax error on line 1", "a: b: c\n", nil,
			"scenario.yaml:1: mapping values are not allowed in this context"},
		{"tab on line 1", "\tname: x\n", nil,
			"scenario.yaml:1: found character that cannot start any token"},
		{"two documents", "name: a\n---\nname: b\n", nil,
			"scenario.yaml:3: more than one YAML document; a scenario is one mapping"},
		{"top level list", "- 1\n- 2\n", nil,
			"scenario.yaml:1: want a mapping of scenario fields at the top level, got a list"},
		{"unknown top field", "name: x\nseeds: 3\n", nil,
			`scenario.yaml:2: seeds: unknown field "seeds" (valid: name, seed, compat, duration, drain_limit, measure, topology, switch, nic, cc, workload, extra_workloads, trace, parallel)`},
		{"unknown nested field", "switch:\n  ecn:\n    kmn: 1KB\n", nil,
			`scenario.yaml:3: switch.ecn.kmn: unknown field "kmn" (valid: enabled, base_rate, kmin, kmax, pmax)`},
		{"duplicate field", "seed: 1\nseed: 2\n", nil,
			"scenario.yaml:2: seed: set twice (first at line 1)"},
		{"--set twice", "", []string{"seed=7", "nic.mtu=4096", " seed =8"},
			"--set  seed =8: seed: set twice (first --set seed=7)"},
		{"negative load", "workload:\n  kind: cloud\n  load: -0.1\n", nil,
			"scenario.yaml:3: workload.load: -0.1 is not in (0, 1)"},
		{"load 1", "workload:\n  load: 1\n", nil,
			"scenario.yaml:2: workload.load: 1 is not in (0, 1)"},
		{"load above 1", "\n\n\n\n\n\n\n\n\n\n\nworkload: {load: 1.4}\n", nil,
			"scenario.yaml:12: workload.load: 1.4 is not in (0, 1)"},
		{"load 0", "workload:\n  load: 0\n", nil,
			"scenario.yaml:2: workload.load: 0 is not in (0, 1)"},
		{"load nan", "workload:\n  load: .nan\n", nil,
			"scenario.yaml:2: workload.load: NaN is not in (0, 1)"},
		{"load not a number", "workload:\n  load: half\n", nil,
			`scenario.yaml:2: workload.load: want a number, got "half"`},
		{"unknown scheduler", "nic:\n  scheduler: lottery\n", nil,
			`scenario.yaml:2: nic.scheduler: unknown scheduler "lottery" (valid: fair, fair-message, srpt, pias, storm, storm-sender, storm-sw)`},
		{"unknown cc", "cc:\n  algorithm: bbr\n", nil,
			`scenario.yaml:2: cc.algorithm: unknown algorithm "bbr" (valid: none, dcqcn, hpcc, timely, dctcp)`},
		{"unknown key under scheduler", "nic:\n  scheduler: fair\n  fair:\n    quantum: 3\n", nil,
			`scenario.yaml:4: nic.fair.quantum: unknown field "quantum": nic.fair takes no parameters`},
		{"unknown key under inactive scheduler", "nic:\n  fair-message: {x: 1}\n", nil,
			`scenario.yaml:2: nic.fair-message.x: unknown field "x": nic.fair-message takes no parameters`},
		{"too many hosts", "topology: {leaves: 2000, hosts_per_leaf: 1000}\n", nil,
			"scenario.yaml:1: topology.hosts_per_leaf: 2000000 hosts is more than the limit of 1048576"},
		{"unregistered sub-map", "nic:\n  lottery: {slots: 1}\n", nil,
			`scenario.yaml:2: nic.lottery: unknown field "lottery" (valid: mtu, qp_mapping, data_class, ack_class, ack_interval, nack_interval, rto, cnp, cnp_interval, realistic_headers, receiver, fence, sack, scheduler; or a scheduler's name for its parameters: fair, fair-message, srpt, pias, storm, storm-sender, storm-sw)`},
		{"unknown knob of an inactive scheduler", "nic:\n  storm: {slots: 1}\n", nil,
			`scenario.yaml:2: nic.storm.slots: unknown field "slots" (valid: bdp_bytes, priorities, slots_backlog, slots_other, grant_granularity, grant_chunk_bytes, preempt, backlog_updates, backlog_update_gap, backlog_update_bytes, release_after_rtts, lend, small_in_active_set, grouping, group_window, within_class_order, guard, storm_header_bytes, grant_bytes, grant_class, sw_decision_delay, p_small, p_backlog, p_low)`},
		{"duration without unit", "duration: 10\n", nil,
			`scenario.yaml:1: duration: bad duration "10": want a number with a unit (ps, ns, us, ms, s)`},
		{"rate with a bad unit", "topology:\n  host_link: 100Mbit\n", nil,
			`scenario.yaml:2: topology.host_link: bad rate "100Mbit": want a number with a unit (bps, Kbps, Mbps, Gbps, Tbps)`},
		{"size with a bad unit", "switch:\n  buffer: 32 megs\n", nil,
			`scenario.yaml:2: switch.buffer: bad size "32 megs": want bytes with an optional unit (B, KB, KiB, MB, MiB, GB, GiB)`},
		{"zero rate", "topology:\n  fabric_link: 0\n", nil,
			"scenario.yaml:2: topology.fabric_link: must be a positive rate, got 0bps"},
		{"mapping for a scalar", "seed: {a: 1}\n", nil,
			"scenario.yaml:1: seed: want a single value, got a mapping"},
		{"list for a struct", "switch: [1, 2]\n", nil,
			"scenario.yaml:1: switch: want a mapping, got a list"},
		{"float for an int", "nic:\n  mtu: 1000.5\n", nil,
			`scenario.yaml:2: nic.mtu: want an integer, got "1000.5"`},
		{"yes is not a bool", "switch:\n  pfc: yes\n", nil,
			`scenario.yaml:2: switch.pfc: want true or false, got "yes"`},
		{"negative seed", "seed: -1\n", nil,
			`scenario.yaml:1: seed: want a non-negative integer, got "-1"`},
		{"kmin above kmax", "switch:\n  ecn:\n    kmin: 2MB\n    kmax: 1MB\n", nil,
			"scenario.yaml:3: switch.ecn.kmin: 2MB is above kmax (1MB)"},
		{"kmin above default kmax", "switch:\n  ecn: {kmin: 2MB}\n", nil,
			"scenario.yaml:2: switch.ecn.kmin: 2MB is above kmax (1600KB)"},
		{"pmax above 1", "switch:\n  ecn: {pmax: 1.5}\n", nil,
			"scenario.yaml:2: switch.ecn.pmax: 1.5 is not in [0, 1]"},
		{"per-packet adaptive routing", "switch:\n  routing: {kind: adaptive, flowlet_gap: 0s}\n", nil,
			"scenario.yaml:2: switch.routing.flowlet_gap: must be positive, got 0s: per-packet adaptive routing reorders a QP's packets; it needs nic.receiver: selective"},
		{"flowlet slots not a power of two", "switch:\n  routing: {flowlet_slots: 1000}\n", nil,
			"scenario.yaml:2: switch.routing.flowlet_slots: must be a power of two in [1, 2^20], got 1000"},
		{"unknown routing kind", "switch:\n  routing: {kind: flood}\n", nil,
			`scenario.yaml:2: switch.routing.kind: unknown routing kind "flood" (valid: ecmp, adaptive, spray)`},
		{"spray under go-back-N", "switch:\n  routing: {kind: spray}\n", nil,
			"scenario.yaml:2: switch.routing.kind: spray reorders a QP's packets; it needs a selective nic.receiver (selective, ooo-eager or ooo-ordered)"},
		{"unknown fence", "nic: {fence: explicit}\n", nil,
			`scenario.yaml:1: nic.fence: unknown fence "explicit" (valid: none, implicit)`},
		{"halo batch above ring", "workload:\n  kind: halo\n  halo: {batch: 100, ring_capacity: 64}\n", nil,
			"scenario.yaml:3: workload.halo.batch: 100 is more than ring_capacity (64)"},
		{"halo grid too big", "topology: {kind: star, hosts: 4}\nworkload:\n  kind: halo\n  halo: {x: 3}\n", nil,
			"scenario.yaml:4: workload.halo.x: a 3x2x2 grid needs 12 hosts, workload.hosts has 4"},
		{"halo relaxed without bound", "workload:\n  kind: halo\n  halo: {relaxed_ordering: true, relaxed_max: 0s}\n", nil,
			"scenario.yaml:3: workload.halo.relaxed_max: must be positive with relaxed_ordering, got 0s"},
		{"mpitrace matrix order", "topology: {kind: star, hosts: 4}\nworkload:\n  kind: mpitrace\n  mpitrace: {p: 2, q: 2, n: 100000000, nb: 1}\n", nil,
			"scenario.yaml:4: workload.mpitrace.n: 100000000 is above the limit of 1048576"},
		{"mpitrace wrapping grid", "topology: {kind: star, hosts: 4}\nworkload:\n  kind: mpitrace\n  mpitrace: {p: 4611686018427387905, q: 4}\n", nil,
			"scenario.yaml:4: workload.mpitrace.p: a 4611686018427387905 x 4 grid has more than 4096 processes"},
		{"mpitrace blocks", "topology: {kind: star, hosts: 4}\nworkload:\n  kind: mpitrace\n  mpitrace: {p: 2, q: 2, n: 100000, nb: 1}\n", nil,
			"scenario.yaml:4: workload.mpitrace.nb: 100000 x 100000 blocks (n 100000 / nb 1) are more than the limit of 16777216"},
		{"mpitrace iterations", "topology: {kind: star, hosts: 4}\nworkload:\n  kind: mpitrace\n  mpitrace: {p: 2, q: 2, iterations: 1000000000}\n", nil,
			"scenario.yaml:4: workload.mpitrace.iterations: 1000000000 iterations of 4 ranks x 1 phases are more than the limit of 67108864"},
		{"mpitrace buckets", "topology: {kind: star, hosts: 8}\nworkload:\n  kind: mpitrace\n  mpitrace: {app: inception-v3, ranks: 8, bucket: 1}\n", nil,
			"scenario.yaml:4: workload.mpitrace.bucket: 95407136 buckets of 8 ranks make more than 4194304 ring steps (at most 37449 buckets)"},
		{"mpitrace ring", "workload:\n  kind: mpitrace\n  mpitrace: {app: inception-v3, ranks: 2000}\n", nil,
			"scenario.yaml:3: workload.mpitrace.ranks: 2000 ranks make 7996000 ring steps per bucket, more than the limit of 4194304"},
		{"halo ring too big", "workload:\n  kind: halo\n  halo: {ring_capacity: 100000000000}\n", nil,
			"scenario.yaml:3: workload.halo.ring_capacity: 100000000000 slots in each of up to 48 rings are more than the limit of 67108864"},
		{"halo poll too fast", "workload:\n  kind: halo\n  halo: {poll_interval: 1ps}\n", nil,
			"scenario.yaml:3: workload.halo.poll_interval: 1ps is below the limit of 1ns (a poll of host memory takes far longer)"},
		{"halo side", "workload:\n  kind: halo\n  halo: {x: 100000000}\n", nil,
			"scenario.yaml:3: workload.halo.x: 100000000 is above the limit of 1048576"},
		{"halo per flow", "nic: {qp_mapping: per-flow}\nworkload: {kind: halo}\n", nil,
			"scenario.yaml:1: nic.qp_mapping: per-flow, but workload is halo, which needs one QP per host pair (per-pair) so that a batch's WRITEs and FETCH_ADD share a QP"},
		{"halo pool", "nic: {qp_mapping: pool:2}\nextra_workloads: [{kind: halo}]\n", nil,
			"scenario.yaml:1: nic.qp_mapping: pool:2, but extra_workloads[0] is halo, which needs one QP per host pair (per-pair) so that a batch's WRITEs and FETCH_ADD share a QP"},
		{"lcd above hcd", "switch:\n  isolation: {lcd_th: 0.6}\n", nil,
			"scenario.yaml:2: switch.isolation.lcd_th: 0.6 is above hcd_th (0.5)"},
		{"threshold not a fraction", "switch:\n  isolation: {fc_th: 2}\n", nil,
			"scenario.yaml:2: switch.isolation.fc_th: 2 is not a fraction of vc_buffer in [0, 1]"},
		{"afc is the data class", "switch:\n  isolation: {afc_class: 3}\n", nil,
			"scenario.yaml:2: switch.isolation.afc_class: 3 is nic.data_class: the AFC must be a class of its own"},
		{"arn lifetime 0", "switch:\n  isolation: {arn_entry_lifetime: 0s}\n", nil,
			"scenario.yaml:2: switch.isolation.arn_entry_lifetime: must be positive and finite, got 0s"},
		{"queueing vcs over the afc", "switch:\n  isolation: {}\n  queueing: {vcs: 5}\n", nil,
			"scenario.yaml:3: switch.queueing.vcs: classes 3..7 include switch.isolation.afc_class 7"},
		{"unknown queueing scheme", "switch:\n  queueing: {scheme: voq}\n", nil,
			`scenario.yaml:2: switch.queueing.scheme: unknown queueing scheme "voq" (valid: dbbm, vftree, flow2sl)`},
		{"wrr weights count", "switch:\n  wrr_weights: [1, 2]\n", nil,
			"scenario.yaml:2: switch.wrr_weights: want 8 values, got 2"},
		{"wrr weight zero", "switch:\n  wrr_weights: [1, 1, 1, 0, 1, 1, 1, 1]\n", nil,
			"scenario.yaml:2: switch.wrr_weights[3]: must be at least 1, got 0"},
		{"mtu 0", "nic:\n  mtu: 0\n", nil,
			"scenario.yaml:2: nic.mtu: must be in [1, 9216], got 0"},
		{"pool:0", "nic:\n  qp_mapping: pool:0\n", nil,
			`scenario.yaml:2: nic.qp_mapping: "pool:0": the pool size must be at least 1`},
		{"bad qp mapping", "nic:\n  qp_mapping: per-host\n", nil,
			`scenario.yaml:2: nic.qp_mapping: unknown mapping "per-host" (valid: per-flow, per-pair, pool:K)`},
		{"data class 0", "nic: {data_class: 0}\n", nil,
			"scenario.yaml:1: nic.data_class: must be in [1, 7], got 0"},
		{"flowlist without file", "workload:\n  kind: flowlist\n", nil,
			"scenario.yaml:1: workload.flowlist.file: required when workload.kind is flowlist"},
		{"flowlist with empty file", "workload:\n  kind: flowlist\n  flowlist:\n    file: ''\n", nil,
			"scenario.yaml:4: workload.flowlist.file: required when workload.kind is flowlist"},
		{"sub-map of another kind", "workload:\n  kind: cloud\n  incast: {senders: 3}\n", nil,
			"scenario.yaml:3: workload.incast: only allowed when workload.kind is incast (it is cloud)"},
		{"unknown workload kind", "workload: {kind: mpi}\n", nil,
			`scenario.yaml:1: workload.kind: unknown workload kind "mpi" (valid: cloud, incast, flowlist, storage, simai, collective, hotspot, halo, mpitrace)`},
		{"unknown distribution", "workload: {distribution: websearh}\n", nil,
			`scenario.yaml:1: workload.distribution: unknown distribution "websearh" (valid: ` + strings.Join(testCat.distributionNames(), ", ") + ")"},
		{"too many incast senders", "topology: {kind: star, hosts: 16}\nworkload:\n  kind: incast\n", nil,
			"scenario.yaml:2: workload.incast.senders: 60 senders but only 15 hosts besides the receiver"},
		{"host out of range", "topology: {kind: star, hosts: 4}\nworkload: {hosts: 0-4}\n", nil,
			"scenario.yaml:2: workload.hosts: host 4 does not exist (the topology has 4 hosts)"},
		{"bad host list", "workload: {hosts: 3-1}\n", nil,
			`scenario.yaml:1: workload.hosts: bad host range "3-1" in "3-1": the end is below the start`},
		{"extra workload error", "extra_workloads:\n  - kind: incast\n    incast: {load_fraction: 2}\n", nil,
			"scenario.yaml:3: extra_workloads[0].incast.load_fraction: 2 is not in (0, 1)"},
		{"warmup not before duration", "duration: 1ms\nmeasure: {warmup: 1ms}\n", nil,
			"scenario.yaml:2: measure.warmup: 1ms is not before duration (1ms)"},
		{"topology file missing", "topology: {kind: file}\n", nil,
			"scenario.yaml:1: topology.file: required when topology.kind is file"},
		{"odd fat-tree k", "topology: {kind: fat-tree, k: 5}\n", nil,
			"scenario.yaml:1: topology.k: must be even, got 5"},
		{"unknown metric", "trace:\n  metrics: [queue_depth, latency]\n", nil,
			`scenario.yaml:2: trace.metrics[1]: unknown metric "latency" (valid: queue_depth, pause_time, utilisation, qp_rate, efficiency)`},
		{"merge key", "base: &b {seed: 1}\n<<: *b\n", nil,
			`scenario.yaml:1: base: unknown field "base" (valid: name, seed, compat, duration, drain_limit, measure, topology, switch, nic, cc, workload, extra_workloads, trace, parallel)`},
		{"alias error keeps anchor line", "x: &w {load: 3}\n", nil,
			`scenario.yaml:1: x: unknown field "x" (valid: name, seed, compat, duration, drain_limit, measure, topology, switch, nic, cc, workload, extra_workloads, trace, parallel)`},

		// --set overrides.
		{"bad set path", "", []string{"workload.lod=0.8"},
			`--set workload.lod=0.8: workload.lod: unknown field "lod" (valid: kind, distribution, load, hosts, incast, flowlist, storage, simai, collective, hotspot, halo, mpitrace)`},
		{"set through a scalar", "", []string{"seed.x=1"},
			"--set seed.x=1: seed: want a single value, got a mapping"},
		{"set through a scalar in the file", "workload: {load: 0.4}\n", []string{"workload.load.x=1"},
			"--set workload.load.x=1: workload.load is not a mapping"},
		{"bad set value", "workload: {load: 0.4}\n", []string{"workload.load=1.4"},
			"--set workload.load=1.4: workload.load: 1.4 is not in (0, 1)"},
		{"bad set unit", "", []string{"duration=10"},
			`--set duration=10: duration: bad duration "10": want a number with a unit (ps, ns, us, ms, s)`},
		{"set without =", "", []string{"duration"},
			"--set duration: want key=value"},
		{"set with bad path syntax", "", []string{"nic..mtu=3"},
			`--set nic..mtu=3: bad path element "" (want a field name, optionally with an index like [0])`},
		{"set with bad yaml", "", []string{"trace.metrics=[a"},
			"--set trace.metrics=[a: bad value: line 1: did not find expected ',' or ']'"},
		{"set index beyond the list", "", []string{"extra_workloads[1].load=0.1"},
			"--set extra_workloads[1].load=0.1: extra_workloads[1]: the list has 0 items"},
		{"set unknown scheduler", "", []string{"nic.scheduler=lottery"},
			`--set nic.scheduler=lottery: nic.scheduler: unknown scheduler "lottery" (valid: fair, fair-message, srpt, pias, storm, storm-sender, storm-sw)`},
		{"unknown nccl protocol", "workload:\n  kind: simai\n  simai: {protocol: LL}\n", nil,
			`scenario.yaml:3: workload.simai.protocol: unknown protocol "LL" (valid: ll, ll128, simple)`},
		{"negative forced channels", "workload:\n  kind: collective\n  collective: {force_channels: -1}\n", nil,
			"scenario.yaml:3: workload.collective.force_channels: must be in [0, 1024], got -1"},
		// Issue 27, item 9: yaml.v3 names no line for bad UTF-8, and a
		// grid of 2^32 x 2^32 wrapped to 0 processes.
		{"not utf-8", "name: x\nseed: 1\n# caf\xe9\n", nil,
			"scenario.yaml:3: not UTF-8 text: byte 0xe9 at column 6 (save the file as UTF-8)"},
		{"mpitrace grid wraps to 0", "topology: {kind: star, hosts: 4}\nworkload:\n  kind: mpitrace\n  mpitrace: {p: 4294967296, q: 4294967296}\n", nil,
			"scenario.yaml:4: workload.mpitrace.p: a 4294967296 x 4294967296 grid has more than 4096 processes"},
		// Issue 27, item 4: accepted values of unbounded cost.
		{"flowlet slots 2^24", "", []string{"switch.routing.flowlet_slots=16777216"},
			"--set switch.routing.flowlet_slots=16777216: switch.routing.flowlet_slots: must be a power of two in [1, 2^20], got 16777216"},
		{"flowlet tables of a k=48 fat-tree", "topology: {kind: fat-tree, k: 48}\nswitch:\n  routing: {flowlet_slots: 1048576}\n", nil,
			"scenario.yaml:3: switch.routing.flowlet_slots: the network would need about 45.2 GiB to build (ports 0.2 GiB, route tables 0.0 GiB, hosts 0.0 GiB, switch tables 45.0 GiB), above the builder's bound of 8.0 GiB"},
		{"isolation flow tables of a k=48 fat-tree", "topology: {kind: fat-tree, k: 48}\nswitch:\n  isolation: {flow_slots: 1048576}\n", nil,
			"scenario.yaml:3: switch.isolation.flow_slots: the network would need about 67.7 GiB to build (ports 0.2 GiB, route tables 0.0 GiB, hosts 0.0 GiB, switch tables 67.5 GiB), above the builder's bound of 8.0 GiB"},
		{"arn entry lifetime 1ps", "", []string{"switch.isolation={}", "switch.isolation.arn_entry_lifetime=1ps"},
			"--set switch.isolation.arn_entry_lifetime=1ps: switch.isolation.arn_entry_lifetime: 1ps is below the minimum of 4020480ps: roots refresh their ARNs every arn_entry_lifetime/2, which must be at least two topology.link_delay (1us) and two 64 B ARN frames at topology.host_link (5120ps), the time an ARN takes to act"},
		{"trace of QP rates every 1ps", "duration: 1us\ntrace: {interval: 1ps, metrics: [qp_rate]}\n", nil,
			"scenario.yaml:2: trace.interval: 1ps would sample 100001000000 times in duration + drain_limit (100001us), above the limit of 1e+08: use a longer interval"},
		{"trace rows of QP rates", "trace: {interval: 1ns, metrics: [qp_rate]}\n", nil,
			"scenario.yaml:1: trace.interval: 1ns would write at least 1.28e+09 sample rows (128 a sample: ports x metrics, a QP a host for qp_rate; x 10000000 samples in duration 10ms), above the limit of 1e+09: use a longer interval"},
		{"trace with an endless drain", "drain_limit: never\ntrace: {interval: 10us}\n", nil,
			"scenario.yaml:2: trace.interval: 10us with drain_limit: never would sample for as long as the drain lasts, without bound: give drain_limit a duration"},
		{"unknown credit view", "switch:\n  isolation: {credit_view: late}\n", nil,
			"scenario.yaml:2: switch.isolation.credit_view: unknown credit view \"late\" (valid: live, delayed)"},
		// Issue 27, item 5: accepted and silently ignored.
		{"afi without adaptive routing", "switch:\n  isolation: {afi: true}\n", nil,
			"scenario.yaml:2: switch.isolation.afi: true has no effect without adaptive routing (AFI adapts the packets adaptive routing diverts; the switches route by ECMP here): set switch.routing.kind: adaptive (or spray), or remove afi"},
		{"afi under ecmp", "switch:\n  routing: {kind: ecmp}\n  isolation: {afi: true}\n", nil,
			"scenario.yaml:3: switch.isolation.afi: true has no effect without adaptive routing (AFI adapts the packets adaptive routing diverts; the switches route by ECMP here): set switch.routing.kind: adaptive (or spray), or remove afi"},
		{"arn knob under arn: false", "switch:\n  isolation:\n    arn: false\n    arn_entry_lifetime: 50us\n", nil,
			"scenario.yaml:4: switch.isolation.arn_entry_lifetime: has no effect under arn: false (no ARN entries exist): remove it or set switch.isolation.arn: true"},
		{"arn clearing under arn: false", "", []string{"switch.isolation.arn=false", "switch.isolation.arn_clear_on_normal=false"},
			"--set switch.isolation.arn_clear_on_normal=false: switch.isolation.arn_clear_on_normal: has no effect under arn: false (no ARN entries exist): remove it or set switch.isolation.arn: true"},
		{"flowlet gap under ecmp", "switch:\n  routing:\n    kind: ecmp\n    flowlet_gap: 10us\n", nil,
			"scenario.yaml:4: switch.routing.flowlet_gap: has no effect under kind: ecmp (flowlets are adaptive routing's): remove it or set switch.routing.kind: adaptive"},
		{"flowlet slots under spray", "nic: {receiver: selective}\n", []string{"switch.routing.kind=spray", "switch.routing.flowlet_slots=64"},
			"--set switch.routing.flowlet_slots=64: switch.routing.flowlet_slots: has no effect under kind: spray (flowlets are adaptive routing's): remove it or set switch.routing.kind: adaptive"},
		// Issue 27, item 6: a gap below a packet's serialisation is a gap of 0.
		{"flowlet gap 1ps in order", "", []string{"switch.routing.kind=adaptive", "switch.routing.flowlet_gap=1ps"},
			"--set switch.routing.flowlet_gap=1ps: switch.routing.flowlet_gap: 1ps is shorter than one packet's serialisation (nic.mtu 1000 B at topology.host_link 100Gbps: 80ns), so it reorders a QP's packets as a gap of 0 does; it needs nic.receiver: selective, or a gap of at least 80ns"},
		{"set makes kmin exceed file kmax", "switch:\n  ecn:\n    kmax: 100KB\n", []string{"switch.ecn.kmin=200KB"},
			"--set switch.ecn.kmin=200KB: switch.ecn.kmin: 200KB is above kmax (100KB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := testCat.Parse("scenario.yaml", []byte(tt.in), tt.sets)
			if err == nil {
				t.Fatalf("got no error (scenario %q), want %q", s.Name, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has more than one line: %q", err)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("got %T, want *Error", err)
			}
		})
	}
}

func TestBuiltinErrorFile(t *testing.T) {
	_, err := testCat.Load("default", []string{"nic.mtu=0"})
	if got, want := err.Error(), "--set nic.mtu=0: nic.mtu: must be in [1, 9216], got 0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A validation error on a field the built-in text sets names the
	// built-in and the line.
	_, err = testCat.Load("default", []string{"measure.warmup=15ms"})
	if got, want := err.Error(), "--set measure.warmup=15ms: measure.warmup: 15ms is not before duration (10ms)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	_, err = testCat.Parse(builtinFile("default"), []byte("name: d\nduration: 0s\n"), nil)
	if got, want := err.Error(), "<builtin default>:2: duration: must be positive and finite, got 0s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestDefaultsAndExplicitZero: absent fields take their defaults; explicit
// zero or false values are kept.
func TestDefaultsAndExplicitZero(t *testing.T) {
	empty, err := testCat.Parse("empty.yaml", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := testCat.Default()
	want.Name = "empty"
	if diff := cmp.Diff(want, empty, ignoreCat); diff != "" {
		t.Errorf("empty input differs from Default (-want +got):\n%s", diff)
	}
	for _, in := range []string{"", "---\n", "~\n", "# only a comment\n"} {
		s, err := testCat.Parse("empty.yaml", []byte(in), nil)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if diff := cmp.Diff(want, s, ignoreCat); diff != "" {
			t.Errorf("%q differs from Default (-want +got):\n%s", in, diff)
		}
	}

	in := `
switch:
  pfc: false
  ecn: {enabled: false, kmin: 0B, kmax: 0B, pmax: 0}
  pfc_reserve: 0
measure: {warmup: 0s}
nic: {rto: 0s, nack_interval: 0s, realistic_headers: false}
trace: {interval: 0, metrics: []}
seed: 0
drain_limit: 0s
workload: {hosts: ~}
`
	s, err := testCat.Parse("zero.yaml", []byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	want = testCat.Default()
	want.Name = "zero"
	want.Switch.PFC = false
	want.Switch.ECN.Enabled = false
	want.Switch.ECN.KMin, want.Switch.ECN.KMax, want.Switch.ECN.PMax = 0, 0, 0
	want.Switch.PFCReserve = 0
	want.NIC.RTO, want.NIC.NACKInterval = 0, 0
	want.Trace.Metrics = nil
	want.Seed = 0
	want.DrainLimit = 0
	if diff := cmp.Diff(want, s, ignoreCat); diff != "" {
		t.Errorf("explicit zeros (-want +got):\n%s", diff)
	}

	// Explicit values equal to the defaults change nothing; an explicit
	// name wins over the file name.
	s, err = testCat.Parse("x.yaml", []byte("name: other\nswitch: {pfc: true}\nseed: 1\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want = testCat.Default()
	want.Name = "other"
	if diff := cmp.Diff(want, s, ignoreCat); diff != "" {
		t.Errorf("explicit defaults (-want +got):\n%s", diff)
	}
}

func TestDefaultValues(t *testing.T) {
	// Spot checks against docs/design.md and docs/model.md §2-4.
	s := testCat.Default()
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"seed", s.Seed, uint64(1)},
		{"duration", s.Duration.T(), 10 * engine.Millisecond},
		{"drain_limit", s.DrainLimit.T(), 100 * engine.Millisecond},
		{"hosts", must(s.Topology.HostCount()), 128},
		{"host_link", s.Topology.HostLink.R(), 100 * engine.Gbps},
		{"fabric_link", s.Topology.FabricLink.R(), 400 * engine.Gbps},
		{"link_delay", s.Topology.LinkDelay.T(), engine.Microsecond},
		{"buffer", s.Switch.Buffer.Bytes(), int64(33_554_432)},
		{"pfc_reserve", s.Switch.PFCReserve.Bytes(), int64(4096)},
		{"pfc_resume_offset", s.Switch.PFCResumeOffset.Bytes(), int64(3072)},
		{"kmin", s.Switch.ECN.KMin.Bytes(), int64(400_000)},
		{"kmax", s.Switch.ECN.KMax.Bytes(), int64(1_600_000)},
		{"pmax", s.Switch.ECN.PMax, 0.2},
		{"mtu", s.NIC.MTU, 1000},
		{"data_class", s.NIC.DataClass, 3},
		{"nack_interval", s.NIC.NACKInterval.T(), 500 * engine.Microsecond},
		{"rto", s.NIC.RTO.T(), 5 * engine.Millisecond},
		{"cnp_interval", s.NIC.CNPInterval.T(), 50 * engine.Microsecond},
		{"load", s.Workload.Load, 0.5},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if err := s.Validate(); err != nil {
		t.Errorf("testCat.Default().Validate() = %v", err)
	}
}

func must(n int, ok bool) int {
	if !ok {
		return -1
	}
	return n
}

func TestECNThresholds(t *testing.T) {
	e := testCat.Default().Switch.ECN
	// docs/model.md §3.4: 25G 100/400 KB, 50G 200/800, 100G 400/1600, 400G 1600/6400.
	for _, c := range []struct {
		rate       engine.Rate
		kmin, kmax int64
	}{
		{25 * engine.Gbps, 100_000, 400_000},
		{50 * engine.Gbps, 200_000, 800_000},
		{100 * engine.Gbps, 400_000, 1_600_000},
		{400 * engine.Gbps, 1_600_000, 6_400_000},
	} {
		kmin, kmax := e.Thresholds(c.rate)
		if kmin != c.kmin || kmax != c.kmax {
			t.Errorf("%v: got %d/%d, want %d/%d", c.rate, kmin, kmax, c.kmin, c.kmax)
		}
	}
}

func TestRoundTripBuiltins(t *testing.T) {
	for _, b := range Builtins() {
		t.Run(b.Name, func(t *testing.T) {
			s, err := testCat.Load(b.Name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != b.Name {
				t.Errorf("name: got %q, want %q", s.Name, b.Name)
			}
			checkRoundTrip(t, s)
		})
	}
}

// checkRoundTrip: testCat.Parse(YAML()) equals s, and printing again gives the
// same bytes and hash.
func checkRoundTrip(t *testing.T, s *Scenario) {
	t.Helper()
	y := s.YAML()
	s2, err := testCat.Parse("printed.yaml", y, nil)
	if err != nil {
		t.Fatalf("reparse: %v\n%s", err, y)
	}
	if diff := cmp.Diff(s, s2, ignoreCat); diff != "" {
		t.Fatalf("round trip (-orig +reparsed):\n%s\n%s", diff, y)
	}
	if y2 := s2.YAML(); string(y2) != string(y) {
		t.Errorf("second print differs:\n%s\nvs\n%s", y, y2)
	}
	if s.Hash() != s2.Hash() {
		t.Errorf("hash: got %s after round trip, want %s", s2.Hash(), s.Hash())
	}
}

func TestRoundTripAllKinds(t *testing.T) {
	in := `
name: "on"
seed: 18446744073709551615
duration: 1.5ms
drain_limit: 100ms
topology: {kind: fat-tree, k: 8, link_delay: 250ns, host_link: 25Gbps, fabric_link: 2.5Gbps}
switch: {discipline: wrr, wrr_weights: [1, 2, 3, 4, 5, 6, 7, 8], lossy_queue_limit: 100KiB, pfc: false,
         ecn: {kmin: 1, kmax: 1234567B, pmax: 0.123456789}, int: "off"}
nic: {qp_mapping: pool:4, ack_class: control, cnp: packet, rto: never, scheduler: fair-message}
workload: {kind: storage, hosts: "0-63", storage: {servers: "64-127", fan_out: 8, response_size: 64KiB, mean_interval: 10us}}
extra_workloads:
  - {kind: incast, incast: {senders: 3, receiver: 5, period: 100us}}
  - {kind: flowlist, flowlist: {file: flows.csv}}
  - {kind: cloud, distribution: ./my.cdf, load: 0.1, hosts: "1,3,5-9"}
  - {}
trace: {interval: 10us, metrics: [qp_rate]}
`
	s, err := testCat.Parse("all.yaml", []byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.ExtraWorkloads[3], defaultWorkload(); !cmp.Equal(got, want) {
		t.Errorf("empty list element: got %+v, want the default workload %+v", got, want)
	}
	if got := s.Workload.Params.(*StorageParams).Servers; got != "64-127" {
		t.Errorf("storage.servers: got %q", got)
	}
	checkRoundTrip(t, s)
}

func TestSets(t *testing.T) {
	sets := []string{
		"workload.load=0.8",
		"nic.scheduler=fair-message",
		"switch.ecn.kmin=100KB",
		"switch.wrr_weights=[1,2,4,8,1,1,1,1]",
		"extra_workloads[0].kind=incast",
		"extra_workloads[0].incast.load_fraction=0.05",
		"extra_workloads[1]={kind: cloud, load: 0.1}",
		"extra_workloads[0].incast.senders=10",
		"topology={kind: star, hosts: 32}",
		"name=",
		"seed=8",
	}
	s, err := testCat.Load("default", sets)
	if err != nil {
		t.Fatal(err)
	}
	want := testCat.Default()
	want.Name = ""
	want.Seed = 8
	want.Duration = Duration(10 * engine.Millisecond)
	if err := want.SetAlgorithm("dcqcn"); err != nil {
		t.Fatal(err)
	}
	want.Workload.Load = 0.8
	want.NIC.Scheduler = "fair-message"
	want.Switch.ECN.KMin = Size(100 * engine.KB)
	want.Switch.WRRWeights = [8]int{1, 2, 4, 8, 1, 1, 1, 1}
	inc := defaultWorkload()
	inc.Kind = Incast
	ip := defaultIncast()
	ip.LoadFraction, ip.Senders = 0.05, 10
	inc.Params = ip
	bg := defaultWorkload()
	bg.Load = 0.1
	want.ExtraWorkloads = []Workload{inc, bg}
	want.Topology = testCat.Default().Topology
	want.Topology.Kind, want.Topology.Hosts = Star, 32
	if diff := cmp.Diff(want, s, ignoreCat); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	checkRoundTrip(t, s)

	// A --set replaces a value from the file and reads like it.
	s, err = testCat.Parse("f.yaml", []byte("workload:\n  load: 0.3\nnic: ~\n"), []string{"workload.load=0.4", "nic.mtu=4096"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload.Load != 0.4 || s.NIC.MTU != 4096 {
		t.Errorf("got load %v mtu %d, want 0.4 and 4096", s.Workload.Load, s.NIC.MTU)
	}
}

func TestInactivePluginSubMapDropped(t *testing.T) {
	s, err := testCat.Parse("p.yaml", []byte("nic:\n  scheduler: fair\n  fair-message: {}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(s.YAML()), "fair-message") {
		t.Errorf("inactive scheduler printed:\n%s", s.YAML())
	}
	if want := []string{"nic.fair-message: ignored: the scheduler is fair, not fair-message"}; !slices.Equal(s.Warnings, want) {
		t.Errorf("warnings: got %q, want %q", s.Warnings, want)
	}
	if _, ok := s.NIC.Params.(*NoParams); !ok {
		t.Errorf("params: got %T, want *NoParams", s.NIC.Params)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(path, []byte("seed: 5\nworkload: {load: 0.25}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := testCat.Load(path, []string{"seed=6"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "mine" || s.Seed != 6 || s.Workload.Load != 0.25 {
		t.Errorf("got name %q seed %d load %v, want mine 6 0.25", s.Name, s.Seed, s.Workload.Load)
	}
	if err := os.WriteFile(path, []byte("seed: 5\nworkload: {load: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = testCat.Load(path, nil)
	if got, want := err.Error(), path+":2: workload.load: 2 is not in (0, 1)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	_, err = testCat.Load("no-such-scenario", nil)
	if got, want := err.Error(), `scenario "no-such-scenario" is neither a built-in (default, hpcc-paper, storm-cloud, storm-80, storage-fanout, gpt3-13b, llama-7b, allreduce-128, incast-star, arn-afi, halo) nor a file`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err = testCat.Load(filepath.Join(dir, "missing.yaml"), nil); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v, want a wrapped ErrNotExist", err)
	}
}

func TestHash(t *testing.T) {
	a, _ := testCat.Load("default", nil)
	b, _ := testCat.Load("default", nil)
	c, _ := testCat.Load("default", []string{"seed=2"})
	if a.Hash() != b.Hash() {
		t.Errorf("equal scenarios hash %s and %s", a.Hash(), b.Hash())
	}
	if a.Hash() == c.Hash() {
		t.Errorf("different seeds hash equal: %s", a.Hash())
	}
	if len(a.Hash()) != 16 {
		t.Errorf("hash %q: got %d digits, want 16", a.Hash(), len(a.Hash()))
	}
}

func TestValidateGoBuilt(t *testing.T) {
	s := testCat.Default()
	s.NIC.Params = nil
	if got, want := s.Validate().Error(), "nic.fair: parameters not set (want *scenario.NoParams)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := s.SetScheduler("fair-message"); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("after SetScheduler: %v", err)
	}
	if err := s.SetAlgorithm("dcqcn-x"); err == nil {
		t.Error("SetAlgorithm of an unknown name: got no error")
	}
	// YAML of a Go-built scenario with nil params prints the defaults.
	s.CC.Params = nil
	if !strings.Contains(string(s.YAML()), "  dcqcn:\n    ") {
		t.Errorf("nil params not printed as defaults:\n%s", s.YAML())
	}
}

// The switch's ECN thresholds follow the CC algorithm (docs/model.md §3.4)
// field by field, unless the scenario gives them.
func TestECNDefaultsFollowCC(t *testing.T) {
	kb := func(n int64) Size { return Size(n * engine.KB) }
	for _, tc := range []struct {
		name       string
		sets       []string
		kmin, kmax Size
		pmax       float64
	}{
		{"dcqcn keeps the switch defaults", []string{"cc.algorithm=dcqcn"}, kb(400), kb(1600), 0.2},
		{"dctcp marks at K", []string{"cc.algorithm=dctcp"}, kb(300), kb(300), 1},
		{"dctcp scaled to the base rate", []string{"cc.algorithm=dctcp", "switch.ecn.base_rate=25Gbps"}, kb(75), kb(75), 1},
		{"a given kmin stays", []string{"cc.algorithm=dctcp", "switch.ecn.kmin=100KB"}, kb(100), kb(300), 1},
		{"a given pmax stays", []string{"cc.algorithm=dctcp", "switch.ecn={pmax: 0.5}"}, kb(300), kb(300), 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := testCat.Load("default", tc.sets)
			if err != nil {
				t.Fatal(err)
			}
			e := s.Switch.ECN
			if e.KMin != tc.kmin || e.KMax != tc.kmax || e.PMax != tc.pmax {
				t.Fatalf("ecn %v/%v/%v, want %v/%v/%v", e.KMin, e.KMax, e.PMax, tc.kmin, tc.kmax, tc.pmax)
			}
		})
	}
	// A given kmin above the CC's kmax is still an error, on kmin's --set.
	_, err := testCat.Load("default", []string{"cc.algorithm=dctcp", "switch.ecn.kmin=400KB"})
	if err == nil || !strings.Contains(err.Error(), "switch.ecn.kmin") {
		t.Fatalf("kmin 400KB over dctcp's kmax 300KB: got %v, want an error on switch.ecn.kmin", err)
	}
}

// encodePlain's cached nodes are the nodes yaml.Node.Encode makes, on the
// first call and on every later one: the printed scenario, and so every
// hash and run directory name, does not change with the cache.
func TestEncodePlainCache(t *testing.T) {
	for _, x := range []any{0, 1, int64(1), "1", "", "true", "a: b", "x\ny", 0.0, math.Copysign(0, -1), math.NaN(), math.Inf(1), 0.5, 1e21, float32(0.1), true, uint8(7)} {
		var want yaml.Node
		if err := want.Encode(x); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			got, err := encodePlain(x)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("%T %v, call %d: got %+v, want %+v", x, x, i, *got, want)
			}
		}
	}
}

// The flowlet knobs are rejected under ECMP only when given a value other
// than the default (issue 27, item 5): absent, or given their defaults (as
// show prints them), they pass, and so does a gap of exactly one packet
// or any gap with a selective receiver.
func TestNoEffectKnobsAtDefaults(t *testing.T) {
	for _, sets := range [][]string{
		{"switch.routing.kind=ecmp"},
		{"switch.routing.kind=ecmp", "switch.routing.flowlet_gap=5us", "switch.routing.flowlet_slots=4096"},
		{"switch.routing.kind=adaptive", "switch.routing.flowlet_gap=80ns"},
		{"switch.routing.kind=adaptive", "switch.routing.flowlet_gap=1ps", "nic.receiver=selective"},
		{"switch.routing.kind=adaptive", "switch.isolation={}", "switch.isolation.afi=true", "switch.isolation.arn_entry_lifetime=4.02048us"},
	} {
		s, err := testCat.Load("default", sets)
		if err != nil {
			t.Errorf("%v: %v", sets, err)
			continue
		}
		if _, err := testCat.Parse("shown.yaml", s.YAML(), nil); err != nil {
			t.Errorf("%v: printed scenario does not read back: %v", sets, err)
		}
	}
}

// A class-tagging scheduler on round-robin switches or per-flow QPs gets
// a note naming the study set-up; the study built-ins and fair sharing
// get none (issue #26).
func TestStudyNote(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []string
		want string
	}{
		{"default", []string{"nic.scheduler=storm"}, "nic.scheduler=storm was studied with switch.discipline=strict and nic.qp_mapping=per-pair (the built-ins storm-cloud and storm-80); this run has switch.discipline=rr and nic.qp_mapping=per-flow"},
		{"default", []string{"nic.scheduler=srpt", "switch.discipline=strict"}, "nic.scheduler=srpt was studied with switch.discipline=strict and nic.qp_mapping=per-pair (the built-ins storm-cloud and storm-80); this run has nic.qp_mapping=per-flow"},
		{"default", nil, ""},
		{"storm-80", nil, ""},
		{"storm-cloud", []string{"nic.scheduler=pias"}, ""},
	} {
		s, err := testCat.Load(tc.name, tc.sets)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.StudyNote(); got != tc.want {
			t.Errorf("%s %v: got %q, want %q", tc.name, tc.sets, got, tc.want)
		}
	}
}
