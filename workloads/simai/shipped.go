package simai

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
)

// The SimAI example workloads of docs/model.md §7.4, copied from the
// reference's data/simai so that a clone is complete on its own;
// testdata/README.md names their sources and describes the format.
//
//go:embed testdata/*.txt
var shippedFS embed.FS

// ShippedNames lists the shipped workload files: the AICB GPT-3 13B (TP 8)
// and LLaMA 7B (TP 2) files and SimAI's microAllReduce example.
func ShippedNames() []string {
	entries, err := shippedFS.ReadDir("testdata")
	if err != nil {
		panic(fmt.Sprintf("simai: embedded testdata: %v", err))
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Shipped parses a shipped workload file by its file name, e.g.
// "G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt".
func Shipped(name string) (*Workload, error) {
	data, err := shippedFS.ReadFile("testdata/" + name)
	if err != nil {
		return nil, fmt.Errorf("unknown shipped workload %q (valid: %s)", name, strings.Join(ShippedNames(), ", "))
	}
	return Parse(name, bytes.NewReader(data))
}
