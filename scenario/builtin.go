package scenario

import "strings"

// Builtin describes one built-in scenario.
type Builtin struct {
	Name string
	Doc  string
}

type builtin struct {
	Builtin
	text string
}

// builtins are YAML text, parsed like a file, so that they exercise the
// same path and print back the same way. They set only what differs from
// the defaults.
var builtins = []builtin{
	{
		Builtin: Builtin{Name: "default", Doc: "128 hosts, 100G spine-leaf (8 leaves x 16, 4 x 400G spines), WebSearch at 50% load, fair sharing, DCQCN, 10ms of arrivals"},
		text: `# The default scenario of docs/design.md "Command line": 128 hosts on a
# 100 Gbps spine-leaf (8 leaves x 16 hosts, 4 spines, 400 Gbps fabric
# links), WebSearch at 50% load, fair sharing, DCQCN. Every other field
# takes its default. 10ms of arrivals is about 4,700 flows, enough for
# stable p99s per size bucket, and runs in well under a minute on one
# core.
name: default
duration: 10ms
cc: {algorithm: dcqcn}
`,
	},
	{
		Builtin: Builtin{Name: "hpcc-paper", Doc: "HPCC paper's FCT experiment: WebSearch at 30% load (--set workload.load=0.5 for 50%), DCQCN (--set cc.algorithm=hpcc), 128-host spine-leaf"},
		text: `# The FCT experiment of the HPCC paper (SIGCOMM 2019): WebSearch flows at
# 30% and 50% load, DCQCN against HPCC, slowdown per flow-size bucket at
# p50/p95/p99. The paper used a 320-server fat-tree; this runs on dcsim's
# 128-host 100 Gbps spine-leaf (docs/model.md §2.1). Compare with
#   dcsim run hpcc-paper --set cc.algorithm=hpcc
#   dcsim run hpcc-paper --set workload.load=0.5 [--set cc.algorithm=hpcc]
name: hpcc-paper
duration: 10ms
cc: {algorithm: dcqcn}
workload: {kind: cloud, distribution: websearch, load: 0.3}
`,
	},
	{
		Builtin: Builtin{Name: "storm-cloud", Doc: "STORM study base: 128-host spine-leaf, per-pair QPs, strict-priority switches, DCQCN, WebSearch 50%; sweep examples/storm-cloud.yaml"},
		text: `# The base of the STORM comparison (docs/model.md §6): the 128-host 100 Gbps
# spine-leaf, one QP per ordered host pair (so messages queue behind each
# other and backlog means something), strict-priority switch queues (STORM,
# SRPT and PIAS tag classes; fair sharing keeps all data in class 3),
# DCQCN. Vary nic.scheduler over fair, fair-message, srpt, pias, storm,
# storm-sender, storm-sw; the distribution over websearch, fbhdp,
# alistorage, googlerpc, webserver; load 0.3..0.8; cc dcqcn or hpcc:
# examples/storm-cloud.yaml is that sweep.
name: storm-cloud
duration: 5ms
switch: {discipline: strict}
nic: {qp_mapping: per-pair, scheduler: storm}
cc: {algorithm: dcqcn}
workload: {kind: cloud, distribution: websearch, load: 0.5}
`,
	},
	{
		Builtin: Builtin{Name: "storm-80", Doc: "the STORM paper's 80% case: storm-cloud at load 0.8 (WebSearch; --set nic.scheduler=fair for the baseline); docs/studies/storm.md compares it with the paper and the fluid bounds"},
		text: `# The STORM paper's sensitivity case (docs/model.md §6.6): fair sharing
# against the default 3-priority STORM at 80% load, on the paper's
# set-up as dcsim reads it: 128 hosts at 100 Gbps on the spine-leaf,
# strict-priority switches, DCQCN, one QP per host pair. The paper does
# not name its distribution; WebSearch here, --set
# workload.distribution=... for the others. Compare
#   dcsim run storm-80 --set nic.scheduler=fair
# and docs/studies/storm.md's table of the paper's numbers and the fluid bounds.
name: storm-80
duration: 5ms
switch: {discipline: strict}
nic: {qp_mapping: per-pair, scheduler: storm}
cc: {algorithm: dcqcn}
workload: {kind: cloud, distribution: websearch, load: 0.8}
`,
	},
	{
		Builtin: Builtin{Name: "storage-fanout", Doc: "storage fan-out/join: 16 clients read from 4 of 112 servers each, per-pair QPs, a gatekeeper backlog; STORM's backlog case"},
		text: `# Storage fan-out and join (a client reads from N servers and completes
# when all have answered), on the 128-host spine-leaf with per-pair QPs:
# requests from different clients to one server queue on that server's
# QPs, so backlog builds where STORM's first signal matters. Background
# AliStorage traffic at 30% load runs alongside.
name: storage-fanout
duration: 5ms
switch: {discipline: strict}
nic: {qp_mapping: per-pair, scheduler: storm}
cc: {algorithm: dcqcn}
workload:
  kind: storage
  hosts: 0-15
  storage: {servers: 16-127, fan_out: 4, response_size: 256KB, mean_interval: 20us}
extra_workloads:
  - {kind: cloud, distribution: alistorage, load: 0.3, hosts: 16-127}
`,
	},
	{
		Builtin: Builtin{Name: "gpt3-13b", Doc: "one GPT-3 13B training iteration (SimAI/AICB file, TP 8) on the 128-host spine-leaf: 128 GPUs, each with its own NIC, 8 per server (TP inside a server on NVLink), MTU 4096"},
		text: `# One training iteration of GPT-3 13B from the shipped AICB/SimAI file
# (TP 8, PP 1, micro-batch 1, A100 compute times), one GPU per NIC on the
# 128-host 100 Gbps spine-leaf, RoCE's usual 4096 B payload. The run ends
# when the iteration ends; iterations.parquet holds its time.
name: gpt3-13b
duration: 1us
drain_limit: 100s
nic: {mtu: 4096}
cc: {algorithm: dcqcn}
workload:
  kind: simai
  simai: {file: G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt}
`,
	},
	{
		Builtin: Builtin{Name: "llama-7b", Doc: "one LLaMA 7B training iteration (SimAI/AICB file, TP 2) on the 128-host spine-leaf: 128 GPUs, each with its own NIC, 8 per server (TP inside a server on NVLink), MTU 4096"},
		text: `# One training iteration of LLaMA 7B from the shipped AICB/SimAI file
# (TP 2), one GPU per NIC on the 128-host 100 Gbps spine-leaf, MTU 4096.
name: llama-7b
duration: 1us
drain_limit: 100s
nic: {mtu: 4096}
cc: {algorithm: dcqcn}
workload:
  kind: simai
  simai: {file: L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt}
`,
	},
	{
		Builtin: Builtin{Name: "allreduce-128", Doc: "ring all-reduce of 64MiB over the 128-host spine-leaf: time and bus bandwidth"},
		text: `# A collective micro-benchmark: one ring all-reduce of 64 MiB over all
# 128 hosts of the spine-leaf (254 steps), MTU 4096. The summary prints the
# time and the bus bandwidth (NCCL's definition).
name: allreduce-128
duration: 1us
drain_limit: 10s
nic: {mtu: 4096}
cc: {algorithm: dcqcn}
workload:
  kind: collective
  collective: {op: allreduce, bytes: 64MiB}
`,
	},
	{
		Builtin: Builtin{Name: "incast-star", Doc: "16 hosts on one switch, 15:1 incast of 500KB flows into host 0 every 1ms, no CC (PFC alone)"},
		text: `# A 15:1 incast on a 16-host star: every 1ms, hosts 1-15 each send 500KB
# to host 0 (600us of data at 100 Gbps). No congestion control: PFC alone
# holds the incast back (--set cc.algorithm=dcqcn to add it).
name: incast-star
duration: 3ms
topology: {kind: star, hosts: 16}
cc: {algorithm: none}
workload:
  kind: incast
  incast: {senders: 15, flow_size: 500KB, period: 1ms, receiver: 0}
`,
	},
	{
		Builtin: Builtin{Name: "arn-afi", Doc: "ARN+AFI experiment base: k=12 fat-tree (432 hosts, 100G, 100ns), no CC, uniform Solar-sizes 50% background, H10 hot spot 200-400us; --set switch.routing.kind=adaptive --set switch.isolation={}"},
		text: `# The ARN+AFI experiment (arXiv 2502.00616; docs/model.md §10.2): the
# paper's 432-endnode fat-tree (radix 12: 72 leaf, 72 middle, 36 top
# switches; --set topology.k=24 for 3,456), 100 Gbps links of 100 ns,
# MTU 2048, no congestion control (the paper's network has none; PFC
# alone), a 50% background between uniformly drawn hosts (Alibaba's
# Solar storage sizes, mean 39 KB, at most 262 KB, so it is steady within
# the first 100 us; the hot spot starts at 200 us), and
# the H10 hot spot (10% of the hosts sending to one at line rate) from
# 200 to 400 us. Efficiency and the non-hot-spot throughput are sampled
# every 10 us (samples.parquet, trace metric efficiency). As it is: 1Q
# (per-flow ECMP, one data class). Adaptive routing alone:
#   --set switch.routing.kind=adaptive
# ARN+AFI: add --set 'switch.isolation={}'. examples/isolation runs them all.
name: arn-afi
duration: 600us
drain_limit: 5ms
topology: {kind: fat-tree, k: 12, host_link: 100Gbps, fabric_link: 100Gbps, link_delay: 100ns}
switch: {buffer: 4MiB}
nic: {mtu: 2048}
cc: {algorithm: none}
workload:
  kind: hotspot
  hotspot: {fraction: 0.1, trees: 1, flow_size: 1MB, start: 200us, stop: 400us}
extra_workloads:
  - {kind: cloud, distribution: solar2022, load: 0.5}
trace: {interval: 10us, metrics: [efficiency]}
`,
	},
	{
		Builtin: Builtin{Name: "halo", Doc: "one-sided ring-buffer halo exchange (READ head, WRITE, FETCH_ADD tail) of 16 ranks (2x2x4 grid) on a k=4 fat-tree; batches.parquet"},
		text: `# The write-then-atomic publish protocol of docs/model.md §9.2 on a k=4
# fat-tree (16 hosts, 100 Gbps, 1 us links): ranks on a 2x2x4 grid, one
# per host, every ordered pair of face neighbours sending 4,096 particles
# of 128 B through a 4,096-particle ring in batches of 64. In-order
# receivers and per-flow ECMP, as deployed: no batch publishes its tail
# before its data. --set switch.routing.kind=spray --set
# nic.receiver=ooo-eager shows violations; nic.receiver=ooo-ordered or
# nic.fence=implicit removes them. The run ends when every particle is
# consumed.
name: halo
duration: 1us
drain_limit: 100ms
topology: {kind: fat-tree, k: 4}
nic: {qp_mapping: per-pair}
cc: {algorithm: none}
workload:
  kind: halo
  halo: {x: 2, y: 2, z: 4}
`,
	},
}

// Builtins lists the built-in scenarios, in listing order.
func Builtins() []Builtin {
	out := make([]Builtin, len(builtins))
	for i, b := range builtins {
		out[i] = b.Builtin
	}
	return out
}

// IsBuiltin reports whether name is a built-in scenario, which Load
// prefers to a file of that name.
func IsBuiltin(name string) bool {
	_, ok := lookupBuiltin(name)
	return ok
}

func lookupBuiltin(name string) (builtin, bool) {
	for _, b := range builtins {
		if b.Name == name {
			return b, true
		}
	}
	return builtin{}, false
}

func builtinFile(name string) string { return "<builtin " + name + ">" }

func builtinNames() string {
	names := make([]string, len(builtins))
	for i, b := range builtins {
		names[i] = b.Name
	}
	return strings.Join(names, ", ")
}
