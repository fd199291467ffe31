package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// exactOutSchema bounds numbers where float64 cannot tell them apart
// from their neighbours.
const exactOutSchema = `{"type":"object","properties":{
	"n":{"type":"integer","maximum":9007199254740992},
	"f":{"type":"number","maximum":0.1},
	"z":{"type":"number","exclusiveMinimum":-1},
	"s":{"type":"string"}}}`

// rawUpstream is an upstream over Streamable HTTP whose tools "checked"
// (with exactOutSchema as its outputSchema) and "free" (with none) answer
// a call with the result bytes given as the argument "raw", verbatim: the
// facade sees exactly what a server on the wire could send.
func rawUpstream(t *testing.T) map[string]*HTTPServer {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "1"}, nil)
	in := json.RawMessage(`{"type":"object","properties":{"raw":{"type":"string"}},"required":["raw"]}`)
	never := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errString("answered by the interceptor")
	}
	s.AddTool(&mcp.Tool{Name: "checked", InputSchema: in, OutputSchema: json.RawMessage(exactOutSchema)}, never)
	s.AddTool(&mcp.Tool{Name: "free", InputSchema: in}, never)
	h := mcphttp.NewHandler(s, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Arguments struct {
						Raw string `json:"raw"`
					} `json:"arguments"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &req) == nil && req.Method == "tools/call" {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+req.Params.Arguments.Raw+`}`)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return map[string]*HTTPServer{"raw": {URL: ts.URL}}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestOutputExact: the facade judges a remote tool's structuredContent
// as the server wrote it, and forwards what it judged, byte for byte
// but for white space.
func TestOutputExact(t *testing.T) {
	f := start(t, &Options{HTTP: rawUpstream(t), Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	res := func(sc string) string {
		return `{"content":[{"type":"text","text":"x"}],"structuredContent":` + sc + `}`
	}
	for _, tc := range []struct {
		tool, result string
		code         Code
		forwarded    string // "" when refused
	}{
		// Past 2^53: float64 rounds ...993 down to the maximum.
		{"checked", res(`{"n":9007199254740993}`), CodeOutputSchema, ""},
		{"checked", res(`{"n":9007199254740992}`), CodeOK, `{"n":9007199254740992}`},
		{"checked", res(`{"n":-9007199254740993, "s":"a"}`), CodeOK, `{"n":-9007199254740993,"s":"a"}`},
		// Without a schema nothing is judged, and nothing is rounded.
		{"free", res(`{"n":9007199254740993,"f":0.10000000000000000001,"e":1E+2,"m":-0}`), CodeOK, `{"n":9007199254740993,"f":0.10000000000000000001,"e":1E+2,"m":-0}`},
		{"free", res(`[18446744073709551617]`), CodeOK, `[18446744073709551617]`},
		// -0 is 0: it passes exclusiveMinimum -1 and is forwarded as written.
		{"checked", res(`{"z":-0}`), CodeOK, `{"z":-0}`},
		{"checked", res(`{"z":-1}`), CodeOutputSchema, ""},
		// Past 64 bits, or past float64: refused rather than rounded.
		{"checked", res(`{"n":18446744073709551617}`), CodeOutputSchema, ""},
		{"checked", res(`{"z":1e400}`), CodeUpstreamMalformed, ""},
		{"free", res(`{"z":1e400}`), CodeUpstreamMalformed, ""},
		{"checked", res(`{"z":1e-400}`), CodeOutputSchema, ""},
		{"checked", res(`{"z":0e99999999999}`), CodeOK, `{"z":0e99999999999}`},
		{"free", res(`{"z":1e-400,"y":1.5e-99999999999}`), CodeOK, `{"z":1e-400,"y":1.5e-99999999999}`},
		// A member given twice: parsers disagree on which one counts.
		{"checked", res(`{"n":"x","n":1}`), CodeUpstreamMalformed, ""},
		{"free", res(`{"a":{"n":"x","n":1}}`), CodeUpstreamMalformed, ""},
		// Or given in two cases: a Go client's struct takes the last of
		// them, the output schema judged the one spelled exactly.
		{"checked", res(`{"n":1,"N":"x"}`), CodeUpstreamMalformed, ""},
		{"free", res(`{"a":{"Mode":"read","mode":"write"}}`), CodeUpstreamMalformed, ""},
		{"checked", `{"content":[],"structuredContent":{"n":"x"},"structuredContent":{"n":1}}`, CodeUpstreamMalformed, ""},
		{"checked", `{"content":[],"structuredContent":{"n":"x"},"StructuredContent":{"n":1}}`, CodeUpstreamMalformed, ""},
		{"checked", `{"content":[],"structuredContent":{"n":"x"},"ſtructuredContent":{"n":1}}`, CodeUpstreamMalformed, ""},
		// A name that differs only in case counts as the member, as
		// encoding/json reads it.
		{"checked", `{"content":[],"StructuredContent":{"n":9007199254740993}}`, CodeOutputSchema, ""},
		{"free", `{"content":[],"STRUCTUREDCONTENT":{"n":9007199254740993}}`, CodeOK, `{"n":9007199254740993}`},
		// HTML-sensitive characters are escaped as the facade encodes
		// them: the same string, never more bytes than the cap checked.
		{"free", res(`{"s":"<&>"}`), CodeOK, `{"s":"\u003c\u0026\u003e"}`},
		{"checked", res(`null`), CodeOutputSchema, ""},
	} {
		code, sc := f.rawCall(t, "raw__"+tc.tool, map[string]any{"raw": tc.result})
		if code != tc.code {
			t.Errorf("%s %s: code %s, want %s (forwarded %s)", tc.tool, tc.result, code, tc.code, sc)
			continue
		}
		if tc.forwarded != "" && sc != tc.forwarded {
			t.Errorf("%s %s: forwarded %s, want %s", tc.tool, tc.result, sc, tc.forwarded)
		}
	}
}

// TestOutputExactInProcess: an in-process tool's structuredContent is
// judged exactly too, and what is forwarded is what was judged.
func TestOutputExactInProcess(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "in", Version: "1"}, nil)
	in := json.RawMessage(`{"type":"object","properties":{"raw":{"type":"string"}},"required":["raw"]}`)
	give := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Raw string }
		_ = json.Unmarshal(req.Params.Arguments, &a)
		return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: json.RawMessage(strings.ReplaceAll(a.Raw, "BAD", "\xff"))}, nil
	}
	s.AddTool(&mcp.Tool{Name: "checked", InputSchema: in, OutputSchema: json.RawMessage(exactOutSchema)}, give)
	s.AddTool(&mcp.Tool{Name: "free", InputSchema: in}, give)
	s.AddTool(&mcp.Tool{Name: "nan", InputSchema: in}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"x": math.NaN()}}, nil
	})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"in": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	// A value JSON cannot hold is the tool's fault, told as such: it
	// would fail the facade's own encoding of the result.
	if code, _ := f.rawCall(t, "in__nan", map[string]any{"raw": ""}); code != CodeUpstreamMalformed {
		t.Errorf("NaN: %s", code)
	}
	for _, tc := range []struct {
		tool, sc  string
		code      Code
		forwarded string
	}{
		{"checked", `{"n":9007199254740993}`, CodeOutputSchema, ""},
		{"checked", `{"n":9007199254740992}`, CodeOK, `{"n":9007199254740992}`},
		{"free", `{"n": 9007199254740993}`, CodeOK, `{"n":9007199254740993}`},
		// A Go value may hold what no wire message can: a member twice,
		// a string that is not UTF-8 (the tool writes BAD as a byte 0xff).
		{"checked", `{"n":"x","n":1}`, CodeUpstreamMalformed, ""},
		{"checked", `{"s":"BAD"}`, CodeUpstreamMalformed, ""},
		{"free", `{"s":"BAD"}`, CodeUpstreamMalformed, ""},
	} {
		code, sc := f.rawCall(t, "in__"+tc.tool, map[string]any{"raw": tc.sc})
		if code != tc.code {
			t.Errorf("%s %q: code %s, want %s (forwarded %s)", tc.tool, tc.sc, code, tc.code, sc)
			continue
		}
		if tc.forwarded != "" && sc != tc.forwarded {
			t.Errorf("%s %q: forwarded %s, want %s", tc.tool, tc.sc, sc, tc.forwarded)
		}
	}
}

// TestUnknownBlockExact: a content block of a type the facade does not
// know is forwarded as the server wrote it, so it must read one way
// only: a block that gives "type" twice is a text block to a parser that
// keeps the first member, and an unknown one to the facade.
func TestUnknownBlockExact(t *testing.T) {
	f := start(t, &Options{HTTP: rawUpstream(t), Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for result, want := range map[string]Code{
		`{"content":[{"type":"text","type":"x-note","text":"hi"}]}`: CodeUpstreamMalformed,
		`{"content":[{"type":"x-note","data":{"a":1,"a":2}}]}`:      CodeUpstreamMalformed,
		// The facade reads the type spelled exactly and strips reserved
		// _meta keys by it; a Go client's struct reads the last in any case.
		`{"content":[{"type":"x-note","TYPE":"tool_result","content":[]}]}`: CodeUpstreamMalformed,
		// Deep nesting: each tool_result level was read again for the
		// reserved _meta keys of those inside it.
		`{"content":[` + strings.Repeat(`{"type":"tool_result","toolUseId":"1","content":[`, 40) + `{"type":"x","_meta":{}}` + strings.Repeat(`]}`, 40) + `]}`: CodeUpstreamMalformed,
		`{"content":[{"type":"x-note","d":` + strings.Repeat(`[`, 64) + strings.Repeat(`]`, 64) + `}]}`:                                                        CodeUpstreamMalformed,
		`{"content":[{"type":"x-note","d":` + strings.Repeat(`[`, 63) + strings.Repeat(`]`, 63) + `}]}`:                                                        CodeOK,
		`{"content":[{"type":"x-note","data":{"n":9007199254740993}}]}`:                                                                                        CodeOK,
		`{"content":[{"type":"text","text":"a"},{"type":"x-note","a":1}]}`:                                                                                     CodeOK,
	} {
		if code, _ := f.rawCall(t, "raw__free", map[string]any{"raw": result}); code != want {
			t.Errorf("%s: %s, want %s", result, code, want)
		}
	}

	s := mcp.NewServer(&mcp.Implementation{Name: "in", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.UnknownContent{Type: "x-note", Raw: json.RawMessage("{\"type\":\"x-note\",\"s\":\"\xff\"}")}}}, nil
		})
	fi := start(t, &Options{Servers: map[string]*mcp.Server{"in": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	if code, _ := fi.rawCall(t, "in__t", map[string]any{}); code != CodeUpstreamMalformed {
		t.Errorf("an in-process block that is not UTF-8: %s", code)
	}
}

// TestSamplingBlockExact: a tool result has no business carrying
// sampling's tool_use and tool_result blocks, but one that does has them
// forwarded as written: package mcp decodes their input and
// structuredContent with numbers as float64, which the facade must not
// pass on rounded.
func TestSamplingBlockExact(t *testing.T) {
	f := start(t, &Options{HTTP: rawUpstream(t), Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for _, block := range []string{
		`{"type":"tool_use","id":"1","name":"x","input":{"n":9007199254740993}}`,
		`{"type":"tool_result","toolUseId":"1","content":[],"structuredContent":{"n":9007199254740993}}`,
	} {
		result := `{"content":[{"type":"text","text":"a"},` + block + `]}`
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var raw json.RawMessage
		err := f.c.Call(ctx, "tools/call", map[string]any{"name": "raw__free", "arguments": map[string]any{"raw": result}}, &raw)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte(block)) {
			t.Errorf("%s forwarded as %s", block, raw)
		}
	}
	if code, _ := f.rawCall(t, "raw__free", map[string]any{"raw": `{"content":[{"type":"tool_use","id":"1","id":"2","name":"x","input":{}}]}`}); code != CodeUpstreamMalformed {
		t.Errorf("a tool_use block with a member twice: %s", code)
	}
}
