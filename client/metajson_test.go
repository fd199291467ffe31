package client

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// A stateless tool call without a progress token or _meta of the caller's
// sends the _meta encoded once per client, byte for byte what encoding the
// map of addMeta sent; with either, the map path runs as before, also for
// a toolCall that went the encoded way first (callWithInput reuses it).
func TestStatelessMetaSplice(t *testing.T) {
	for _, tc := range []struct {
		info  mcp.Implementation
		level mcp.LoggingLevel
		caps  mcp.ClientCapabilities
	}{
		{info: mcp.Implementation{Name: "c", Version: "1"}},
		{info: mcp.Implementation{Name: "a <b> & \"c\"\u2028é", Version: "1", Title: "t"}, level: mcp.LevelDebug},
		{info: mcp.Implementation{Name: "c", Version: "1"}, caps: mcp.ClientCapabilities{Roots: &mcp.RootsCapability{ListChanged: true}}},
	} {
		c := &Client{info: tc.info, stateless: true, version: mcp.Version20260728}
		c.opts.LogLevel = tc.level
		c.opts.Capabilities = tc.caps
		c.metaInfo, _ = json.Marshal(c.info)
		c.metaCaps, _ = json.Marshal(c.opts.statelessCapabilities())
		c.metaJSON = c.statelessMeta()

		// What the map path sends, the reference.
		want := func(meta mcp.Meta, token string) []byte {
			t.Helper()
			ref := newToolCall("echo", map[string]any{"x": 1})
			ref.Meta = meta
			if ref.Meta == nil {
				ref.Meta = mcp.Meta{}
			}
			c.addMeta(ref.Meta, token)
			b, err := ref.encode()
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		call := newToolCall("echo", map[string]any{"x": 1})
		got, err := c.withMeta(call, "")
		if err != nil {
			t.Fatal(err)
		}
		if w := want(nil, ""); !bytes.Equal(got, w) {
			t.Fatalf("encoded once:\n got %s\nwant %s", got, w)
		}
		if call.Meta != nil {
			t.Fatalf("the encoded path changed the call's Meta: %v", call.Meta)
		}
		// The same toolCall again, with a progress token.
		got, err = c.withMeta(call, "p1")
		if err != nil {
			t.Fatal(err)
		}
		if w := want(nil, "p1"); !bytes.Equal(got, w) {
			t.Fatalf("with a token:\n got %s\nwant %s", got, w)
		}
		// The caller's own _meta.
		user := newToolCall("echo", map[string]any{"x": 1})
		user.Meta = mcp.Meta{"trace": "t1"}
		got, err = c.withMeta(user, "")
		if err != nil {
			t.Fatal(err)
		}
		if w := want(mcp.Meta{"trace": "t1"}, ""); !bytes.Equal(got, w) {
			t.Fatalf("with the caller's _meta:\n got %s\nwant %s", got, w)
		}
	}
}

// The encoded path's allocations are fewer than the map's.
func TestStatelessMetaSpliceAllocs(t *testing.T) {
	c := &Client{info: mcp.Implementation{Name: "c", Version: "1"}, stateless: true, version: mcp.Version20260728}
	c.opts.Capabilities = mcp.ClientCapabilities{}
	c.metaInfo, _ = json.Marshal(c.info)
	c.metaCaps, _ = json.Marshal(c.opts.statelessCapabilities())
	c.metaJSON = c.statelessMeta()
	args := map[string]any{"x": 1}
	spliced := testing.AllocsPerRun(100, func() { c.withMeta(newToolCall("echo", args), "") })
	c.metaJSON = nil
	mapped := testing.AllocsPerRun(100, func() { c.withMeta(newToolCall("echo", args), "") })
	if spliced >= mapped {
		t.Fatalf("encoded once: %v allocations; through the map: %v", spliced, mapped)
	}
	t.Logf("encoded once: %v allocations; through the map: %v", spliced, mapped)
}
