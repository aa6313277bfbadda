package cloud_test

import (
	"fmt"

	"github.com/dcsim/dcsim/engine"
	"github.com/dcsim/dcsim/workloads/cloud"
)

// WebSearch background at half load on 128 hosts, with periodic incasts on
// top, as one stream of flows.
func Example() {
	ws, _ := cloud.Builtin("websearch")
	fmt.Printf("%s: mean %.0f B (step rule %.0f B), max %d B\n", ws.Name, ws.Mean(), ws.MeanStep(), ws.Max())

	hosts := make([]int, 128)
	for i := range hosts {
		hosts[i] = i
	}
	const seed = 1
	bg, err := cloud.NewPoisson(cloud.PoissonConfig{
		Hosts: hosts, HostRate: 100 * engine.Gbps, Load: 0.5, CDF: ws, Stop: 10 * engine.Millisecond,
	}, engine.NewStream(seed, "arrivals"))
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := cloud.NewIncast(cloud.IncastConfig{
		Hosts: hosts, Senders: 60, Receiver: cloud.RandomReceiver, FlowSize: 500 * engine.KB,
		Period: 5 * engine.Millisecond, Stop: 10 * engine.Millisecond,
	}, engine.NewStream(seed, "incast"))
	if err != nil {
		fmt.Println(err)
		return
	}
	counts := map[string]int{}
	for g := cloud.Merge(bg, in); ; {
		f, ok := g.Next()
		if !ok {
			break
		}
		counts[f.Generator]++
	}
	fmt.Println("incast flows:", counts["incast"])
	// Output:
	// websearch: mean 1711250 B (step rule 2434900 B), max 30000000 B
	// incast flows: 120
}

func ExampleDescribe() {
	for _, d := range cloud.Describe()[:3] {
		fmt.Printf("%-28s %12.1f %12.1f %11d\n", d.Name, d.MeanLinear, d.MeanStep, d.Max)
	}
	// Output:
	// alistorage                        40869.8      67050.0     2000000
	// cachefollower                    686866.1     692975.6     3837698
	// cachefollower_all_parsimon       609883.0     698171.2    28388498
}
