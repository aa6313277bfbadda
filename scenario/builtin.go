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
		text: `# DESIGN.md's default scenario: 128 hosts on a 100 Gbps spine-leaf
# (8 leaves x 16 hosts, 4 spines, 400 Gbps fabric links), WebSearch at 50%
# load, fair sharing, DCQCN. Every other field takes its default. 10ms of
# arrivals is about 4,700 flows, enough for stable p99s per size bucket,
# and runs in well under a minute on one core.
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
# 128-host 100 Gbps spine-leaf (REFERENCE.md 2.1). Compare with
#   dcsim run hpcc-paper --set cc.algorithm=hpcc
#   dcsim run hpcc-paper --set workload.load=0.5 [--set cc.algorithm=hpcc]
name: hpcc-paper
duration: 10ms
cc: {algorithm: dcqcn}
workload: {kind: cloud, distribution: websearch, load: 0.3}
`,
	},
	{
		Builtin: Builtin{Name: "incast-star", Doc: "16 hosts on one switch, 15:1 incast of 500KB flows into host 0 every 1ms"},
		text: `# A 15:1 incast on a 16-host star: every 1ms, hosts 1-15 each send 500KB
# to host 0 (600us of data at 100 Gbps).
name: incast-star
duration: 3ms
topology: {kind: star, hosts: 16}
workload:
  kind: incast
  incast: {senders: 15, flow_size: 500KB, period: 1ms, receiver: 0}
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
