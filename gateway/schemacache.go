package gateway

import (
	"container/list"
	"crypto/sha256"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
)

// The bounds of a Gateway's cache of compiled schemas. An upstream that
// changes a schema on every list adds an entry each time; the least
// recently used go first, and the schemas of a steady surface are used
// on every rebuild, so they stay.
const (
	// maxCachedSchemas is four schemas for each of the MaxListItems tools
	// an upstream may list: the input and output schemas of two full
	// upstreams, or of many small ones.
	maxCachedSchemas = 4 * MaxListItems
	// maxCachedSchemaBytes bounds the bytes of the schemas held (their
	// compiled form takes a few times as much): 32 schemas of the largest
	// size compiled under the default limits.
	maxCachedSchemaBytes = 32 * rawSchemaFactor * DefaultMaxSchemaBytes
)

// schemaCache holds compiled schemas by the exact bytes compileSchema
// sees and whether it checks them as an input schema, so that a rebuild
// (up to four a second, for every profile) compiles only what changed.
//
// A *jsonschema.Resolved is shared by every surface and call that uses
// it: Validate only reads it (each call keeps its own state), as calls
// of one surface already shared it. Errors are kept too: compileSchema
// fetches nothing and reads only the bytes, so a schema that failed
// fails the same way again.
type schemaCache struct {
	maxEntries, maxBytes int

	mu    sync.Mutex
	lru   list.List // of *cachedSchema, most recently used first
	byKey map[[sha256.Size]byte]*list.Element
	bytes int // the sizes of the entries held

	compiles atomic.Int64 // compileSchema calls, for tests
}

type cachedSchema struct {
	key  [sha256.Size]byte
	size int
	res  *jsonschema.Resolved
	err  error
}

func newSchemaCache(maxEntries, maxBytes int) *schemaCache {
	return &schemaCache{maxEntries: maxEntries, maxBytes: maxBytes, byKey: map[[sha256.Size]byte]*list.Element{}}
}

// compile is compileSchema(raw, input), compiled once while it stays in
// the cache. The lock is not held while compiling: two rebuilds that miss
// together both compile, and the cache keeps one.
func (c *schemaCache) compile(raw []byte, input bool) (*jsonschema.Resolved, error) {
	h := sha256.New()
	if input {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
	h.Write(raw)
	var key [sha256.Size]byte
	h.Sum(key[:0])

	c.mu.Lock()
	if el, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(el)
		e := el.Value.(*cachedSchema)
		c.mu.Unlock()
		return e.res, e.err
	}
	c.mu.Unlock()

	c.compiles.Add(1)
	res, err := compileSchema(raw, input)
	// The key's hash is counted too, so that a flood of empty schemas
	// is bounded by bytes as well as by entries.
	size := len(raw) + sha256.Size
	if size > c.maxBytes {
		return res, err // would evict everything else
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return res, err // compiled meanwhile by another rebuild
	}
	c.byKey[key] = c.lru.PushFront(&cachedSchema{key: key, size: size, res: res, err: err})
	c.bytes += size
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		old := c.lru.Remove(c.lru.Back()).(*cachedSchema)
		delete(c.byKey, old.key)
		c.bytes -= old.size
	}
	return res, err
}

// len returns the entries and bytes held.
func (c *schemaCache) len() (entries, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}
