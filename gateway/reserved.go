package gateway

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/mcp"
)

// Some _meta keys are not data but say what a message is: the task it
// belongs to (io.modelcontextprotocol/related-task), the server that
// answers (io.modelcontextprotocol/serverInfo), the request that progress
// is about (progressToken), the facade's own account (io.winbridge/...).
// On the downstream hop those are the facade's to write. An upstream that
// wrote them into a result, or into a question it asks through the
// facade, would have the host file its question under another task or
// take its result for another server's. The protocol reserves every
// prefix with a label "modelcontextprotocol" or "mcp"; the facade removes
// all of them, and its own, from what an upstream sends on, and keeps
// the rest.

// reservedMetaKey reports whether an upstream may not write k. Labels are
// compared without case: a host that folds case must not read a key the
// facade let through as its own.
func reservedMetaKey(k string) bool {
	prefix, _, prefixed := strings.Cut(k, "/")
	if !prefixed {
		return strings.EqualFold(strings.TrimSpace(k), "progressToken")
	}
	prefix = strings.ToLower(prefix)
	if strings.TrimSpace(prefix) == "io.winbridge" {
		return true
	}
	for label := range strings.SplitSeq(prefix, ".") {
		switch strings.TrimSpace(label) {
		case "modelcontextprotocol", "mcp":
			return true
		}
	}
	return false
}

// upstreamMeta returns m without the keys an upstream may not write, and
// whether any was removed. m itself is never changed: it may be an
// in-process tool's own value, handed to every call.
func upstreamMeta(m mcp.Meta) (mcp.Meta, bool) {
	removed := false
	for k := range m {
		if reservedMetaKey(k) {
			removed = true
			break
		}
	}
	if !removed {
		return m, false
	}
	out := maps.Clone(m)
	maps.DeleteFunc(out, func(k string, _ any) bool { return reservedMetaKey(k) })
	if len(out) == 0 {
		out = nil
	}
	return out, true
}

// The protocol lets _meta appear below the top level too: on every
// content block, on an embedded resource's contents, on the blocks of a
// sampling tool_result, on the contents of resources/read, and on listed
// resources, templates and prompts. A host reads a key there as surely
// (a related-task on a block, the facade's own account on a resource),
// so the keys are removed there as well. The walks copy only what they
// change, and cost no allocation when no block carries _meta: they run
// on every tool result.

// upstreamBlocks returns blocks with the reserved keys removed from each
// block's _meta and below (upstreamBlock), and whether any was removed.
// blocks itself is not changed: it may be an in-process tool's own.
func upstreamBlocks(blocks []mcp.Content) ([]mcp.Content, bool) {
	var out []mcp.Content
	for i, b := range blocks {
		nb, changed := upstreamBlock(b)
		if !changed {
			continue
		}
		if out == nil {
			out = slices.Clone(blocks)
		}
		out[i] = nb
	}
	if out == nil {
		return blocks, false
	}
	return out, true
}

// upstreamBlock returns c, or a copy of it without the reserved keys in
// its _meta, in its resource's, and in its blocks' (a tool_result's).
func upstreamBlock(c mcp.Content) (mcp.Content, bool) {
	switch b := c.(type) {
	case *mcp.TextContent:
		if m, ok := upstreamMeta(b.Meta); ok {
			cp := *b
			cp.Meta = m
			return &cp, true
		}
	case *mcp.ImageContent:
		if m, ok := upstreamMeta(b.Meta); ok {
			cp := *b
			cp.Meta = m
			return &cp, true
		}
	case *mcp.AudioContent:
		if m, ok := upstreamMeta(b.Meta); ok {
			cp := *b
			cp.Meta = m
			return &cp, true
		}
	case *mcp.ResourceLink:
		if m, ok := upstreamMeta(b.Meta); ok {
			cp := *b
			cp.Meta = m
			return &cp, true
		}
	case *mcp.EmbeddedResource:
		m, ok := upstreamMeta(b.Meta)
		r, rok := upstreamContents(b.Resource)
		if ok || rok {
			cp := *b
			cp.Meta, cp.Resource = m, r
			return &cp, true
		}
	case *mcp.ToolUseContent:
		if m, ok := upstreamMeta(b.Meta); ok {
			cp := *b
			cp.Meta = m
			return &cp, true
		}
	case *mcp.ToolResultContent:
		m, ok := upstreamMeta(b.Meta)
		blocks, bok := upstreamBlocks(b.Content)
		if ok || bok {
			cp := *b
			cp.Meta, cp.Content = m, blocks
			return &cp, true
		}
	case *mcp.UnknownContent:
		if raw, ok := upstreamRawBlock(b.Raw); ok {
			return &mcp.UnknownContent{Type: b.Type, Raw: raw}, true
		}
	}
	return c, false
}

// upstreamContents returns rc, or a copy without the reserved keys in its
// _meta.
func upstreamContents(rc *mcp.ResourceContents) (*mcp.ResourceContents, bool) {
	if rc == nil {
		return nil, false
	}
	m, ok := upstreamMeta(rc.Meta)
	if !ok {
		return rc, false
	}
	cp := *rc
	cp.Meta = m
	return &cp, true
}

var metaName = []byte("_meta")

// mayHoldMeta reports whether raw can have a member that decodes as
// "_meta": it holds those bytes, in any case (encoding/json matches
// member names without case), or an escape, which may spell them.
func mayHoldMeta(raw []byte) bool {
	for i := 0; i+len(metaName) <= len(raw); i++ {
		switch raw[i] {
		case '\\':
			return true
		case '_':
			if bytes.EqualFold(raw[i:i+len(metaName)], metaName) {
				return true
			}
		}
	}
	return false
}

// upstreamRawBlock returns raw, a content block the facade forwards as
// received (valid JSON: checkRawBlocks), with the reserved keys removed
// from its _meta members (any member whose name is "_meta" without case),
// from its resource's (an embedded resource) and from its content blocks'
// (a tool_result). Everything else keeps its bytes; a changed _meta is
// written anew. It reports whether anything was removed.
func upstreamRawBlock(raw []byte) ([]byte, bool) {
	if !mayHoldMeta(raw) {
		return raw, false
	}
	typ, _ := jsonscan.Member(raw, "type")
	name, _ := jsonscan.Unquote(typ)
	return editMembers(raw, func(k, v []byte) ([]byte, bool) {
		switch {
		case bytes.EqualFold(k, metaName):
			return upstreamRawMeta(v)
		case name == "tool_result" && bytes.EqualFold(k, contentName):
			return editElements(v, upstreamRawBlock)
		case name == "resource" && bytes.EqualFold(k, resourceName):
			return editMembers(v, func(k, v []byte) ([]byte, bool) {
				if bytes.EqualFold(k, metaName) {
					return upstreamRawMeta(v)
				}
				return nil, false
			})
		}
		return nil, false
	})
}

// upstreamRawMeta returns the object v without its reserved members, or
// false when it has none (or is not an object).
func upstreamRawMeta(v []byte) ([]byte, bool) {
	reserved := false
	_ = jsonscan.MembersBytes(v, func(k, _ []byte) bool {
		reserved = reservedMetaKey(string(k))
		return !reserved
	})
	if !reserved {
		return v, false
	}
	out := []byte{'{'}
	_ = jsonscan.MembersBytes(v, func(k, mv []byte) bool {
		if reservedMetaKey(string(k)) {
			return true
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		name, _ := json.Marshal(string(k))
		out = append(append(append(out, name...), ':'), mv...)
		return true
	})
	return append(out, '}'), true
}

// rawEdit replaces n bytes at at.
type rawEdit struct {
	at, n int
	with  []byte
}

// splice returns a copy of raw with the edits, which are in order and do
// not overlap, applied.
func splice(raw []byte, edits []rawEdit) []byte {
	out := make([]byte, 0, len(raw))
	last := 0
	for _, e := range edits {
		out = append(append(out, raw[last:e.at]...), e.with...)
		last = e.at + e.n
	}
	return append(out, raw[last:]...)
}

// offsetIn is where sub, which jsonscan returned as a part of raw,
// starts in raw.
func offsetIn(raw, sub []byte) int { return cap(raw) - cap(sub) }
