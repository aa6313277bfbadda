package queueing_test

import (
	"fmt"

	"github.com/dcsim/dcsim/analysis/queueing"
)

// The insensitivity check of docs/model.md §11.1: M/M/1 at load 0.8.
func Example() {
	d, err := queueing.Exponential(1000) // mean 1000 B
	if err != nil {
		panic(err)
	}
	q, err := queueing.NewMG1(d, 100e9/8, 0.8) // 100 Gbps
	if err != nil {
		panic(err)
	}
	meanService := d.Mean() / q.Rate() // seconds
	for _, p := range queueing.Policies {
		m, err := q.Means(p)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-4v E[T]/E[x] = %.3f\n", p, m.Response/meanService)
	}
	// Output:
	// PS   E[T]/E[x] = 5.000
	// FCFS E[T]/E[x] = 5.000
	// SRPT E[T]/E[x] = 2.353
	// LAS  E[T]/E[x] = 5.000
}

// WebSearch (workloads/cloud/cdf/websearch.cdf) with the integer sizes the
// simulator samples, one 100 Gbps bottleneck at load 0.5.
func ExampleNewPiecewise() {
	sizes := []float64{0, 10000, 20000, 30000, 50000, 80000, 200000, 1000000, 2000000, 5000000, 10000000, 30000000}
	cdf := []float64{0, 0.15, 0.2, 0.3, 0.4, 0.53, 0.6, 0.7, 0.8, 0.9, 0.97, 1}
	d, err := queueing.NewPiecewise(sizes, cdf, queueing.Integer)
	if err != nil {
		panic(err)
	}
	q, err := queueing.NewMG1(d, 100e9/8, 0.5)
	if err != nil {
		panic(err)
	}
	for _, p := range queueing.Policies {
		m, err := q.Means(p)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-4v E[T] = %7.1f us  mean slowdown %8.3f\n", p, m.Response*1e6, m.Slowdown)
	}
	t, err := q.Response(queueing.SRPT, 64000)
	if err != nil {
		panic(err)
	}
	fmt.Printf("SRPT E[T(64 KB)] = %.3f us\n", t*1e6)
	// Output:
	// PS   E[T] =   273.8 us  mean slowdown    2.000
	// FCFS E[T] =   573.1 us  mean slowdown  953.892
	// SRPT E[T] =   193.9 us  mean slowdown    1.082
	// LAS  E[T] =   259.6 us  mean slowdown    1.205
	// SRPT E[T(64 KB)] = 5.158 us
}
