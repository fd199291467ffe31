package gateway

import (
	"encoding/json"
	"fmt"
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

// capResult applies the byte caps to the content blocks of res, in place:
// a text block is cut at a character boundary and ends with a visible
// marker; a binary block (image, audio, embedded blob) or an unknown one
// over its cap is replaced by a text block saying so, since half an image
// is no image. Once the total is reached the remaining blocks are
// dropped. It returns the bytes kept and whether anything was cut, and
// records the cuts in res's _meta.
func capResult(res *mcp.CallToolResult, blockCap, totalCap int) (int, bool) {
	var cuts []cutInfo
	total, dropped := 0, 0
	out := res.Content[:0:0]
	for i, c := range res.Content {
		remaining := totalCap - total
		if remaining <= 0 {
			dropped++
			continue
		}
		limit := min(blockCap, remaining)
		size, kind := blockSize(c)
		if size <= limit {
			out = append(out, c)
			total += size
			continue
		}
		var repl mcp.Content
		kept := 0
		if er, ok := c.(*mcp.EmbeddedResource); ok && (er.Resource == nil || er.Resource.Text == nil) {
			c = nil // a blob: removed below
		}
		switch b := c.(type) {
		case *mcp.TextContent:
			marker := fmt.Sprintf("\n[cut by the gateway: %d of %d bytes shown]", 0, size)
			keep := max(0, limit-len(marker)-8)
			text := cutUTF8(b.Text, keep)
			marker = fmt.Sprintf("\n[cut by the gateway: %d of %d bytes shown]", len(text), size)
			nb := *b
			nb.Text = text + marker
			repl, kept = &nb, len(nb.Text)
		case *mcp.EmbeddedResource:
			{
				marker := fmt.Sprintf("\n[cut by the gateway: %d of %d bytes shown]", 0, size)
				text := cutUTF8(*b.Resource.Text, max(0, limit-len(marker)-8))
				marker = fmt.Sprintf("\n[cut by the gateway: %d of %d bytes shown]", len(text), size)
				r := *b.Resource
				t := text + marker
				r.Text = &t
				nb := *b
				nb.Resource = &r
				repl, kept = &nb, len(t)
			}
		default:
			msg := fmt.Sprintf("[a %s block of %d bytes was removed by the gateway: over the %d-byte cap]", kind, size, limit)
			repl, kept = &mcp.TextContent{Text: msg}, len(msg)
		}
		out = append(out, repl)
		total += kept
		cuts = append(cuts, cutInfo{Index: i, Type: kind, OriginalBytes: size, KeptBytes: kept})
	}
	if len(cuts) == 0 && dropped == 0 {
		return total, false
	}
	if dropped > 0 {
		msg := fmt.Sprintf("[%d more content blocks were dropped by the gateway: the result passed its %d-byte cap]", dropped, totalCap)
		out = append(out, &mcp.TextContent{Text: msg})
		total += len(msg)
	}
	res.Content = out
	if res.Meta == nil {
		res.Meta = mcp.Meta{}
	}
	res.Meta[MetaKey] = map[string]any{"cut": true, "blocks": cuts, "droppedBlocks": dropped, "blockCap": blockCap, "totalCap": totalCap}
	return total, true
}

// blockSize is what a block weighs against the caps: its text or its
// base64 data, or its encoding for other kinds.
func blockSize(c mcp.Content) (int, string) {
	switch b := c.(type) {
	case *mcp.TextContent:
		return len(b.Text), "text"
	case *mcp.ImageContent:
		return len(b.Data), "image"
	case *mcp.AudioContent:
		return len(b.Data), "audio"
	case *mcp.EmbeddedResource:
		if b.Resource != nil {
			switch {
			case b.Resource.Text != nil:
				return len(*b.Resource.Text), "resource"
			case b.Resource.Blob != nil:
				return len(*b.Resource.Blob), "resource"
			}
		}
		return 0, "resource"
	case *mcp.UnknownContent:
		return len(b.Raw), b.Type
	case nil:
		return 0, "null"
	}
	bs, _ := json.Marshal(c)
	return len(bs), fmt.Sprintf("%T", c)
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
