package mcp

import (
	"bytes"
	"hash/maphash"
	"sync/atomic"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// A 2026-07-28 client sends the same _meta (protocol version, client info,
// capabilities) with every request, and the server answers with the same
// _meta (server info) every time; decoding it into maps was a third of a
// small stateless call's allocations on each end. metaMemo remembers the
// decoding of recently seen _meta texts, so that a repeated one costs a
// hash, a comparison and a copy of its maps and slices.
//
// Safety: the remembered decoding is never handed out. Each Meta decoded
// from it is a deep copy of its maps and slices (cloneJSON); only strings,
// json.Numbers, booleans and nil, which nothing can change, are shared. A
// handler that changes its request's Meta, however deeply, changes its
// own copy only.
//
// Bounds: metaMemoSlots entries of at most metaMemoMax bytes each, found
// by comparison with each (a length compares first), replaced in turn, so
// that texts used together (a client's requests, its server's results)
// never push each other out. A text is remembered only when its hash is
// among the last metaMemoSlots hashes of texts not remembered, so that
// _meta that differs on every request (a progress token, a trace id)
// costs a hash and no allocation, and does not push out the texts that
// repeat.
const (
	metaMemoSlots = 8
	metaMemoMax   = 4096
)

type metaMemoEntry struct {
	raw []byte         // the _meta text, a copy
	v   map[string]any // its decoding: never handed out, only copied
}

var metaMemo struct {
	seed  maphash.Seed
	slots [metaMemoSlots]atomic.Pointer[metaMemoEntry]
	next  atomic.Uint32                // the slot to replace next
	seen  [metaMemoSlots]atomic.Uint64 // hashes of texts seen and not remembered
	seenN atomic.Uint32                // the entry of seen to replace next
}

func init() { metaMemo.seed = maphash.MakeSeed() }

// decodeMetaMemo decodes b, a valid JSON value, into a Meta through the
// memo. It reports false where b is not an object or jsonscan cannot
// decode it, for the caller to take the general path.
func decodeMetaMemo(b []byte) (Meta, bool) {
	if len(b) > metaMemoMax {
		return decodeMetaFresh(b)
	}
	for i := range metaMemo.slots {
		if e := metaMemo.slots[i].Load(); e != nil && bytes.Equal(e.raw, b) {
			return cloneJSON(e.v).(map[string]any), true
		}
	}
	h := maphash.Bytes(metaMemo.seed, b)
	seen := false
	for i := range metaMemo.seen {
		seen = seen || metaMemo.seen[i].Load() == h
	}
	if !seen {
		metaMemo.seen[metaMemo.seenN.Add(1)%metaMemoSlots].Store(h)
		return decodeMetaFresh(b)
	}
	// Seen lately: remember it. The remembered decoding is one of
	// its own, not the caller's, which the caller may change.
	m, ok := decodeMetaFresh(b)
	if !ok {
		return nil, false
	}
	pristine, _ := decodeMetaFresh(b)
	slot := metaMemo.next.Add(1) % metaMemoSlots
	metaMemo.slots[slot].Store(&metaMemoEntry{raw: bytes.Clone(b), v: pristine})
	return m, true
}

// decodeMetaFresh decodes b without the memo.
func decodeMetaFresh(b []byte) (Meta, bool) {
	v, ok := jsonscan.DecodeAny(b)
	if !ok {
		return nil, false
	}
	obj, ok := v.(map[string]any)
	return obj, ok
}
