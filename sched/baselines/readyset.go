package baselines

import (
	"slices"

	"github.com/google/btree"

	"github.com/dcsim/dcsim/rnic"
)

// readySet is Fair's set of ready QPs ordered by id. A NIC usually has a
// few ready QPs (one to three on the default scenario), where a sorted
// slice with binary search costs a fraction of a B-tree's descent and
// comparison calls; with many (incast, per-pair pools of hundreds of QPs)
// a slice's inserts move O(n) pointers, so past bigReady QPs the set moves
// to a B-tree, and back below smallReady (the gap keeps a set near one
// bound from moving at every change). Either way the order, and so every
// Pick, is the same.
type readySet struct {
	small []*rnic.QP              // sorted by id, while big is nil
	big   *btree.BTreeG[*rnic.QP] // by id, once the set outgrew small
	probe rnic.QP
}

const (
	bigReady   = 128
	smallReady = 32
)

func lessQP(a, b *rnic.QP) bool { return a.ID < b.ID }

func (s *readySet) len() int {
	if s.big != nil {
		return s.big.Len()
	}
	return len(s.small)
}

// search is the index of the first QP in small with an id >= id.
func (s *readySet) search(id int64) int {
	lo, hi := 0, len(s.small)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.small[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// insert adds qp (no change if it is in the set).
func (s *readySet) insert(qp *rnic.QP) {
	if s.big != nil {
		s.big.ReplaceOrInsert(qp)
		return
	}
	i := s.search(qp.ID)
	if i < len(s.small) && s.small[i] == qp {
		return
	}
	s.small = slices.Insert(s.small, i, qp)
	if len(s.small) > bigReady {
		s.big = btree.NewG(8, lessQP)
		for _, q := range s.small {
			s.big.ReplaceOrInsert(q)
		}
		clear(s.small)
		s.small = s.small[:0]
	}
}

// remove takes qp out of the set (no change if it is not in it).
func (s *readySet) remove(qp *rnic.QP) {
	if s.big != nil {
		s.big.Delete(qp)
		if s.big.Len() < smallReady {
			s.big.Ascend(func(q *rnic.QP) bool {
				s.small = append(s.small, q)
				return true
			})
			s.big = nil
		}
		return
	}
	i := s.search(qp.ID)
	if i < len(s.small) && s.small[i] == qp {
		s.small = slices.Delete(s.small, i, i+1)
	}
}

// from is the ready QP with the smallest id >= id, else the one with the
// smallest id (the round robin wraps); nil if the set is empty.
func (s *readySet) from(id int64) *rnic.QP {
	if s.big == nil {
		if len(s.small) == 0 {
			return nil
		}
		if i := s.search(id); i < len(s.small) {
			return s.small[i]
		}
		return s.small[0]
	}
	var next *rnic.QP
	s.probe.ID = id
	s.big.AscendGreaterOrEqual(&s.probe, func(qp *rnic.QP) bool {
		next = qp
		return false
	})
	if next == nil {
		next, _ = s.big.Min()
	}
	return next
}
