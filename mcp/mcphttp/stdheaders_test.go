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

// postHeaders POSTs body with the transport's media types and hdr, whose
// values are each added (so a name given twice is sent twice), and returns
// the status and the JSON-RPC error code of the answer (0 if none).
func postHeaders(t *testing.T, url, body string, hdr [][2]string) (int, int64) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, kv := range hdr {
		req.Header.Add(kv[0], kv[1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var got rpcReply
	if resp.Header.Get("Content-Type") == "application/json" {
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %q is not JSON: %v", resp.Status, b, err)
		}
	}
	if got.Error == nil {
		return resp.StatusCode, 0
	}
	return resp.StatusCode, got.Error.Code
}

// A stateless request's standard headers are what intermediaries (and
// RequireAuth's ScopesFor) act on, and the server checks them against the
// body. A header sent twice has no one value: a proxy that takes the last,
// or joins them ("sum, ask"), sees another call than the server checked
// and runs. So repeats are refused, as they are for Mcp-Param-*.
func TestStatelessStandardHeaderRepeated(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"a":1,"b":2},` + meta2026 + `}}`
	std := [][2]string{
		{mcphttp.HeaderProtocolVersion, mcp.Version20260728},
		{mcphttp.HeaderMethod, "tools/call"},
		{mcphttp.HeaderName, "sum"},
	}
	if status, code := postHeaders(t, url, body, std); status != http.StatusOK || code != 0 {
		t.Fatalf("plain request: %d, code %d", status, code)
	}
	for _, second := range [][2]string{
		{mcphttp.HeaderName, "ask"},
		{"mcp-name", "ask"}, // the same header in another case
		{mcphttp.HeaderName, "sum"},
		{mcphttp.HeaderMethod, "tools/list"},
		{mcphttp.HeaderProtocolVersion, mcp.Version20251125},
	} {
		t.Run(second[0]+"="+second[1], func(t *testing.T) {
			status, code := postHeaders(t, url, body, append(std[:3:3], second))
			if status != http.StatusBadRequest || code != mcp.CodeHeaderMismatch {
				t.Fatalf("got %d, code %d; want 400, code %d", status, code, mcp.CodeHeaderMismatch)
			}
		})
	}
}

// Mcp-Name and Mcp-Method carry values HTTP cannot hold as
// =?base64?...?=, decoded as Mcp-Param-* values are: strict, padded
// Base64. A wrapper a strict decoder refuses (so an intermediary reads
// the header as something else, or not at all) while a lenient one
// decodes it to the body's name does not pass for that name.
func TestStatelessNameHeaderStrictBase64(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), nil)
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{},` + meta2026 + `}}`
	}
	hdr := func(name string) [][2]string {
		return [][2]string{
			{mcphttp.HeaderProtocolVersion, mcp.Version20260728},
			{mcphttp.HeaderMethod, "tools/call"},
			{mcphttp.HeaderName, name},
		}
	}
	// What the client sends passes: "su" is "c3U=" in Base64.
	if status, code := postHeaders(t, url, call("su"), hdr("=?base64?c3U=?=")); code == mcp.CodeHeaderMismatch {
		t.Fatalf("canonical Base64 refused: %d, code %d", status, code)
	}
	for _, c := range []struct{ name, header string }{
		{"su", "=?base64?c3V=?="},            // non-zero padding bits: "su" to a lenient decoder
		{"su", "=?base64?c3U?="},             // no padding
		{"=?base64?***?=", "=?base64?***?="}, // not Base64 at all, taken as it is
	} {
		t.Run(c.header, func(t *testing.T) {
			status, code := postHeaders(t, url, call(c.name), hdr(c.header))
			if status != http.StatusBadRequest || code != mcp.CodeHeaderMismatch {
				t.Fatalf("got %d, code %d; want 400, code %d", status, code, mcp.CodeHeaderMismatch)
			}
		})
	}
}
