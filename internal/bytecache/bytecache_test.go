package bytecache_test

import (
	"fmt"
	"testing"

	"github.com/nqueens/nqueens/internal/bytecache"
)

func size(_ string, v []byte) int64 { return int64(len(v)) }

// TestBudget: entries past the budget push out the least recently used;
// the cache never holds more than its budget.
func TestBudget(t *testing.T) {
	t.Parallel()
	c := bytecache.New(1000, size)
	for i := range 20 {
		c.Add(fmt.Sprint(i), make([]byte, 100))
		if c.Used() > 1000 {
			t.Fatalf("after %d entries of 100 bytes: %d bytes used, budget 1000", i+1, c.Used())
		}
	}
	if _, ok := c.Get("0"); ok {
		t.Error("the first entry is still there after 20 of 100 bytes in a budget of 1000")
	}
	if _, ok := c.Get("19"); !ok {
		t.Error("the last entry is gone")
	}
}

// TestRecency: an entry read recently outlives older ones.
func TestRecency(t *testing.T) {
	t.Parallel()
	c := bytecache.New(1000, size)
	for i := range 8 {
		c.Add(fmt.Sprint(i), make([]byte, 100))
	}
	c.Get("0")
	c.Add("8", make([]byte, 100))
	c.Add("9", make([]byte, 100))
	c.Add("10", make([]byte, 100))
	if _, ok := c.Get("0"); !ok {
		t.Error("the entry read last was forgotten")
	}
	if _, ok := c.Get("1"); ok {
		t.Error("the entry used least recently is still there")
	}
}

// TestLargeEntry: an entry over an eighth of the budget is not kept and
// pushes nothing out; replacing an entry counts it once.
func TestLargeEntry(t *testing.T) {
	t.Parallel()
	c := bytecache.New(800, size)
	c.Add("a", make([]byte, 100))
	c.Add("big", make([]byte, 101))
	if _, ok := c.Get("big"); ok {
		t.Error("an entry over an eighth of the budget was kept")
	}
	c.Add("a", make([]byte, 50))
	if c.Used() != 50 {
		t.Errorf("%d bytes used after replacing an entry of 100 by one of 50", c.Used())
	}
}

// TestOwnerShare: an owner past its share keeps nothing more, so that its
// entries cannot push out another owner's; once its entries leave, it
// keeps again.
func TestOwnerShare(t *testing.T) {
	t.Parallel()
	c := bytecache.New(1600, size) // an eighth: 200 bytes an owner
	if !c.AddFor("honest", "h", make([]byte, 100)) {
		t.Fatal("the honest owner's first entry was not kept")
	}
	kept := 0
	for i := range 50 {
		if c.AddFor("attacker", fmt.Sprint(i), make([]byte, 100)) {
			kept++
		}
	}
	if kept != 2 {
		t.Errorf("the attacker kept %d entries of 100 bytes within a share of 200; want 2", kept)
	}
	if _, ok := c.Get("h"); !ok {
		t.Error("the attacker's entries pushed out the honest owner's")
	}
	// Entries without an owner push out the attacker's (as anyone's), and
	// then it may keep again.
	for i := range 16 {
		c.Add(fmt.Sprint("x", i), make([]byte, 100))
	}
	if !c.AddFor("attacker", "again", make([]byte, 100)) {
		t.Error("the attacker's entries gone, it may not keep a new one")
	}
}
