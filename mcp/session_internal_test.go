package mcp

import (
	"strings"
	"testing"
)

// protoOf splits the _meta text s as decodeRequest does; the raw entries
// alias a copy of s, which protoOf returns too.
func protoOf(t *testing.T, s string) (*protoMeta, []byte) {
	t.Helper()
	b := []byte(s)
	var pm protoMeta
	var rest Meta
	if err := splitMeta(b, &pm, &rest); err != nil {
		t.Fatal(err)
	}
	return &pm, b
}

// A stateless client's info and capabilities are decoded once while they
// stay the same, anew when they change, and a request whose params are
// overwritten after it ran cannot make a later request match a stale
// decoding: the memo keeps copies.
func TestStatelessClientMemo(t *testing.T) {
	ss := newServerSession(NewServer(&Implementation{Name: "s", Version: "1"}, nil))
	const withRoots = `{"io.modelcontextprotocol/clientInfo":{"name":"a","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"roots":{}}}`
	const withSampling = `{"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}`

	first, firstText := protoOf(t, withRoots)
	c := ss.statelessClient(first)
	info, caps := c.info, c.caps
	if info.Name != "a" || caps.Roots == nil || caps.Sampling != nil {
		t.Fatalf("first: %+v %+v", info, caps)
	}
	c = ss.statelessClient(must(protoOf(t, withRoots)))
	info, caps = c.info, c.caps
	if info.Name != "a" || caps.Roots == nil {
		t.Fatalf("same again: %+v %+v", info, caps)
	}
	// The first request's buffer is reused for another client's text.
	copy(firstText, strings.Replace(withRoots, `"name":"a"`, `"name":"z"`, 1))
	if c := ss.statelessClient(first); c.info.Name != "z" || c.caps.Roots == nil {
		t.Fatalf("rewritten: %+v %+v", c.info, c.caps)
	}
	c = ss.statelessClient(must(protoOf(t, withSampling)))
	info, caps = c.info, c.caps
	if info.Name != "b" || caps.Sampling == nil || caps.Roots != nil {
		t.Fatalf("changed: %+v %+v", info, caps)
	}
	c = ss.statelessClient(&protoMeta{})
	info, caps = c.info, c.caps
	if info.Name != "" || caps.Sampling != nil {
		t.Fatalf("absent: %+v %+v", info, caps)
	}
}

// Sessions of one request each (stateless HTTP) share the server's last
// decoding, and each still gets what its own request says: another
// client's info never answers for it, whichever session decoded last.
func TestStatelessClientMemoAcrossSessions(t *testing.T) {
	srv := NewServer(&Implementation{Name: "s", Version: "1"}, nil)
	const a = `{"io.modelcontextprotocol/clientInfo":{"name":"a","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"roots":{}}}`
	const b = `{"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}`
	for i, tc := range []struct {
		meta string
		name string
	}{{a, "a"}, {a, "a"}, {b, "b"}, {a, "a"}, {b, "b"}, {b, "b"}} {
		ss := newServerSession(srv)
		c := ss.statelessClient(must(protoOf(t, tc.meta)))
		info, caps := c.info, c.caps
		if info.Name != tc.name || (caps.Roots != nil) != (tc.name == "a") || (caps.Sampling != nil) != (tc.name == "b") {
			t.Fatalf("request %d: %+v %+v, want client %s", i, info, caps, tc.name)
		}
	}
	// A second session decoding the same client reuses the first's work.
	first := srv.lastClient.Load()
	newServerSession(srv).statelessClient(must(protoOf(t, b)))
	if srv.lastClient.Load() != first {
		t.Fatal("the same client info was decoded again in a new session")
	}
}

func must(pm *protoMeta, _ []byte) *protoMeta { return pm }
