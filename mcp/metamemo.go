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
// Bounds: metaMemoSlots entries of at most metaMemoMax bytes each. A text
// is remembered only the second time in a row that its slot sees it, so
// that _meta that differs on every request (a progress token, a trace id)
// costs a hash and no allocation, and cannot push out the texts that
// repeat more than it must.
const (
	metaMemoSlots = 8
	metaMemoMax   = 4096
)

type metaMemoEntry struct {
	raw []byte         // the _meta text, a copy
	v   map[string]any // its decoding: never handed out, only copied
}

var metaMemo struct {
	seed    maphash.Seed
	slots   [metaMemoSlots]atomic.Pointer[metaMemoEntry]
	pending [metaMemoSlots]atomic.Uint64 // the hash last seen in the slot and not remembered
}

func init() { metaMemo.seed = maphash.MakeSeed() }

// decodeMetaMemo decodes b, a valid JSON value, into a Meta through the
// memo. It reports false where b is not an object or jsonscan cannot
// decode it, for the caller to take the general path.
func decodeMetaMemo(b []byte) (Meta, bool) {
	if len(b) > metaMemoMax {
		return decodeMetaFresh(b)
	}
	h := maphash.Bytes(metaMemo.seed, b)
	slot := h % metaMemoSlots
	if e := metaMemo.slots[slot].Load(); e != nil && bytes.Equal(e.raw, b) {
		return cloneJSON(e.v).(map[string]any), true
	}
	if metaMemo.pending[slot].Swap(h) != h {
		return decodeMetaFresh(b)
	}
	// Seen twice in a row: remember it. The remembered decoding is one of
	// its own, not the caller's, which the caller may change.
	m, ok := decodeMetaFresh(b)
	if !ok {
		return nil, false
	}
	pristine, _ := decodeMetaFresh(b)
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
