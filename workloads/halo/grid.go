package halo

import "fmt"

// Grid is a 3-D grid of X*Y*Z ranks; rank (x, y, z) is x + X*(y + Y*z).
// Neighbours share a face (up to 6 per rank); Periodic wraps each axis
// (a torus), so every rank of a grid with all sides >= 3 has 6.
type Grid struct {
	X, Y, Z  int
	Periodic bool
}

// Ranks is the number of ranks.
func (g Grid) Ranks() int { return g.X * g.Y * g.Z }

// Validate checks the sides.
func (g Grid) Validate() error {
	if g.X < 1 || g.Y < 1 || g.Z < 1 {
		return fmt.Errorf("grid %dx%dx%d: every side must be at least 1", g.X, g.Y, g.Z)
	}
	if g.Ranks() < 2 {
		return fmt.Errorf("grid %dx%dx%d: at least 2 ranks are needed", g.X, g.Y, g.Z)
	}
	return nil
}

// Pair is an ordered pair of neighbouring ranks: one SPSC ring buffer,
// Src the only writer of payload and tail, Dst of head.
type Pair struct{ Src, Dst int }

// Pairs lists every ordered neighbour pair, by source rank, then by the
// neighbour's axis (x, y, z) and direction (-, +). A side of 2 with
// Periodic has its neighbour once, not twice.
func (g Grid) Pairs() []Pair {
	var ps []Pair
	for r := 0; r < g.Ranks(); r++ {
		x, y, z := r%g.X, r/g.X%g.Y, r/(g.X*g.Y)
		c := [3]int{x, y, z}
		side := [3]int{g.X, g.Y, g.Z}
		seen := map[int]bool{}
		for a := 0; a < 3; a++ {
			for _, d := range [2]int{-1, 1} {
				n := c
				n[a] += d
				if n[a] < 0 || n[a] >= side[a] {
					if !g.Periodic {
						continue
					}
					n[a] = (n[a] + side[a]) % side[a]
				}
				nr := n[0] + g.X*(n[1]+g.Y*n[2])
				if nr == r || seen[nr] {
					continue
				}
				seen[nr] = true
				ps = append(ps, Pair{r, nr})
			}
		}
	}
	return ps
}
