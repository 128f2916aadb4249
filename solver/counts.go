package solver

import "fmt"

// Counts are the totals of a board or of a part of one: all solutions,
// symmetry classes, and classes by how many members they have.
type Counts struct {
	Total  uint64 `json:"total"`
	Unique uint64 `json:"unique"`
	Orbit1 uint64 `json:"orbit1"` // classes of 1 member (only N=1)
	Orbit2 uint64 `json:"orbit2"` // classes unchanged by a quarter turn
	Orbit4 uint64 `json:"orbit4"` // classes unchanged by a half turn only
	Orbit8 uint64 `json:"orbit8"` // classes with no symmetry
}

// Add accumulates o into c.
func (c *Counts) Add(o Counts) {
	c.Total += o.Total
	c.Unique += o.Unique
	c.Orbit1 += o.Orbit1
	c.Orbit2 += o.Orbit2
	c.Orbit4 += o.Orbit4
	c.Orbit8 += o.Orbit8
}

// AddOrbit counts one class of the given size and its members.
func (c *Counts) AddOrbit(size int) {
	c.Total += uint64(size)
	c.addClass(size)
}

// AddSolution counts one solution of a part of a board (a chunk): every
// solution adds to Total, a canonical one also counts its class, so that
// summed over all parts these are the board's Counts.
func (c *Counts) AddSolution(canonical bool, orbitSize int) {
	c.Total++
	if canonical {
		c.addClass(orbitSize)
	}
}

// addClass counts one class of the given size, not its members.
func (c *Counts) addClass(size int) {
	c.Unique++
	switch size {
	case 1:
		c.Orbit1++
	case 2:
		c.Orbit2++
	case 4:
		c.Orbit4++
	default:
		c.Orbit8++
	}
}

// Check verifies that the class counts agree with each other: the classes
// sum to Unique and their members sum to Total. Counts computed in pieces
// (tasks, chunks, jobs) are checked with it before they are trusted.
func (c Counts) Check() error {
	if classes := c.Orbit1 + c.Orbit2 + c.Orbit4 + c.Orbit8; classes != c.Unique {
		return fmt.Errorf("solver: classes by orbit sum to %d, unique is %d", classes, c.Unique)
	}
	if members := c.Orbit1 + 2*c.Orbit2 + 4*c.Orbit4 + 8*c.Orbit8; members != c.Total {
		return fmt.Errorf("solver: class members sum to %d, total is %d", members, c.Total)
	}
	return nil
}
