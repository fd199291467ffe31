package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// paramServer has a tool whose string and integer arguments are mirrored
// into Mcp-Param-Region and Mcp-Param-Priority.
func paramServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "params", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	srv.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"priority":{"type":"integer","x-mcp-header":"Priority"},
		"note":{"type":"string"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	return srv
}

func TestParamHeadersChecked(t *testing.T) {
	_, url := serveHTTP(t, paramServer(), nil)
	meta := fmt.Sprintf(`"_meta":{%q:%q,%q:{}}`, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities)
	base := map[string]string{"MCP-Protocol-Version": mcp.Version20260728, "Mcp-Method": "tools/call", "Mcp-Name": "route"}
	cases := []struct {
		name, args string
		headers    map[string]string
		ok         bool
	}{
		{"matching", `{"region":"eu-west","priority":3}`, map[string]string{"Mcp-Param-Region": "eu-west", "Mcp-Param-Priority": "3"}, true},
		{"header name in another case", `{"region":"eu"}`, map[string]string{"mcp-param-region": "eu"}, true},
		{"surrounding space is not the value", `{"region":"eu"}`, map[string]string{"Mcp-Param-Region": "  eu\t"}, true},
		{"base64", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8=?=", "Mcp-Param-Priority": "-"}, true},
		{"base64 of non-ASCII", `{"region":"Zürich"}`, map[string]string{"Mcp-Param-Region": "=?base64?WsO8cmljaA==?="}, true},
		{"prefix only is literal", `{"region":"=?base64?SGVsbG8="}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8="}, true},
		{"no annotated arguments, no headers", `{"note":"x"}`, nil, true},
		{"other arguments in any case", `{"NOTE":"x","note":"y","region":"eu"}`, map[string]string{"Mcp-Param-Region": "eu"}, true},
		{"null argument needs no header", `{"region":null}`, nil, true},

		{"missing", `{"region":"eu"}`, nil, false},
		{"other value", `{"region":"eu"}`, map[string]string{"Mcp-Param-Region": "us"}, false},
		{"case of the value matters", `{"region":"eu"}`, map[string]string{"Mcp-Param-Region": "EU"}, false},
		{"integer differs", `{"priority":3}`, map[string]string{"Mcp-Param-Priority": "4"}, false},
		{"header without argument", `{}`, map[string]string{"Mcp-Param-Region": "eu"}, false},
		{"base64 without padding", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?=", "Mcp-Param-Priority": "-"}, false},
		{"base64 with foreign characters", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?=", "Mcp-Param-Priority": "-"}, false},
		{"base64 of another value", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG9v?="}, false},
		// A tool that folds case (encoding/json) or takes the first of
		// duplicates reads another value than the header carries.
		{"annotated argument twice", `{"region":"eu","region":"us"}`, map[string]string{"Mcp-Param-Region": "us"}, false},
		{"annotated argument in another case", `{"REGION":"us"}`, nil, false},
		{"annotated argument and a case variant", `{"region":"eu","Region":"us"}`, map[string]string{"Mcp-Param-Region": "eu"}, false},
		{"annotated argument with an escaped key", `{"region":"eu","regio\u006e":"us"}`, map[string]string{"Mcp-Param-Region": "us"}, false},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := map[string]string{}
			for k, v := range base {
				hdr[k] = v
			}
			for k, v := range c.headers {
				hdr[k] = v
			}
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"route","arguments":%s,%s}}`, i+1, c.args, meta)
			resp := rawPost(t, url, body, hdr)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if c.ok {
				if resp.StatusCode != http.StatusOK || strings.Contains(string(b), `"error"`) {
					t.Fatalf("refused: %d %s", resp.StatusCode, b)
				}
				return
			}
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `"code":-32020`) {
				t.Fatalf("accepted or refused otherwise: %d %s", resp.StatusCode, b)
			}
		})
	}
}

// Two headers for one argument are refused: which one an intermediary
// routed on is unknown.
func TestParamHeaderRepeated(t *testing.T) {
	_, url := serveHTTP(t, paramServer(), nil)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route","arguments":{"region":"eu"},"_meta":{%q:%q,%q:{}}}}`,
		mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": mcp.Version20260728, "Mcp-Method": "tools/call", "Mcp-Name": "route"} {
		req.Header.Set(k, v)
	}
	req.Header.Add("Mcp-Param-Region", "eu")
	req.Header.Add("Mcp-Param-Region", "us")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

// Our own client's headers pass our own server's check, whatever the
// values.
func TestParamHeadersRoundTrip(t *testing.T) {
	_, url := serveHTTP(t, paramServer(), nil)
	c, _ := dialHTTP(t, url, nil)
	if _, err := c.ListTools(context.Background()); err != nil { // the framer learns the annotations
		t.Fatal(err)
	}
	for _, region := range []string{"eu", " padded ", "Zürich", "=?base64?SGVsbG8=?=", "=?base64?", "tab\there", ""} {
		res, err := c.CallTool(context.Background(), "route", map[string]any{"region": region, "priority": 7})
		if err != nil || res.IsError {
			t.Errorf("%q: %v %v", region, res, err)
		}
	}
}

func FuzzParamHeaderRoundTrip(f *testing.F) {
	for _, s := range []string{"", "eu", " x", "=?base64?SGVsbG8=?=", "Zürich", "a\x00b", "=?base64??="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := mcphttp.EncodeHeaderValue(s)
		got, ok := mcphttp.DecodeParamHeader(enc)
		if !ok || got != s {
			t.Fatalf("%q encodes as %q, which decodes as %q (%v)", s, enc, got, ok)
		}
	})
}

// The name and _meta checked against the headers are the members the
// server decodes: encoding/json matches params' fields ignoring case and
// takes the last, so a case variant cannot show intermediaries one tool
// (or one era) and have another run.
func TestHeadersCheckTheMembersTheServerReads(t *testing.T) {
	srv := paramServer()
	srv.AddTool(&mcp.Tool{Name: "other", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "other ran"}}}, nil
		})
	_, url := serveHTTP(t, srv, nil)
	meta := fmt.Sprintf(`"_meta":{%q:%q,%q:{}}`, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities)
	hdr := map[string]string{"MCP-Protocol-Version": mcp.Version20260728, "Mcp-Method": "tools/call", "Mcp-Name": "route"}
	for i, params := range []string{
		`{"name":"route","NAME":"other","arguments":{},` + meta + `}`,
		`{"name":"route","n\u0061ME":"other","arguments":{},` + meta + `}`,
		`{"name":"route","arguments":{},` + meta + `,"_META":{"` + mcp.MetaProtocolVersion + `":"2099-01-01"}}`,
	} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+1, params)
		resp := rawPost(t, url, body, hdr)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", params, resp.StatusCode, b)
		}
	}
}
