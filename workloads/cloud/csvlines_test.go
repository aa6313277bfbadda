package cloud

import (
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// readAllCSV is every record of in with its line, and the error that ended
// it, as encoding/csv reads them (Comment '#').
func readAllCSV(in string) []string {
	cr := csv.NewReader(strings.NewReader(in))
	cr.Comment = '#'
	cr.ReuseRecord = true
	var out []string
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			return append(out, "error "+csvError("f", err).Error())
		}
		line, _ := cr.FieldPos(0)
		out = append(out, fmt.Sprintf("%d %q", line, rec))
	}
}

func readAllLines(in string) []string {
	c := newCSVLines(strings.NewReader(in))
	var out []string
	for {
		rec, err := c.read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			return append(out, "error "+csvError("f", err).Error())
		}
		out = append(out, fmt.Sprintf("%d %q", c.line, rec))
	}
}

// TestCSVLinesMatchesCSV: on random inputs made of the characters that
// matter to encoding/csv (commas, quotes, comment marks, CR, LF, spaces),
// and on lines longer than the buffer, csvLines returns the same records,
// line numbers and errors as encoding/csv.
func TestCSVLinesMatchesCSV(t *testing.T) {
	cases := []string{"", "\n", "a,b\n1,2\n", "a,b\r\n1,2\r\n", "a,b\n1,2", "a,b\n1,2\r", "a,b\n\n\r\n1,2\n",
		"#c\na,b\n# x\n1,2\n", "a,b\n1\n", "a,b\n1,2,3\n", "a,b\n1,\"2\"\n3,4\n", "a,b\n1,2\"\n", "a,b\n\"1\n2\",3\n4,5\n6\n",
		"\"a\",b\n1,2\n3\n", "a,b\n1,2\n" + strings.Repeat("x", 70000) + ",y\n3,4\n5\n", "a,b\r\r\n1,\r2\n", " #a,b\n1,2\n"}
	rng := rand.New(rand.NewPCG(11, 0))
	const alphabet = ",,,\"#\r\n\n\n a1"
	for i := 0; i < 30000; i++ {
		b := make([]byte, rng.IntN(40))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, in := range cases {
		want, got := readAllCSV(in), readAllLines(in)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("input %q:\ngot  %q\nwant %q", in, got, want)
		}
	}
}
