package gateway

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/winbridge/winbridge/mcp"
)

// MetaKey is the _meta member in which the facade says what it cut from a
// result.
const MetaKey = "io.winbridge/gateway"

// cutInfo describes one content block the caps changed.
type cutInfo struct {
	Index         int    `json:"index"`
	Type          string `json:"type"`
	OriginalBytes int    `json:"originalBytes"`
	KeptBytes     int    `json:"keptBytes"`
}

// capResult applies the byte caps to the content blocks of res
// (capBlocks) and to its top-level _meta (boundMeta), and records the
// cuts in _meta. res is not changed (it may be an in-process tool's own
// value): a result with cuts is a copy. It returns the result, the bytes
// kept and whether anything was cut.
func capResult(res *mcp.CallToolResult, blockCap, totalCap int) (*mcp.CallToolResult, int, bool) {
	out, total, meta := capBlocks(res.Content, blockCap, totalCap)
	keptMeta, meta := boundMeta(res.Meta, blockCap, totalCap, meta)
	if meta == nil {
		return res, total, false
	}
	cp := *res
	cp.Content = out
	cp.Meta = withCutMeta(keptMeta, meta)
	return &cp, total, true
}

// boundMeta bounds an upstream's top-level _meta of a result: it reaches
// the client with the result, and an upstream chooses all of it. One
// whose encoding passes blockCap is removed whole (cutting inside it
// would leave members that say something else), and cut, the account of
// capBlocks (made when nil), says how many bytes with
// "removedMetaBytes". It returns the _meta to keep and the account (nil
// when nothing was cut).
func boundMeta(m mcp.Meta, blockCap, totalCap int, cut map[string]any) (mcp.Meta, map[string]any) {
	if len(m) == 0 {
		return m, cut
	}
	b, _ := json.Marshal(m)
	if len(b) <= blockCap {
		return m, cut
	}
	if cut == nil {
		cut = map[string]any{"cut": true, "blocks": []cutInfo{}, "droppedBlocks": 0, "blockCap": blockCap, "totalCap": totalCap}
	}
	cut["removedMetaBytes"] = len(b)
	return nil, cut
}

// withCutMeta returns a copy of m with the facade's account of a cut.
func withCutMeta(m mcp.Meta, cut map[string]any) mcp.Meta {
	m = maps.Clone(m)
	if m == nil {
		m = mcp.Meta{}
	}
	m[MetaKey] = cut
	return m
}

// A result keeps at most max(minMaxBlocks, totalCap/blockWeight) content
// blocks; the rest are dropped with a note, as past the total.
const (
	blockWeight  = 64
	minMaxBlocks = 16
)

// capBlocks applies the byte caps to blocks: a text block is cut at a
// character boundary and ends with a visible marker; a binary block
// (image, audio, embedded blob) or an unknown one over its cap is
// replaced by a text block saying so, since half an image is no image.
// Once the total is reached the remaining blocks are dropped, and a final
// text block says how many. It returns the blocks (blocks itself when
// nothing was cut), the bytes kept, and the _meta account of the cuts
// (nil when nothing was cut). blocks is not modified.
func capBlocks(blocks []mcp.Content, blockCap, totalCap int) ([]mcp.Content, int, map[string]any) {
	var cuts []cutInfo
	total, dropped := 0, 0
	var out []mcp.Content // allocated at the first cut
	// A block costs its encoding even when its payload is empty: a
	// million empty blocks weigh nothing against the byte caps, so their
	// number is bounded too.
	maxBlocks := max(minMaxBlocks, totalCap/blockWeight)
	for i, c := range blocks {
		remaining := totalCap - total
		if remaining <= 0 || i >= maxBlocks {
			if out == nil {
				out = slices.Clone(blocks[:i])
			}
			dropped++
			continue
		}
		limit := min(blockCap, remaining)
		size, kind := blockSize(c)
		if size <= limit {
			if out != nil {
				out = append(out, c)
			}
			total += size
			continue
		}
		if out == nil {
			out = slices.Clone(blocks[:i])
		}
		repl, kept := cutBlock(c, size, kind, limit)
		out = append(out, repl)
		total += kept
		cuts = append(cuts, cutInfo{Index: i, Type: kind, OriginalBytes: size, KeptBytes: kept})
	}
	if out == nil {
		return blocks, total, nil
	}
	if dropped > 0 {
		msg := droppedNote(dropped, totalCap, maxBlocks)
		out = append(out, &mcp.TextContent{Text: msg})
		total += len(msg)
	}
	return out, total, map[string]any{"cut": true, "blocks": cuts, "droppedBlocks": dropped, "blockCap": blockCap, "totalCap": totalCap}
}

func droppedNote(dropped, totalCap, maxBlocks int) string {
	return fmt.Sprintf("[%d more content blocks were dropped by the gateway: the result passed its %d-byte or %d-block cap]", dropped, totalCap, maxBlocks)
}

// cutBlock returns c cut to limit bytes, and the bytes it keeps.
func cutBlock(c mcp.Content, size int, kind string, limit int) (mcp.Content, int) {
	if er, ok := c.(*mcp.EmbeddedResource); ok && (er.Resource == nil || er.Resource.Text == nil) {
		c = nil // a blob: removed below
	}
	// What the block carries besides its text stays as it is: the text
	// is cut to what is left, and if nothing useful is left (a megabyte
	// of uri or _meta around a short text) the block is removed.
	extra := blockExtra(c)
	if extra > limit/2 {
		c = nil
	}
	switch b := c.(type) {
	case *mcp.TextContent:
		nb := *b
		nb.Text = cutText(b.Text, len(b.Text), limit-extra)
		return &nb, len(nb.Text) + extra
	case *mcp.EmbeddedResource:
		r := *b.Resource
		t := cutText(*b.Resource.Text, len(*b.Resource.Text), limit-extra)
		r.Text = &t
		nb := *b
		nb.Resource = &r
		return &nb, len(t) + extra
	}
	msg := removedNote(kind, size, limit)
	return &mcp.TextContent{Text: msg}, len(msg)
}

// cutText cuts s (of size bytes) to at most limit bytes, marker included,
// at a character boundary, and appends the visible marker.
func cutText(s string, size, limit int) string {
	marker := fmt.Sprintf("\n[cut by the gateway: %d of %d bytes shown]", 0, size)
	text := cutUTF8(s, max(0, limit-len(marker)-8))
	return text + fmt.Sprintf("\n[cut by the gateway: %d of %d bytes shown]", len(text), size)
}

func removedNote(kind string, size, limit int) string {
	return fmt.Sprintf("[a %s block of %d bytes was removed by the gateway: over the %d-byte cap]", kind, size, limit)
}

// blockSize is what a block weighs against the caps: its text or its
// base64 data and what it carries besides (blockExtra), or its encoding
// for other kinds.
func blockSize(c mcp.Content) (int, string) {
	extra := blockExtra(c)
	switch b := c.(type) {
	case *mcp.TextContent:
		return len(b.Text) + extra, "text"
	case *mcp.ImageContent:
		return len(b.Data) + extra, "image"
	case *mcp.AudioContent:
		return len(b.Data) + extra, "audio"
	case *mcp.EmbeddedResource:
		if b.Resource != nil {
			switch {
			case b.Resource.Text != nil:
				return len(*b.Resource.Text) + extra, "resource"
			case b.Resource.Blob != nil:
				return len(*b.Resource.Blob) + extra, "resource"
			}
		}
		return extra, "resource"
	case *mcp.UnknownContent:
		return len(b.Raw), b.Type
	case nil:
		return 0, "null"
	}
	bs, _ := json.Marshal(c)
	return len(bs), fmt.Sprintf("%T", c)
}

// blockExtra weighs what a text, image, audio or embedded resource block
// carries besides its payload: a mime type, a resource's uri, annotations
// and _meta. An upstream chooses all of it, and all of it reaches the
// client, so the caps count it. It allocates only for a block that has
// annotations or _meta.
func blockExtra(c mcp.Content) int {
	n := 0
	add := func(v any) {
		b, _ := json.Marshal(v)
		n += len(b)
	}
	var a *mcp.Annotations
	var m mcp.Meta
	switch b := c.(type) {
	case *mcp.TextContent:
		a, m = b.Annotations, b.Meta
	case *mcp.ImageContent:
		a, m = b.Annotations, b.Meta
		n += len(b.MIMEType)
	case *mcp.AudioContent:
		a, m = b.Annotations, b.Meta
		n += len(b.MIMEType)
	case *mcp.EmbeddedResource:
		a, m = b.Annotations, b.Meta
		if r := b.Resource; r != nil {
			n += len(r.URI) + len(r.MIMEType)
			if r.Meta != nil {
				add(r.Meta)
			}
		}
	}
	if a != nil {
		add(a)
	}
	if m != nil {
		add(m)
	}
	return n
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
