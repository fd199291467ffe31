package mcphttp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

const (
	initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// openSession initializes a legacy session by hand and returns its id.
func openSession(t *testing.T, url string) string {
	t.Helper()
	resp := rawPost(t, url, initBody, nil)
	defer resp.Body.Close()
	sid := resp.Header.Get(mcphttp.HeaderSessionID)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, sid)
	}
	return sid
}

type rpcReply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// Every refusal has its exact status and JSON-RPC error, under the
// request's id once the body was read, null before.
func TestHTTPRejects(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{MaxBodyBytes: 1024})
	live := openSession(t, url)
	deleted := openSession(t, url)
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set(mcphttp.HeaderSessionID, deleted)
	req.Header.Set(mcphttp.HeaderProtocolVersion, mcp.Version20251125)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	inSession := map[string]string{mcphttp.HeaderSessionID: live, mcphttp.HeaderProtocolVersion: mcp.Version20251125}
	stateless := func(extra map[string]string) map[string]string {
		h := map[string]string{mcphttp.HeaderProtocolVersion: mcp.Version20260728, mcphttp.HeaderMethod: "tools/list"}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	toolsList := `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + meta2026 + `}}`
	toolsCall := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sum","arguments":{},` + meta2026 + `}}`
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`

	cases := []struct {
		name   string
		method string
		body   string
		hdr    map[string]string
		status int
		code   int64
		id     string // the error's id
		inMsg  string // part of the message
	}{
		{"content type text/plain", "POST", ping, map[string]string{"Content-Type": "text/plain"}, 415, mcp.CodeInvalidRequest, "null", "Content-Type"},
		{"content type missing", "POST", ping, map[string]string{"Content-Type": "-"}, 415, mcp.CodeInvalidRequest, "null", "Content-Type"},
		{"accept json only", "POST", ping, map[string]string{"Accept": "application/json"}, 406, mcp.CodeInvalidRequest, "null", "Accept"},
		{"accept missing", "POST", ping, map[string]string{"Accept": "-"}, 406, mcp.CodeInvalidRequest, "null", "Accept"},
		{"accept excluded by q=0", "POST", ping, map[string]string{"Accept": "application/json, text/event-stream;q=0"}, 406, mcp.CodeInvalidRequest, "null", "Accept"},
		{"GET without event-stream", "GET", "", map[string]string{"Accept": "application/json", mcphttp.HeaderSessionID: live, mcphttp.HeaderProtocolVersion: mcp.Version20251125}, 406, mcp.CodeInvalidRequest, "null", "text/event-stream"},
		{"body too large", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`, nil, 413, mcp.CodeInvalidRequest, "null", "1024 bytes"},
		{"foreign Origin", "POST", initBody, map[string]string{"Origin": "http://evil.example.com"}, 403, mcp.CodeInvalidRequest, "null", "Origin"},
		{"null Origin", "POST", initBody, map[string]string{"Origin": "null"}, 403, mcp.CodeInvalidRequest, "null", "Origin"},
		{"foreign Host", "POST", initBody, map[string]string{"Host": "evil.example.com"}, 403, mcp.CodeInvalidRequest, "null", "Host"},
		{"rebound Host with port", "POST", initBody, map[string]string{"Host": "evil.example.com:80"}, 403, mcp.CodeInvalidRequest, "null", "Host"},
		{"unknown session", "POST", ping, map[string]string{mcphttp.HeaderSessionID: "0123", mcphttp.HeaderProtocolVersion: mcp.Version20251125}, 404, mcp.CodeInvalidRequest, "7", "session not found"},
		{"deleted session", "POST", ping, map[string]string{mcphttp.HeaderSessionID: deleted, mcphttp.HeaderProtocolVersion: mcp.Version20251125}, 404, mcp.CodeInvalidRequest, "7", "session not found"},
		{"GET of deleted session", "GET", "", map[string]string{"Accept": "text/event-stream", mcphttp.HeaderSessionID: deleted, mcphttp.HeaderProtocolVersion: mcp.Version20251125}, 404, mcp.CodeInvalidRequest, "null", "session not found"},
		{"DELETE of deleted session", "DELETE", "", map[string]string{mcphttp.HeaderSessionID: deleted, mcphttp.HeaderProtocolVersion: mcp.Version20251125}, 404, mcp.CodeInvalidRequest, "null", "session not found"},
		{"no session", "POST", ping, nil, 400, mcp.CodeInvalidRequest, "7", mcphttp.HeaderSessionID},
		{"malformed JSON", "POST", `{"jsonrpc":"2.0","id":1,`, nil, 400, mcp.CodeParseError, "null", "parse error"},
		{"invalid UTF-8", "POST", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", nil, 400, mcp.CodeParseError, "null", "UTF-8"},
		{"empty body", "POST", "", nil, 400, mcp.CodeParseError, "null", "parse error"},
		{"not an object", "POST", `"hello"`, nil, 400, mcp.CodeInvalidRequest, "null", "JSON object"},
		{"batch", "POST", `[` + ping + `,` + ping + `]`, inSession, 400, mcp.CodeInvalidRequest, "null", "batches"},
		{"null id", "POST", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, inSession, 400, mcp.CodeInvalidRequest, "null", "id"},
		{"legacy version header missing", "POST", ping, map[string]string{mcphttp.HeaderSessionID: live}, 400, mcp.CodeHeaderMismatch, "7", "missing"},
		{"legacy version header differs from session", "POST", ping, map[string]string{mcphttp.HeaderSessionID: live, mcphttp.HeaderProtocolVersion: mcp.Version20250618}, 400, mcp.CodeHeaderMismatch, "7", "does not match the session"},
		{"unsupported version header", "POST", ping, map[string]string{mcphttp.HeaderProtocolVersion: "2099-01-01"}, 400, mcp.CodeUnsupportedProtocolVersion, "7", "Unsupported"},
		{"malformed version header", "POST", ping, map[string]string{mcphttp.HeaderSessionID: live, mcphttp.HeaderProtocolVersion: "invalid-protocol-version"}, 400, mcp.CodeUnsupportedProtocolVersion, "7", "Unsupported"},
		{"version header legacy, body 2026", "POST", toolsList, map[string]string{mcphttp.HeaderProtocolVersion: mcp.Version20251125, mcphttp.HeaderMethod: "tools/list"}, 400, mcp.CodeHeaderMismatch, "7", "_meta protocol version"},
		{"version header missing, body 2026", "POST", toolsList, map[string]string{mcphttp.HeaderMethod: "tools/list"}, 400, mcp.CodeHeaderMismatch, "7", "missing " + mcphttp.HeaderProtocolVersion},
		{"version header 2026, body legacy", "POST", strings.Replace(toolsList, "2026-07-28", "2025-11-25", 1), stateless(nil), 400, mcp.CodeHeaderMismatch, "7", "_meta protocol version"},
		{"Mcp-Method differs", "POST", toolsList, stateless(map[string]string{mcphttp.HeaderMethod: "prompts/list"}), 400, mcp.CodeHeaderMismatch, "7", mcphttp.HeaderMethod},
		{"Mcp-Method case differs", "POST", toolsList, stateless(map[string]string{mcphttp.HeaderMethod: "TOOLS/LIST"}), 400, mcp.CodeHeaderMismatch, "7", mcphttp.HeaderMethod},
		{"Mcp-Method missing", "POST", toolsList, stateless(map[string]string{mcphttp.HeaderMethod: "-"}), 400, mcp.CodeHeaderMismatch, "7", "missing " + mcphttp.HeaderMethod},
		{"Mcp-Name differs", "POST", toolsCall, stateless(map[string]string{mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: "wrong_tool"}), 400, mcp.CodeHeaderMismatch, "7", mcphttp.HeaderName},
		{"Mcp-Name missing", "POST", toolsCall, stateless(map[string]string{mcphttp.HeaderMethod: "tools/call"}), 400, mcp.CodeHeaderMismatch, "7", "missing " + mcphttp.HeaderName},
		{"_meta missing", "POST", `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{}}`, stateless(map[string]string{mcphttp.HeaderMethod: "server/discover"}), 400, mcp.CodeInvalidParams, "7", "_meta"},
		{"stateless initialize", "POST", strings.Replace(initBody, `"id":1`, `"id":7`, 1), stateless(map[string]string{mcphttp.HeaderMethod: "initialize"}), 404, mcp.CodeMethodNotFound, "7", "server/discover"},
		{"stateless unknown method", "POST", `{"jsonrpc":"2.0","id":7,"method":"no/such","params":{` + meta2026 + `}}`, stateless(map[string]string{mcphttp.HeaderMethod: "no/such"}), 404, mcp.CodeMethodNotFound, "7", "no/such"},
		{"stateless ping", "POST", `{"jsonrpc":"2.0","id":7,"method":"ping","params":{` + meta2026 + `}}`, stateless(map[string]string{mcphttp.HeaderMethod: "ping"}), 404, mcp.CodeMethodNotFound, "7", "ping"},
		{"stateless GET", "GET", "", map[string]string{"Accept": "text/event-stream", mcphttp.HeaderProtocolVersion: mcp.Version20260728}, 405, mcp.CodeInvalidRequest, "null", "no GET stream"},
		{"PUT", "PUT", ping, nil, 405, mcp.CodeInvalidRequest, "null", "not allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var resp *http.Response
			if tc.method == "POST" {
				resp = rawPost(t, url, tc.body, tc.hdr)
			} else {
				req, _ := http.NewRequest(tc.method, url, strings.NewReader(tc.body))
				for k, v := range tc.hdr {
					req.Header.Set(k, v)
				}
				var err error
				if resp, err = http.DefaultClient.Do(req); err != nil {
					t.Fatal(err)
				}
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var got rpcReply
			if err := json.Unmarshal(body, &got); err != nil || got.Error == nil {
				t.Fatalf("%s: body %q is not a JSON-RPC error (%v)", resp.Status, body, err)
			}
			if resp.StatusCode != tc.status || got.Error.Code != tc.code || string(got.ID) != tc.id || !strings.Contains(got.Error.Message, tc.inMsg) {
				t.Fatalf("got %d, code %d, id %s, %q; want %d, code %d, id %s, message with %q",
					resp.StatusCode, got.Error.Code, got.ID, got.Error.Message, tc.status, tc.code, tc.id, tc.inMsg)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q", ct)
			}
		})
	}
}

// The unsupported-version error tells the client what the server speaks.
func TestHTTPUnsupportedVersionData(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), nil)
	resp := rawPost(t, url, `{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		map[string]string{mcphttp.HeaderProtocolVersion: "2099-01-01", mcphttp.HeaderMethod: "tools/list"})
	defer resp.Body.Close()
	var got rpcReply
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.Error == nil {
		t.Fatal(err)
	}
	var data mcp.UnsupportedVersionData
	if err := json.Unmarshal(got.Error.Data, &data); err != nil || data.Requested != "2099-01-01" || len(data.Supported) == 0 || resp.StatusCode != 400 || string(got.ID) != `"a"` {
		t.Fatalf("%s %s: %+v %v", resp.Status, got.Error.Data, data, err)
	}
}

// What is accepted: header names in any case, values with surrounding
// white space, a stray session id on a stateless request, notifications
// (202 with no body), loopback Origins, allowlisted Hosts.
func TestHTTPAccepts(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), nil)
	toolsCall := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sum","arguments":{"a":1,"b":2},` + meta2026 + `}}`
	cases := []struct {
		name   string
		body   string
		hdr    map[string]string
		status int
	}{
		{"lower-case header names", toolsCall, map[string]string{"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "sum", "Accept": "application/json, text/event-stream"}, 200},
		{"white space around values", toolsCall, map[string]string{mcphttp.HeaderProtocolVersion: "2026-07-28", mcphttp.HeaderMethod: " tools/call ", mcphttp.HeaderName: "  sum  ", "Accept": "application/json, text/event-stream"}, 200},
		{"base64 name", toolsCall, map[string]string{mcphttp.HeaderProtocolVersion: "2026-07-28", mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: "=?base64?c3Vt?=", "Accept": "application/json, text/event-stream"}, 200},
		{"stray session id", toolsCall, map[string]string{mcphttp.HeaderProtocolVersion: "2026-07-28", mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: "sum", mcphttp.HeaderSessionID: "whatever"}, 200},
		{"wildcard Accept", toolsCall, map[string]string{mcphttp.HeaderProtocolVersion: "2026-07-28", mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: "sum", "Accept": "*/*"}, 200},
		{"loopback Origin", initBody, map[string]string{"Origin": "http://localhost:5173"}, 200},
		{"localhost Host", initBody, map[string]string{"Host": "localhost:1234"}, 200},
		{"IPv6 loopback Host", initBody, map[string]string{"Host": "[::1]:1234"}, 200},
		{"stateless notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`, map[string]string{mcphttp.HeaderProtocolVersion: "2026-07-28", mcphttp.HeaderMethod: "notifications/cancelled"}, 202},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPost(t, url, tc.body, tc.hdr)
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || strings.Contains(string(body), `"error"`) {
				t.Fatalf("%s: %s", resp.Status, body)
			}
			if tc.status == 202 && len(body) != 0 {
				t.Fatalf("202 with a body: %q", body)
			}
		})
	}
}

// Allowlists replace the loopback defaults.
func TestHTTPAllowlists(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{AllowedHosts: []string{"mcp.example.com", "127.0.0.1"}, AllowedOrigins: []string{"https://app.example.com"}})
	for _, tc := range []struct {
		hdr    map[string]string
		status int
	}{
		{map[string]string{"Host": "mcp.example.com:8443", "Origin": "https://app.example.com"}, 200},
		{map[string]string{"Host": "mcp.example.com", "Origin": "http://localhost"}, 403},
		{map[string]string{"Host": "localhost"}, 403},
	} {
		resp := rawPost(t, url, initBody, tc.hdr)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%v: %s, want %d", tc.hdr, resp.Status, tc.status)
		}
	}
}
