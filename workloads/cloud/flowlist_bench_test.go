package cloud

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkFlowListCursor is reading a flow list of 10^5 flows through a
// cursor, per record (ns/op is per flow).
func BenchmarkFlowListCursor(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("src,dst,size_bytes,start_ns\n")
	for i := 0; i < 100_000; i++ {
		fmt.Fprintf(&sb, "%d,%d,10000,%d.%03d\n", i%128, (i+1)%128, i*25/2, i*25%2*500)
	}
	in := sb.String()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; {
		c, err := NewFlowListCursor("f", strings.NewReader(in))
		if err != nil {
			b.Fatal(err)
		}
		for ; n < b.N; n++ {
			if _, ok := c.Next(); !ok {
				break
			}
		}
		if c.Err() != nil {
			b.Fatal(c.Err())
		}
	}
}
