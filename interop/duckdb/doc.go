// Package duckdb holds dcsim's DuckDB interoperability test, in a module
// of its own so that the main module needs no cgo: the test runs a small
// sweep with the dcsim binary, reads every parquet file it wrote with
// DuckDB (database/sql and github.com/duckdb/duckdb-go/v2), checks row
// counts and column types against dcsim's own readers and the documented
// schema, and checks that an SQL aggregate, the mean clamped slowdown per
// scheduler over finished in-window flows, equals what "dcsim report"
// prints. See README.md.
package duckdb
