package analysis

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// File names of one run directory (docs/design.md "Outputs").
const (
	FlowsFile       = "flows.parquet"
	IterationsFile  = "iterations.parquet"
	CollectivesFile = "collectives.parquet"
	SamplesFile     = "samples.parquet"
	RunFile         = "run.parquet"
	BatchesFile     = "batches.parquet"
)

// createdBy is the file's writer name. It carries no version or build id,
// so that an upgrade of dcsim alone does not change the bytes of a file
// (run.parquet records the dcsim version).
const createdBy = "dcsim"

// codec is zstd at its default level (about zstd -3), single-threaded. On
// BenchmarkEncodeFlows's synthetic flows it gives 29 B/flow against
// snappy's 43; pandas (pyarrow), polars and DuckDB all read it. Its output
// depends only on its input, which keeps files byte-identical across runs.
var codec = &zstd.Codec{Level: zstd.SpeedDefault, Concurrency: 1}

func writerOptions() []parquet.WriterOption {
	return []parquet.WriterOption{
		&parquet.WriterConfig{CreatedBy: createdBy},
		parquet.Compression(codec),
		// Dictionary columns (run_id, generator, tag, ...) fall back to
		// plain encoding past 1 MiB rather than growing without bound.
		parquet.DictionaryMaxBytes(1 << 20),
		parquet.MaxRowsPerRowGroup(1 << 20),
	}
}

// writeRecords writes rows of T to path atomically.
func writeRecords[T any](path string, rows []T) error {
	return WriteFileAtomic(path, func(w io.Writer) error { return encodeRecords(w, rows) })
}

func encodeRecords[T any](w io.Writer, rows []T) error {
	pw := parquet.NewGenericWriter[T](w, writerOptions()...)
	if _, err := pw.Write(rows); err != nil {
		return err
	}
	return pw.Close()
}

// WriteFlows writes flows.parquet (or any path) atomically.
func WriteFlows(path string, flows []FlowRecord) error { return writeRecords(path, flows) }

// WriteIterations writes iterations.parquet atomically.
func WriteIterations(path string, its []IterationRecord) error { return writeRecords(path, its) }

// WriteCollectives writes collectives.parquet atomically.
func WriteCollectives(path string, cs []CollectiveRecord) error { return writeRecords(path, cs) }

// WriteBatches writes batches.parquet atomically.
func WriteBatches(path string, bs []BatchRecord) error { return writeRecords(path, bs) }

// ReadBatches reads a batches.parquet file.
func ReadBatches(path string) ([]BatchRecord, error) { return readRecords[BatchRecord](path) }

// WriteSamples writes samples.parquet atomically.
func WriteSamples(path string, ss []SampleRecord) error { return writeRecords(path, ss) }

// ReadFlows reads a flows.parquet file. Columns the file has beyond the
// pinned ones are ignored; a missing or retyped pinned column is an error.
func ReadFlows(path string) ([]FlowRecord, error) { return readRecords[FlowRecord](path) }

// ReadIterations reads an iterations.parquet file.
func ReadIterations(path string) ([]IterationRecord, error) {
	return readRecords[IterationRecord](path)
}

// ReadCollectives reads a collectives.parquet file.
func ReadCollectives(path string) ([]CollectiveRecord, error) {
	return readRecords[CollectiveRecord](path)
}

// ReadSamples reads a samples.parquet file.
func ReadSamples(path string) ([]SampleRecord, error) { return readRecords[SampleRecord](path) }

func readRecords[T any](path string) ([]T, error) {
	var rows []T
	start, each := collect(&rows)
	if err := scanRecords(path, start, each); err != nil {
		return nil, err
	}
	return rows, nil
}

// collect returns the start and each functions of scanRecords or
// decodeEach that gather every row into *rows. The footer's row count is
// trusted only up to a point: a corrupt footer must not make one huge
// allocation.
func collect[T any](rows *[]T) (start func(int64), each func([]T)) {
	return func(n int64) { *rows = make([]T, 0, min(max(n, 0), 1<<20)) },
		func(batch []T) { *rows = append(*rows, batch...) }
}

// ReadFlowStats reads the in-window flows of a flows.parquet file as
// FlowStats (Stats of ReadFlows), a batch at a time, so that reading a
// file of millions of flows never holds them all as FlowRecords.
func ReadFlowStats(path string) ([]FlowStat, error) {
	var out []FlowStat
	// Sized by the footer's row count (capped: a corrupt footer must not
	// make a huge allocation), so a large file is not copied as it grows.
	err := scanRecords(path, func(n int64) { out = make([]FlowStat, 0, min(max(n, 0), 1<<24)) },
		func(batch []FlowRecord) { out = AppendStats(out, batch) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanRecords opens path and decodes its rows as T, passing them to each
// in batches (the batch is reused: each must copy what it keeps). start
// gets the footer's row count first.
func scanRecords[T any](path string, start func(rows int64), each func(batch []T)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := decodeEach(f, st.Size(), start, each); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// decodeRecords reads every row of a parquet file as T. A corrupt file is
// an error, never a panic: parquet-go panics on some malformed inputs, and
// those panics are turned into errors here.
func decodeRecords[T any](r io.ReaderAt, size int64) ([]T, error) {
	var rows []T
	start, each := collect(&rows)
	if err := decodeEach(r, size, start, each); err != nil {
		return nil, err
	}
	return rows, nil
}

// decodeEach is decodeRecords a batch at a time: start gets the footer's
// row count (trusted only to size a first allocation: a corrupt footer
// must not make a huge one), each gets the rows in order in batches of at
// most 4096, reusing one buffer.
func decodeEach[T any](r io.ReaderAt, size int64, start func(rows int64), each func(batch []T)) (err error) {
	defer recoverCorrupt(&err)
	pf, err := openParquet(r, size)
	if err != nil {
		return err
	}
	if err := checkColumns(parquet.SchemaOf(new(T)), pf.Schema()); err != nil {
		return err
	}
	pr := parquet.NewGenericReader[T](pf)
	defer pr.Close()
	start(pf.NumRows())
	buf := make([]T, 4096)
	var total int64
	for {
		n, err := pr.Read(buf)
		each(buf[:n])
		total += int64(n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("reader made no progress after %d rows", total)
		}
	}
	if total != pf.NumRows() {
		return fmt.Errorf("read %d rows, footer says %d", total, pf.NumRows())
	}
	return nil
}

func openParquet(r io.ReaderAt, size int64) (*parquet.File, error) {
	// parquet-go allocates the footer length the file claims before
	// checking it against the file's size; check first, so that a corrupt
	// length is an error rather than a 4 GiB allocation.
	var tail [8]byte
	if size < 12 {
		return nil, fmt.Errorf("not a parquet file: %d bytes", size)
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, fmt.Errorf("not a parquet file: %w", err)
	}
	if footer := int64(binary.LittleEndian.Uint32(tail[:4])); footer > size-12 {
		return nil, fmt.Errorf("not a parquet file: footer of %d bytes in a %d-byte file", footer, size)
	}
	pf, err := parquet.OpenFile(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a parquet file: %w", err)
	}
	return pf, nil
}

func recoverCorrupt(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("corrupt parquet file: %v", p)
	}
}

// addedColumns are pinned columns added after files without them were
// written: such a file reads with the column's zero value ("" for
// config_hash: results from before unique run ids, whose run_id was the
// scenario hash).
var addedColumns = map[string]bool{"config_hash": true}

// checkColumns reports the first leaf column of want that got lacks (but
// for addedColumns) or stores with another physical type, logical type or
// repetition.
func checkColumns(want, got *parquet.Schema) error {
	for _, path := range want.Columns() {
		name := strings.Join(path, ".")
		w, _ := want.Lookup(path...)
		g, ok := got.Lookup(path...)
		if !ok && addedColumns[name] {
			continue
		}
		if !ok {
			return fmt.Errorf("column %s: missing", name)
		}
		wd, gd := describeNode(w.Node), describeNode(g.Node)
		if wd != gd {
			return fmt.Errorf("column %s: got %s, want %s", name, gd, wd)
		}
		if w.MaxRepetitionLevel != g.MaxRepetitionLevel || w.MaxDefinitionLevel != g.MaxDefinitionLevel {
			return fmt.Errorf("column %s: nested as r%d d%d, want r%d d%d", name,
				g.MaxRepetitionLevel, g.MaxDefinitionLevel, w.MaxRepetitionLevel, w.MaxDefinitionLevel)
		}
	}
	return nil
}

// describeNode prints a leaf's repetition, physical type and logical type,
// e.g. "optional INT64 (INT(64,true))" or "required BYTE_ARRAY (STRING)".
func describeNode(n parquet.Node) string {
	rep := "required"
	switch {
	case n.Optional():
		rep = "optional"
	case n.Repeated():
		rep = "repeated"
	}
	t := n.Type()
	s := rep + " " + t.Kind().String()
	if lt := t.LogicalType(); lt != nil {
		s += " (" + lt.String() + ")"
	}
	return s
}
