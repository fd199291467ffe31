package mcp

import (
	"encoding/json"
	"testing"
)

func decodeMeta(t *testing.T, s string) Meta {
	t.Helper()
	var m Meta
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A stateless client's info and capabilities are decoded once while they
// stay the same, anew when they change, and a handler that changes its
// request's _meta cannot make a later request match a stale decoding.
func TestStatelessClientMemo(t *testing.T) {
	ss := newServerSession(NewServer(&Implementation{Name: "s", Version: "1"}, nil))
	const withRoots = `{"io.modelcontextprotocol/clientInfo":{"name":"a","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"roots":{}}}`
	const withSampling = `{"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}`

	first := decodeMeta(t, withRoots)
	c := ss.statelessClient(first)
	info, caps := c.info, c.caps
	if info.Name != "a" || caps.Roots == nil || caps.Sampling != nil {
		t.Fatalf("first: %+v %+v", info, caps)
	}
	c = ss.statelessClient(decodeMeta(t, withRoots))
	info, caps = c.info, c.caps
	if info.Name != "a" || caps.Roots == nil {
		t.Fatalf("same again: %+v %+v", info, caps)
	}
	// The first request's handler rewrites its _meta to look like the next.
	first[MetaClientInfo].(map[string]any)["name"] = "b"
	m := first[MetaClientCapabilities].(map[string]any)
	delete(m, "roots")
	m["sampling"] = map[string]any{}
	c = ss.statelessClient(decodeMeta(t, withSampling))
	info, caps = c.info, c.caps
	if info.Name != "b" || caps.Sampling == nil || caps.Roots != nil {
		t.Fatalf("changed: %+v %+v", info, caps)
	}
	c = ss.statelessClient(Meta{})
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
		c := ss.statelessClient(decodeMeta(t, tc.meta))
		info, caps := c.info, c.caps
		if info.Name != tc.name || (caps.Roots != nil) != (tc.name == "a") || (caps.Sampling != nil) != (tc.name == "b") {
			t.Fatalf("request %d: %+v %+v, want client %s", i, info, caps, tc.name)
		}
	}
	// A second session decoding the same client reuses the first's work.
	first := srv.lastClient.Load()
	newServerSession(srv).statelessClient(decodeMeta(t, b))
	if srv.lastClient.Load() != first {
		t.Fatal("the same client info was decoded again in a new session")
	}
}
