package wiring

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/dcsim/dcsim/analysis"
)

// spill is one run of flow records in increasing FlowID order, written
// once and read back from the front: the rows that wait behind a running
// message leave memory for one once there are more than
// flowRecorder.holdRows of them. The encoding is private and lossless
// (varints, strings with their lengths, float bits), so a row read back is
// the row written. The file is removed at close.
type spill struct {
	path    string
	w       *os.File
	bw      *bufio.Writer
	r       *bufio.Reader
	rf      *os.File
	written int64 // records appended
	read    int64 // records read back
	head    analysis.FlowRecord
	hasHead bool
	buf     []byte
	runID   string // every record's (not stored per row)
}

// newSpill creates a spill file in dir; wrap, when set, wraps its writer
// (tests inject a full disk through it).
func newSpill(dir, runID string, wrap func(io.Writer) io.Writer) (*spill, error) {
	f, err := os.CreateTemp(dir, FlowSpillPattern)
	if err != nil {
		return nil, spillError(filepath.Join(dir, FlowSpillPattern), err)
	}
	rf, err := os.Open(f.Name())
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, spillError(f.Name(), err)
	}
	var w io.Writer = f
	if wrap != nil {
		w = wrap(w)
	}
	return &spill{path: f.Name(), w: f, bw: bufio.NewWriterSize(w, 1<<16), rf: rf, r: bufio.NewReaderSize(rf, 4096), runID: runID}, nil
}

// spillError says which file could not be written and why, once: err is
// often an *os.PathError naming the same file.
func spillError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("spilling flow rows to %s: %w", path, err)
}

// append writes the run's rows, in increasing FlowID order, once.
func (s *spill) append(rows []analysis.FlowRecord) error {
	for i := range rows {
		f := &rows[i]
		if f.RunID != s.runID {
			return fmt.Errorf("wiring: spilled row of run %q in run %q", f.RunID, s.runID)
		}
		b := s.buf[:0]
		b = binary.AppendVarint(b, f.FlowID)
		b = appendString(b, f.Generator)
		b = appendString(b, f.Tag)
		b = binary.AppendVarint(b, int64(f.Src))
		b = binary.AppendVarint(b, int64(f.Dst))
		b = binary.AppendVarint(b, f.QP)
		b = binary.AppendVarint(b, int64(f.PriorityClass))
		b = binary.AppendVarint(b, f.SizeBytes)
		b = binary.AppendVarint(b, f.StartNs)
		var flags byte
		if f.FinishNs != nil {
			flags |= 1
		}
		if f.FctNs != nil {
			flags |= 2
		}
		if f.Slowdown != nil {
			flags |= 4
		}
		if f.InWindow {
			flags |= 8
		}
		b = append(b, flags)
		if f.FinishNs != nil {
			b = binary.AppendVarint(b, *f.FinishNs)
		}
		if f.FctNs != nil {
			b = binary.AppendVarint(b, *f.FctNs)
		}
		if f.Slowdown != nil {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(*f.Slowdown))
		}
		b = binary.AppendVarint(b, f.IdealFctNs)
		b = binary.AppendVarint(b, f.RetransmittedBytes)
		s.buf = b
		if _, err := s.bw.Write(b); err != nil {
			return spillError(s.path, err)
		}
	}
	s.written += int64(len(rows))
	err := s.bw.Flush()    // what is written can be read back at once
	s.bw, s.buf = nil, nil // the run is complete
	if err != nil {
		return spillError(s.path, err)
	}
	return nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// peek is the next record not yet taken, if any was spilled.
func (s *spill) peek() (*analysis.FlowRecord, error) {
	if s.hasHead {
		return &s.head, nil
	}
	if s.read == s.written {
		return nil, nil
	}
	if err := s.decode(&s.head); err != nil {
		return nil, fmt.Errorf("wiring: reading back spilled flow records: %w", err)
	}
	s.read++
	s.hasHead = true
	return &s.head, nil
}

// take drops the record peek returned.
func (s *spill) take() { s.hasHead = false }

// done reports whether every record was taken.
func (s *spill) done() bool { return !s.hasHead && s.read == s.written }

func (s *spill) decode(f *analysis.FlowRecord) error {
	var err error
	varint := func() int64 {
		if err != nil {
			return 0
		}
		var v int64
		v, err = binary.ReadVarint(s.r)
		return v
	}
	str := func() string {
		if err != nil {
			return ""
		}
		var n uint64
		if n, err = binary.ReadUvarint(s.r); err != nil {
			return ""
		}
		b := make([]byte, n)
		_, err = io.ReadFull(s.r, b)
		return string(b)
	}
	*f = analysis.FlowRecord{RunID: s.runID}
	f.FlowID = varint()
	f.Generator, f.Tag = str(), str()
	f.Src, f.Dst = int32(varint()), int32(varint())
	f.QP = varint()
	f.PriorityClass = int32(varint())
	f.SizeBytes, f.StartNs = varint(), varint()
	if err != nil {
		return err
	}
	flags, err := s.r.ReadByte()
	if err != nil {
		return err
	}
	if flags&1 != 0 {
		v := varint()
		f.FinishNs = &v
	}
	if flags&2 != 0 {
		v := varint()
		f.FctNs = &v
	}
	if flags&4 != 0 && err == nil {
		var b [8]byte
		if _, err = io.ReadFull(s.r, b[:]); err == nil {
			v := math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
			f.Slowdown = &v
		}
	}
	f.InWindow = flags&8 != 0
	f.IdealFctNs, f.RetransmittedBytes = varint(), varint()
	return err
}

// close removes the file.
func (s *spill) close() error {
	err := errors.Join(s.w.Close(), s.rf.Close())
	return errors.Join(err, os.Remove(s.path))
}
