package queueing

import "testing"

func BenchmarkIntegerDist(b *testing.B) {
	s, c := readCDF(b, "testdata/homa_w1.cdf")
	for b.Loop() {
		if _, err := NewPiecewise(s, c, Integer); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSRPTMeans(b *testing.B) {
	for _, disc := range []Discretisation{Continuous, Integer} {
		b.Run(disc.String(), func(b *testing.B) {
			d := fileDist(b, "websearch.cdf", disc)
			for b.Loop() {
				q := mustMG1(b, d, 12.5e9, 0.8)
				mustMeans(b, q, SRPT)
			}
		})
	}
}
