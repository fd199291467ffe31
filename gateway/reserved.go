package gateway

import (
	"maps"
	"strings"

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
