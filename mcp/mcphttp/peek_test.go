package mcphttp

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// parseMessageJSON is parseMessage as it was with encoding/json: the
// reference the jsonscan walk must agree with.
func parseMessageJSON(body []byte) (*rpcMessage, *httpError) {
	bad := func(code int64, msg string) (*rpcMessage, *httpError) {
		return nil, httpErr(http.StatusBadRequest, code, msg)
	}
	t := strings.TrimLeft(string(body), " \t\r\n")
	switch {
	case !utf8.Valid(body):
		return bad(mcp.CodeParseError, "parse error: body is not valid UTF-8")
	case !json.Valid(body):
		return bad(mcp.CodeParseError, "parse error: body is not valid JSON")
	case strings.HasPrefix(t, "["):
		return bad(mcp.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; POST one message per request")
	case !strings.HasPrefix(t, "{"):
		return bad(mcp.CodeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return bad(mcp.CodeParseError, "parse error: "+err.Error())
	}
	m := &rpcMessage{raw: body}
	if raw, ok := top["id"]; ok {
		id, err := transport.ParseID(raw)
		if err != nil {
			return bad(mcp.CodeInvalidRequest, "invalid request: id must be a string or an integer")
		}
		m.id = id
	}
	rawMethod, hasMethod := top["method"]
	_, hasResult := top["result"]
	_, hasError := top["error"]
	switch {
	case hasMethod:
		if json.Unmarshal(rawMethod, &m.method) != nil {
			return nil, httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest, `invalid request: member "method" must be a string`).withID(m)
		}
	case hasResult || hasError:
		if m.id.IsZero() {
			return bad(mcp.CodeInvalidRequest, "invalid request: a response needs an id")
		}
		m.response = true
	default:
		return nil, httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest, `invalid request: a message needs "method" or "result"/"error"`).withID(m)
	}
	if p, ok := top["params"]; ok && len(p) > 0 && p[0] == '{' {
		var params, meta map[string]json.RawMessage
		_ = json.Unmarshal(p, &params)
		m.params = objectOf(params)
		if mt, ok := params["_meta"]; ok && len(mt) > 0 && mt[0] == '{' {
			_ = json.Unmarshal(mt, &meta)
			m.meta = objectOf(meta)
		}
	}
	return m, nil
}

func statusOfJSON(resp []byte) int {
	var m struct {
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(resp, &m) != nil || m.Error == nil {
		return http.StatusOK
	}
	return statusOfCode(m.Error.Code)
}

var parseSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	`{"jsonrpc":"2.0","id":"x","result":{}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"m"}}`,
	`{"id":1,"method":null}`,
	`{"id":1,"method":5}`,
	`{"id":1.5,"method":"a"}`,
	`{"id":1,"id":2,"method":"a","method":"b","params":{"name":"x","name":"y","_meta":{"k":1,"k":2}}}`,
	`{"\u0069d":3,"meth\u006fd":"ping","params":{"\u005fmeta":{"a":"\ud800"}}}`,
	`{"ID":1,"Method":"x"}`,
	` [{"id":1}]`,
	`"str"`,
	`{"id":1,"method":"a","params":[1]}`,
	`{"id":1,"method":"a","params":{"_meta":null}}`,
	"{\"method\":\"a\xff\"}",
	`{"error":{"code":-32602}}`,
	`{"error":{"code":1e2}}`,
	`{"error":{"code":-0}}`,
	`{"error":null}`,
	`{"error":{"code":"-32601"}}`,
	`{"error":{"code":-32601,"code":1}}`,
}

// FuzzParseMessageStatus checks that parseMessage and statusOf, which walk the
// body with jsonscan, read every input as encoding/json read it.
func FuzzParseMessageStatus(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, gerr := parseMessage(body)
		want, werr := parseMessageJSON(body)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%q: error %v, encoding/json %v", body, gerr, werr)
		}
		if gerr != nil {
			if gerr.status != werr.status || gerr.err.Code != werr.err.Code || gerr.err.Message != werr.err.Message || string(gerr.id) != string(werr.id) {
				t.Fatalf("%q: error %+v, encoding/json %+v", body, gerr, werr)
			}
		} else {
			if got.id.Key() != want.id.Key() || got.method != want.method || got.response != want.response {
				t.Fatalf("%q: %+v, encoding/json %+v", body, got, want)
			}
			if !maps.EqualFunc(got.params.asMap(), want.params.asMap(), rawEqual) || !maps.EqualFunc(got.meta.asMap(), want.meta.asMap(), rawEqual) {
				t.Fatalf("%q: params %q meta %q, encoding/json %q %q", body, got.params, got.meta, want.params, want.meta)
			}
			for _, k := range []string{mcp.MetaProtocolVersion, "a", "k"} {
				gs, gok := got.metaString(k)
				var ws string
				raw, wok := want.meta.get(k)
				wok = wok && json.Unmarshal(raw, &ws) == nil
				if gs != ws || gok != wok {
					t.Fatalf("%q: metaString(%q) = %q %v, encoding/json %q %v", body, k, gs, gok, ws, wok)
				}
			}
		}
		// encoding/json matched struct fields without regard to case;
		// JSON-RPC's member names are exact, and the server writes them.
		exact := func(s string) bool {
			return strings.Count(strings.ToLower(string(body)), s) == strings.Count(string(body), s)
		}
		if !exact(`"error"`) || !exact(`"code"`) {
			return
		}
		if g, w := statusOf(body), statusOfJSON(body); g != w {
			t.Fatalf("%q: statusOf %d, encoding/json %d", body, g, w)
		}
	})
}

func rawEqual(a, b json.RawMessage) bool { return string(a) == string(b) }

// FuzzPeekOut checks that the client's walk of its outgoing messages reads
// what encoding/json read of them (peekOutSlow), for valid JSON with
// member names in their exact case: encoding/json also matched "Method"
// and "ID", which JSON-RPC does not.
func FuzzPeekOut(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"method":"notifications/cancelled","params":{"requestId":"r"}}`))
	f.Add([]byte(`{"id":2,"method":"resources/read","params":{"uri":"file:///\u00e9","_meta":{"io.modelcontextprotocol/protocolVersion":5}}}`))
	f.Add([]byte(`{"id":2,"method":"tasks/get","params":{"taskId":null}}`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		s := string(msg)
		if !json.Valid(msg) || strings.ToLower(s) != s || strings.ContainsRune(s, 'ſ') || strings.ContainsRune(s, 'K') {
			return
		}
		got, want := peekOut(msg), peekOutSlow(msg)
		if got.id.Key() != want.id.Key() || got.method != want.method || got.response != want.response ||
			got.version != want.version || got.name != want.name || got.hasName != want.hasName ||
			string(got.requestID) != string(want.requestID) {
			t.Fatalf("%q:\n got %+v\nwant %+v", msg, got, want)
		}
		var ga, wa map[string]json.RawMessage
		_ = json.Unmarshal(got.rawArgs, &ga)
		_ = json.Unmarshal(want.rawArgs, &wa)
		if !maps.EqualFunc(ga, wa, rawEqual) {
			t.Fatalf("%q: arguments %q, encoding/json %q", msg, ga, wa)
		}
		e := peekIn(msg)
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		if json.Unmarshal(msg, &env) == nil && (e.hasMethod != (env.Method != nil) || string(e.id) != string(env.ID)) {
			t.Fatalf("%q: peekIn %+v, encoding/json %+v", msg, e, env)
		}
	})
}

// Splitting a stateless tool call's body allocates the message, its method
// and its id: the members live in the message, and their keys alias the body.
func TestParseMessageAllocs(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{` +
		`"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{},` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}`)
	if got := testing.AllocsPerRun(100, func() { _, _ = parseMessage(body) }); got > 3 {
		t.Fatalf("parseMessage: %v allocations, want the message, its method and its id only", got)
	}
	m, _ := parseMessage(body)
	if m.method != "tools/call" || len(m.params) != 3 || len(m.meta) != 5 {
		t.Fatalf("parseMessage: %+v", m)
	}
}

// directResponse is what the transport hands over for the request
// {"jsonrpc":"2.0","id":id,"method":"m"} answered with result, or with an
// error of code when result is nil, as ServeDirect hands it to mcphttp.
func directResponse(t testing.TB, id, result []byte, code int64) []byte {
	t.Helper()
	frame := append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"method":"m"}`...)
	var resp []byte
	r, ok := transport.DirectRequest(frame, func(b []byte) { resp = b })
	if !ok {
		t.Fatalf("%s: not taken", frame)
	}
	if r != nil {
		var c *transport.Conn // a direct request's answers never touch it
		if result != nil {
			_ = c.Reply(context.Background(), r, json.RawMessage(result))
		} else {
			_ = c.ReplyError(context.Background(), r, &transport.Error{Code: code, Message: "m"})
		}
	}
	return resp
}

// TestStatusOfDirect checks the shortcut for results against statusOf, on
// what the transport writes for results and errors under ids of each kind.
func TestStatusOfDirect(t *testing.T) {
	ids := []string{`1`, `-0`, `1e3`, `"x"`, `"a\"b,\"result\":"`, `"\u00e9"`, `null`}
	results := []string{`{}`, `{"error":{"code":-32601}}`, `"error"`, `[{"code":-32601}]`, `null`, `{"content":[{"type":"text","text":"hi"}]}`}
	for _, id := range ids {
		for _, res := range results {
			resp := directResponse(t, []byte(id), []byte(res), 0)
			// 1e3 and null are not ids: the transport answers those itself.
			result := id != `1e3` && id != `null`
			if g, w := statusOfDirect(resp), statusOf(resp); g != w || result && g != http.StatusOK {
				t.Errorf("%s: statusOfDirect %d, statusOf %d", resp, g, w)
			}
		}
		for _, code := range []int64{mcp.CodeMethodNotFound, mcp.CodeInvalidParams, mcp.CodeInternalError, 1} {
			resp := directResponse(t, []byte(id), nil, code)
			if g, w := statusOfDirect(resp), statusOf(resp); g != w {
				t.Errorf("%s: statusOfDirect %d, statusOf %d", resp, g, w)
			}
		}
	}
}

// FuzzStatusOfDirect checks statusOfDirect against encoding/json's reading
// (statusOfJSON) for whatever the transport answers a request with: a
// result, an error, or its own error for a malformed request.
func FuzzStatusOfDirect(f *testing.F) {
	f.Add([]byte(`1`), []byte(`{}`), int64(0), true)
	f.Add([]byte(`"x"`), []byte(`{"error":{"code":-32601}}`), int64(0), true)
	f.Add([]byte(`"a\",\"result\":{}}`), []byte(`1`), int64(-32601), false)
	f.Add([]byte(`{}`), []byte(`2`), int64(-32602), false)
	f.Fuzz(func(t *testing.T, id, result []byte, code int64, ok bool) {
		if !json.Valid(result) || !utf8.Valid(id) {
			return
		}
		if !ok {
			result = nil
		}
		resp := directResponse(t, id, result, code)
		if resp == nil {
			return
		}
		if g, w := statusOfDirect(resp), statusOfJSON(resp); g != w {
			t.Fatalf("%s: statusOfDirect %d, encoding/json %d", resp, g, w)
		}
	})
}

func BenchmarkStatusOfDirect(b *testing.B) {
	resp := directResponse(b, []byte(`7`), []byte(`{"content":[{"type":"text","text":"hello world"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"winbridge-bench","version":"1.0.0"}}}`), 0)
	b.Run("statusOf", func(b *testing.B) {
		for b.Loop() {
			if statusOf(resp) != http.StatusOK {
				b.Fatal("not 200")
			}
		}
	})
	b.Run("statusOfDirect", func(b *testing.B) {
		for b.Loop() {
			if statusOfDirect(resp) != http.StatusOK {
				b.Fatal("not 200")
			}
		}
	})
}
