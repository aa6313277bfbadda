package wiring

import (
	"slices"
	"testing"

	"github.com/dcsim/dcsim/fabric"
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/sched/storm"
	"github.com/dcsim/dcsim/workloads/cloud"
)

// The schema's own copies of simulation constants agree with the
// simulation's (scenario imports no simulation package; issue 28).
func TestSchemaConstants(t *testing.T) {
	if scenario.Classes != fabric.NumClasses {
		t.Errorf("scenario.Classes %d, fabric.NumClasses %d", scenario.Classes, fabric.NumClasses)
	}
	if scenario.RandomReceiver != cloud.RandomReceiver {
		t.Errorf("scenario.RandomReceiver %d, cloud.RandomReceiver %d", scenario.RandomReceiver, cloud.RandomReceiver)
	}
	for _, v := range []storm.Variant{storm.Full, storm.SenderOnly, storm.Software} {
		if _, ok := Catalog().Scheduler(string(v)); !ok {
			t.Errorf("STORM variant %q is not in the catalog", v)
		}
	}
}

// Every entry of the built-in catalog points back to its wiring
// descriptor, names are unique within a table, and every entry has a doc
// line (dcsim scenarios lists them).
func TestCatalogEntries(t *testing.T) {
	cat := Catalog()
	if Catalog() != cat {
		t.Errorf("Catalog() returns a new value on each call: scenarios parsed apart would not compare equal")
	}
	check := func(what string, names []string, docs []string, impls []any) {
		t.Helper()
		for i, n := range names {
			if slices.Index(names, n) != i {
				t.Errorf("%s %q listed twice", what, n)
			}
			if docs[i] == "" || impls[i] == nil {
				t.Errorf("%s %q: doc %q, descriptor %v", what, n, docs[i], impls[i])
			}
		}
	}
	var n, d []string
	var im []any
	for _, p := range cat.Schedulers {
		n, d, im = append(n, p.Name), append(d, p.Doc), append(im, p.Impl)
	}
	check("scheduler", n, d, im)
	n, d, im = nil, nil, nil
	for _, p := range cat.Algorithms {
		n, d, im = append(n, p.Name), append(d, p.Doc), append(im, p.Impl)
	}
	check("algorithm", n, d, im)
	n, d, im = nil, nil, nil
	for _, k := range cat.Workloads {
		n, d, im = append(n, k.Name), append(d, k.Doc), append(im, k.Impl)
	}
	check("workload kind", n, d, im)
	n, d, im = nil, nil, nil
	for _, r := range cat.Routers {
		n, d, im = append(n, r.Name), append(d, r.Doc), append(im, r.Impl)
	}
	check("router", n, d, im)
}
