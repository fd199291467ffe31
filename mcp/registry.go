package mcp

import (
	"encoding/base64"
	"slices"
	"sort"
	"sync"

	"github.com/winbridge/winbridge/transport"
)

// registry holds named items in name order: lists are deterministic, and a
// cursor (the last name of a page) stays valid while items come and go.
type registry[T any] struct {
	mu    sync.RWMutex
	items map[string]T
	names []string // sorted
}

// add registers v under name, replacing an item of the same name.
func (r *registry[T]) add(name string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.items == nil {
		r.items = map[string]T{}
	}
	if _, ok := r.items[name]; !ok {
		i, _ := slices.BinarySearch(r.names, name)
		r.names = slices.Insert(r.names, i, name)
	}
	r.items[name] = v
}

// remove deletes the named items, reporting whether any existed.
func (r *registry[T]) remove(names ...string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	removed := false
	for _, n := range names {
		if _, ok := r.items[n]; ok {
			delete(r.items, n)
			i, _ := slices.BinarySearch(r.names, n)
			r.names = slices.Delete(r.names, i, i+1)
			removed = true
		}
	}
	return removed
}

func (r *registry[T]) get(name string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.items[name]
	return v, ok
}

func (r *registry[T]) len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.names)
}

// all returns every item in name order.
func (r *registry[T]) all() []T {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]T, len(r.names))
	for i, n := range r.names {
		out[i] = r.items[n]
	}
	return out
}

// page returns up to size items after cursor, and the cursor of the next
// page ("" when this is the last).
func (r *registry[T]) page(cursor string, size int) ([]T, string, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	start := 0
	if cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return nil, "", invalidParams("invalid cursor", nil)
		}
		start = sort.SearchStrings(r.names, string(after))
		if start < len(r.names) && r.names[start] == string(after) {
			start++
		}
	}
	end := min(start+size, len(r.names))
	out := make([]T, 0, end-start)
	for _, n := range r.names[start:end] {
		out = append(out, r.items[n])
	}
	next := ""
	if end < len(r.names) {
		next = base64.RawURLEncoding.EncodeToString([]byte(r.names[end-1]))
	}
	return out, next, nil
}

// listPage answers one page of a list request: it decodes the cursor,
// checks the era, and shapes each item for the request's revision.
func listPage[T, Item any](ss *ServerSession, r *transport.Request, reg *registry[T], shape func(T, string) Item) ([]Item, string, *callInfo, error) {
	var p PaginatedParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, "", nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, "", nil, err
	}
	items, next, err := reg.page(p.Cursor, ss.srv.opts.PageSize)
	if err != nil {
		return nil, "", nil, err
	}
	out := make([]Item, len(items))
	for i, it := range items {
		out[i] = shape(it, ci.version)
	}
	return out, next, ci, nil
}

// finishCacheable stamps a cacheable result: the cache hint in
// 2026-07-28, and what every result of the era carries.
func (ss *ServerSession) finishCacheable(ci *callInfo, hint *CacheHint, env *ResultEnvelope) {
	if ci.stateless {
		*hint = ss.srv.cacheHint()
	}
	ss.finish(ci, env)
}
