package analysis

import "github.com/parquet-go/parquet-go"

// SampleStream writes samples.parquet while a run goes on, so that the
// samples of a long traced run are never all in memory: rows go to the
// parquet writer as they are sampled, and it writes a row group every
// 2^20 rows, as WriteSamples does, so the file is byte-identical to
// WriteSamples of the same rows. The file appears atomically at Close.
type SampleStream struct {
	f  *AtomicFile
	pw *parquet.GenericWriter[SampleRecord]
}

// CreateSampleStream starts writing path.
func CreateSampleStream(path string) (*SampleStream, error) {
	f, err := CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	return &SampleStream{f: f, pw: parquet.NewGenericWriter[SampleRecord](f, writerOptions()...)}, nil
}

// Write appends rows.
func (s *SampleStream) Write(rows []SampleRecord) error {
	_, err := s.pw.Write(rows)
	return err
}

// Close finishes the file and puts it in place; on error nothing is left.
func (s *SampleStream) Close() error {
	if err := s.pw.Close(); err != nil {
		s.f.Abort()
		return err
	}
	return s.f.Commit()
}

// Abort drops the file.
func (s *SampleStream) Abort() { s.f.Abort() }
