package gateway

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
)

// The bounds of a Gateway's cache of prepared schemas. An upstream that
// changes a schema on every list adds an entry each time; the least
// recently used go first, and the schemas of a steady surface are used
// on every rebuild, so they stay.
const (
	// maxCachedSchemas is four schemas for each of the MaxListItems tools
	// an upstream may list: the input and output schemas of two full
	// upstreams, or of many small ones.
	maxCachedSchemas = 4 * MaxListItems
	// maxCachedSchemaBytes bounds the bytes of the schemas held, in
	// every form held (preparedSchema.size; their compiled form takes a
	// few times as much): 32 schemas of the largest size compiled under
	// the default limits.
	maxCachedSchemaBytes = 32 * rawSchemaFactor * DefaultMaxSchemaBytes
)

// schemaCache holds what the facade reads from an upstream's schema, by
// the exact bytes the upstream sent and whether it is an input schema,
// so that a rebuild (up to four a second, for every profile) reads only
// what changed: jsonschema-go's compile, and every pass of the facade's
// own (multipleOf, numbers, names, the flat form, references, the prose
// cut, the cleaning for each target a profile asks for). Each decodes
// the schema again; 2.9 MB of enum took half a second in all.
//
// What it holds is shared by every surface and call that uses it, and
// only read: a *jsonschema.Resolved's Validate keeps each call's state
// apart, and the facade's own forms are not changed once made (calls of
// one surface already shared them). Errors are kept too: every pass reads
// only the bytes and fetches nothing, so a schema that failed fails the
// same way again.
type schemaCache struct {
	maxEntries, maxBytes int

	mu    sync.Mutex
	lru   list.List // of *preparedSchema, most recently used first
	byKey map[[sha256.Size]byte]*list.Element
	bytes int // the sizes of the entries held

	compiles atomic.Int64 // schemas prepared (compiled and read), for tests
	cleans   atomic.Int64 // schemas cleaned for a target, for tests
}

// preparedSchema is what the facade reads from one upstream schema, the
// same for every profile. What a profile changes (the target's cleaning)
// is kept by target, made the first time a profile asks; what depends on
// the limits (the listed caps) is done after, by expose.
type preparedSchema struct {
	key  [sha256.Size]byte
	size int // its bytes in the cache: the schema's and every form's held

	res *jsonschema.Resolved // compiled (compileSchema), or
	err error                // why not; the rest is unset then

	mul      *multiples    // the multipleOf the facade judges (orNil)
	bigExact bool          // integers past 2^53 are judged exactly
	near     schemaNumbers // the schema's numbers (near.go)
	names    *propNames    // the property names it declares (casealias.go)
	flat     *flatSchema   // input: its flat form (fastschema.go), if any
	cost     *costGraph    // with references: the cost model (validcost.go)
	prose    []byte        // output: as listed (cutSchemaProse)

	listed map[Target]*listedSchema // input: cleaned, by target; under schemaCache.mu
}

// listedSchema is an input schema cleaned for a target and cut for
// listing, or why it cannot be.
type listedSchema struct {
	schema json.RawMessage
	nulls  *nullPlan
	err    error
}

func newSchemaCache(maxEntries, maxBytes int) *schemaCache {
	return &schemaCache{maxEntries: maxEntries, maxBytes: maxBytes, byKey: map[[sha256.Size]byte]*list.Element{}}
}

// prepare returns what the facade reads from raw, an upstream's input
// (input) or output schema, read once while it stays in the cache. The
// lock is not held while reading: two rebuilds that miss together both
// read, and the cache keeps one.
func (c *schemaCache) prepare(raw []byte, input bool) *preparedSchema {
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
		c.mu.Unlock()
		return el.Value.(*preparedSchema)
	}
	c.mu.Unlock()

	c.compiles.Add(1)
	p := readSchema(raw, input)
	p.key = key
	// The key's hash is counted too, so that a flood of empty schemas
	// is bounded by bytes as well as by entries.
	p.size = len(raw) + sha256.Size + heldBytes(raw, p.prose)
	if p.mul != nil {
		p.size += heldBytes(raw, p.mul.schema)
	}
	if p.cost != nil {
		p.size += 64 * len(p.cost.nodes) // about what a node holds
	}
	if p.size > c.maxBytes {
		return p // would evict everything else
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		return el.Value.(*preparedSchema) // read meanwhile by another rebuild
	}
	c.byKey[key] = c.lru.PushFront(p)
	c.bytes += p.size
	c.evict()
	return p
}

// readSchema is every pass of the facade over raw, once.
func readSchema(raw []byte, input bool) *preparedSchema {
	// multipleOf is judged by the facade where it can be (multiple.go):
	// jsonschema-go compiles the schema without those divisors.
	compiled, mul := compileMultiples(raw)
	p := &preparedSchema{}
	if p.res, p.err = compileSchema(compiled, input); p.err != nil {
		return p
	}
	p.mul = mul.orNil()
	p.bigExact = numbersExact(compiled, mul != nil && !mul.unjudged)
	p.near = numbersOf(raw)
	p.names = declaredNames(raw)
	p.cost = newCostGraph(compiled)
	if input {
		p.flat = compileFlat(raw)
	} else {
		p.prose = cutSchemaProse(raw)
	}
	return p
}

// heldBytes is what a form of raw adds to the cache: nothing when it is
// raw itself.
func heldBytes(raw, form []byte) int {
	if bytes.Equal(form, raw) {
		return 0
	}
	return len(form)
}

// listedFor returns the input schema p (prepared from raw) cleaned for
// target and cut for listing, made once per target while p stays in the
// cache; its bytes count towards p's.
func (c *schemaCache) listedFor(p *preparedSchema, raw []byte, target Target) *listedSchema {
	c.mu.Lock()
	l := p.listed[target]
	c.mu.Unlock()
	if l != nil {
		return l
	}

	c.cleans.Add(1)
	l = &listedSchema{}
	l.schema, l.nulls, l.err = cleanSchema(raw, target)
	if l.err == nil {
		l.schema = cutSchemaProse(l.schema)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if had := p.listed[target]; had != nil {
		return had // made meanwhile by another rebuild
	}
	el, held := c.byKey[p.key]
	if !held || el.Value.(*preparedSchema) != p {
		return l // evicted, or never held: kept by no one
	}
	if p.listed == nil {
		p.listed = map[Target]*listedSchema{}
	}
	p.listed[target] = l
	n := heldBytes(raw, l.schema)
	p.size += n
	c.bytes += n
	c.lru.MoveToFront(el)
	if p.size > c.maxBytes {
		// Too large to hold with its forms: dropped, as one too large
		// to hold at all.
		c.lru.Remove(el)
		delete(c.byKey, p.key)
		c.bytes -= p.size
	}
	c.evict()
	return l
}

// evict drops the least recently used entries past the bounds. c.mu is
// held.
func (c *schemaCache) evict() {
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		old := c.lru.Remove(c.lru.Back()).(*preparedSchema)
		delete(c.byKey, old.key)
		c.bytes -= old.size
	}
}

// len returns the entries and bytes held.
func (c *schemaCache) len() (entries, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}
