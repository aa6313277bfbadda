// Package counters sums structs of counters field by field, so that a
// counter added to such a struct is summed without a line of its own.
package counters

import "reflect"

// Add adds every field of src to the same field of dst. T must be a
// struct whose fields are all signed integers (it panics otherwise).
func Add[T any](dst, src *T) {
	a, b := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for i := range a.NumField() {
		f := a.Field(i)
		f.SetInt(f.Int() + b.Field(i).Int())
	}
}
