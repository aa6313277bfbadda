package simai

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks that Parse never panics, that its errors name the file,
// and that whatever it accepts survives Write and Parse unchanged.
func FuzzParse(f *testing.F) {
	// Small seeds only: the fuzzer minimises every new input, which is slow
	// for the 90-line files, so the AICB files contribute their header and
	// first layer lines.
	for _, name := range ShippedNames() {
		data, _ := shippedFS.ReadFile("testdata/" + name)
		lines := strings.SplitAfter(string(data), "\n")
		if len(lines) > 7 {
			lines = append([]string{lines[0], "5\n"}, lines[2:7]...)
		}
		f.Add([]byte(strings.Join(lines, "")))
	}
	for _, s := range []string{
		"", "MICRO\n0\n", "MICRO\n1\nm -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 4096 1\n",
		"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 checkpoints: 1 0 pp_comm 3.0 x: y\n1\na -1 1 ALLTOALL_EP 5 2 BROADCAST 6 3 REDUCESCATTER_DP_EP 7 4\n",
		"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 2 pp: 2 vpp: 3 ga: 4 all_gpus: 64\n2\n\nb\t-1\t0\tALLREDUCEALLTOALL\t1\t0\tNONE\t0\t0\tALLGATHER\t9\t0\n\nc -1 0 NONE 0 0 NONE 0 0 NONE 0 0\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Parse("fuzz.txt", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.txt:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("parsed workload does not validate: %v", err)
		}
		var buf bytes.Buffer
		if err := w.Write(&buf); err != nil {
			t.Fatalf("Write: %v", err)
		}
		back, err := Parse("fuzz.txt", &buf)
		if err != nil {
			t.Fatalf("Parse(Write(w)): %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(w, back) {
			t.Fatalf("round trip (-want +got):\n%s", cmp.Diff(w, back))
		}
	})
}
