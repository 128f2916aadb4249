// Package bytecache is a least-recently-used cache bounded by the bytes
// its entries take, not by their number: a cache of 1,000 entries holds
// 1,000 one-megabyte entries as readily as 1,000 small ones, and a
// server's memory is what needs a bound.
package bytecache

import (
	"container/list"
	"sync"
)

// Cache is an LRU cache whose entries' costs, as its cost function
// estimates them in bytes, add up to at most its budget. An entry that
// would take more than an eighth of the budget is not kept, so that one
// entry cannot empty the cache. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	budget int64
	cost   func(K, V) int64

	mu    sync.Mutex
	used  int64
	order *list.List // of *entry[K, V], most recently used first
	index map[K]*list.Element
	// owners are the bytes each owner's entries take (AddFor); the
	// entries of Add have none.
	owners map[string]int64
}

type entry[K comparable, V any] struct {
	key   K
	v     V
	cost  int64
	owner string
}

// New returns a cache of budget bytes whose entries cost what cost says.
func New[K comparable, V any](budget int64, cost func(K, V) int64) *Cache[K, V] {
	return &Cache[K, V]{budget: budget, cost: cost, order: list.New(), index: map[K]*list.Element{}, owners: map[string]int64{}}
}

// Get returns the value kept for key, if any.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*entry[K, V]).v, true
	}
	var zero V
	return zero, false
}

// Cost returns what the entry of key was counted at, if it is kept,
// without making it more recent.
func (c *Cache[K, V]) Cost(key K) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[key]; ok {
		return el.Value.(*entry[K, V]).cost, true
	}
	return 0, false
}

// Add keeps v for key, forgetting the least recently used entries as the
// budget needs.
func (c *Cache[K, V]) Add(key K, v V) { c.add("", -1, key, v) }

// AddFor is Add on behalf of owner (a client), whose entries may take at
// most an eighth of the budget at once: past it the entry is not kept
// (false), so that one owner's entries cannot push out everybody else's;
// they leave as any other does, and make room for the owner's next. An
// empty owner is no one's: as Add.
func (c *Cache[K, V]) AddFor(owner string, key K, v V) bool {
	return c.add(owner, c.budget/8, key, v)
}

// add keeps v for key, owned by owner within share (-1: no share).
func (c *Cache[K, V]) add(owner string, share int64, key K, v V) bool {
	cost := c.cost(key, v)
	if cost > c.budget/8 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[key]; ok {
		c.remove(el)
	}
	if share >= 0 && c.owners[owner]+cost > share {
		return false
	}
	c.index[key] = c.order.PushFront(&entry[K, V]{key: key, v: v, cost: cost, owner: owner})
	c.used += cost
	if owner != "" {
		c.owners[owner] += cost
	}
	for c.used > c.budget {
		c.remove(c.order.Back())
	}
	return true
}

func (c *Cache[K, V]) remove(el *list.Element) {
	e := c.order.Remove(el).(*entry[K, V])
	delete(c.index, e.key)
	c.used -= e.cost
	if e.owner != "" {
		if c.owners[e.owner] -= e.cost; c.owners[e.owner] <= 0 {
			delete(c.owners, e.owner)
		}
	}
}

// Used returns the bytes the entries take, by their costs.
func (c *Cache[K, V]) Used() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
