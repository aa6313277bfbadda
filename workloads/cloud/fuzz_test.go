package cloud

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

func FuzzParseCDF(f *testing.F) {
	// Small seeds only: the fuzzer minimises every new input, which is slow
	// for the 800-line tables.
	for _, name := range []string{"websearch", "datamining_pfabric", "alistorage"} {
		data, err := builtinFS.ReadFile("cdf/" + name + ".cdf")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "0 0\n1 1\n", "5 0\n5 1\n", "0 0\n0 1\n", "1 1e-10\n2 0.9999999999\n",
		"0 0\n10 0.5\n10 0.5\n20 1\n", "# c\n\n1 0\nNaN 1\n", "0 0\n9007199254740992 1\n", "0x10 0\n0x20 1\n",
		"1 0\n1 0.00583\n2 0.18403\n16 0.4724\n16 0.4736\n17 0.476\n100000 1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCDF("fuzz.cdf", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.cdf:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		x, p := c.Points()
		if len(x) < 2 || p[0] != 0 || p[len(p)-1] != 1 {
			t.Fatalf("got points %v %v, want >= 2 from cdf 0 to 1", x, p)
		}
		for i := range x {
			if x[i] < 0 || math.IsNaN(x[i]) || x[i] > maxCDFSize || p[i] < 0 || p[i] > 1 || math.IsNaN(p[i]) {
				t.Fatalf("point %d (%v, %v) out of range", i, x[i], p[i])
			}
			if i > 0 && (x[i] < x[i-1] || p[i] < p[i-1]) {
				t.Fatalf("point %d decreases", i)
			}
		}
		lo, hi := x[0], x[len(x)-1]
		if m := c.Mean(); m < lo-1e-6*hi || m > hi*(1+1e-12) || c.MeanStep() < m-1e-6*hi {
			t.Fatalf("means %v/%v outside [%v, %v] or step < linear", m, c.MeanStep(), lo, hi)
		}
		upper := max(c.Max(), 1)
		prev := int64(0)
		for k := 0; k <= 64; k++ {
			q := c.Quantile(float64(k) / 64)
			if q < 1 || q > upper || q < prev {
				t.Fatalf("Quantile(%d/64) = %d, want non-decreasing in [1, %d]", k, q, upper)
			}
			prev = q
		}
		r := engine.NewStream(1, "fuzz")
		for range 64 {
			if s := c.Sample(r); s < 1 || s > upper {
				t.Fatalf("Sample = %d outside [1, %d]", s, upper)
			}
		}
	})
}

func FuzzReadFlowList(f *testing.F) {
	for _, s := range []string{
		"src,dst,size_bytes,start_ns\n0,1,100,0\n",
		"start_ns,src,dst,size_bytes,tag\n5.5,2,1,1000,x\n1,0,3,1,\n",
		"src,dst,size_bytes,start_ns\n0,0,1,1\n",
		"src,dst,size_bytes,start_ns\n\"0\",1,1,0.001\n",
		"a,b\n1,2\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		flows, err := ReadFlowList("fuzz.csv", bytes.NewReader(data))
		scan, serr := ScanFlowList("fuzz.csv", bytes.NewReader(data), nil)
		if (err == nil) != (serr == nil) || err != nil && err.Error() != serr.Error() {
			t.Fatalf("ScanFlowList: got error %v, want %v (ReadFlowList's)", serr, err)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if scan.Flows != int64(len(flows)) {
			t.Fatalf("ScanFlowList counted %d flows, ReadFlowList read %d", scan.Flows, len(flows))
		}
		if scan.Sorted {
			// The cursor yields ReadFlowList's flows, one record at a time.
			cur, err := NewFlowListCursor("fuzz.csv", bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; ; i++ {
				fl, ok := cur.Next()
				if !ok {
					if i != len(flows) || cur.Err() != nil {
						t.Fatalf("cursor ended after %d of %d flows: %v", i, len(flows), cur.Err())
					}
					break
				}
				if i >= len(flows) || fl != flows[i] {
					t.Fatalf("cursor flow %d: got %+v, want ReadFlowList's", i, fl)
				}
			}
		}
		for i, fl := range flows {
			if fl.Src < 0 || fl.Dst < 0 || fl.Src == fl.Dst || fl.Size <= 0 || fl.Start < 0 {
				t.Fatalf("flow %d invalid: %+v", i, fl)
			}
			if i > 0 && fl.Start < flows[i-1].Start {
				t.Fatalf("flow %d starts before flow %d", i, i-1)
			}
		}
	})
}
