package analysis

import "github.com/parquet-go/parquet-go"

// Stream writes a parquet file of T rows while a run goes on, so that the
// rows of a long run are never all in memory: rows go to the parquet
// writer as they are produced, and it writes a row group every 2^20 rows,
// as the Write* functions do, and pages end where they end, so the file
// is byte-identical to writing the same rows at once, whatever the
// batches (TestStreamMatchesWrite). The file appears atomically
// at Close.
type Stream[T any] struct {
	f    *AtomicFile
	pw   *parquet.GenericWriter[T]
	tail []T // rows not yet given to pw (Write)
}

// SampleStream streams samples.parquet.
type SampleStream = Stream[SampleRecord]

// FlowStream streams flows.parquet.
type FlowStream = Stream[FlowRecord]

// CreateStream starts writing path.
func CreateStream[T any](path string) (*Stream[T], error) {
	f, err := CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	return &Stream[T]{f: f, pw: parquet.NewGenericWriter[T](f, writerOptions()...)}, nil
}

// CreateSampleStream starts writing samples.parquet at path.
func CreateSampleStream(path string) (*SampleStream, error) { return CreateStream[SampleRecord](path) }

// CreateFlowStream starts writing flows.parquet at path.
func CreateFlowStream(path string) (*FlowStream, error) { return CreateStream[FlowRecord](path) }

// Write appends rows. parquet-go takes a Write call's rows 64 at a time
// and may end a page after each 64 (writerRowGroup.writeRows,
// maxRowsPerWrite), so a call of a length that is not a multiple of 64
// would move later page boundaries: Write hands it whole multiples of 64
// and holds the rest (fewer than 64 rows) for the next call or Close.
func (s *Stream[T]) Write(rows []T) error {
	if err := s.write(rows); err != nil {
		return writeError(s.f.path, err)
	}
	return nil
}

func (s *Stream[T]) write(rows []T) error {
	if len(s.tail) > 0 {
		n := min(len(rows), writeChunk-len(s.tail))
		s.tail = append(s.tail, rows[:n]...)
		rows = rows[n:]
		if len(s.tail) < writeChunk {
			return nil
		}
		if _, err := s.pw.Write(s.tail); err != nil {
			return err
		}
		clear(s.tail)
		s.tail = s.tail[:0]
	}
	n := len(rows) / writeChunk * writeChunk
	if _, err := s.pw.Write(rows[:n]); err != nil {
		return err
	}
	s.tail = append(s.tail, rows[n:]...)
	return nil
}

// writeChunk is parquet-go's maxRowsPerWrite.
const writeChunk = 64

// Close finishes the file and puts it in place; on error nothing is left.
func (s *Stream[T]) Close() error {
	if _, err := s.pw.Write(s.tail); err != nil {
		s.f.Abort()
		return writeError(s.f.path, err)
	}
	if err := s.pw.Close(); err != nil {
		s.f.Abort()
		return writeError(s.f.path, err)
	}
	return s.f.Commit()
}

// Abort drops the file.
func (s *Stream[T]) Abort() { s.f.Abort() }
