package mcphttp

import (
	"bytes"
	"net/http"
	"testing"
	"unicode/utf8"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/mcp"
)

// oldParseRefusal is the refusal parseMessage gave, before it checked the
// body as it split it, on a body that is not one UTF-8 JSON object: the
// checks came first, in this order.
func oldParseRefusal(body []byte) *httpError {
	t := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case !utf8.Valid(body):
		return httpErr(http.StatusBadRequest, mcp.CodeParseError, "parse error: body is not valid UTF-8")
	case !jsonscan.Valid(body):
		return httpErr(http.StatusBadRequest, mcp.CodeParseError, "parse error: body is not valid JSON")
	case len(t) > 0 && t[0] == '[':
		return httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; POST one message per request")
	case len(t) == 0 || t[0] != '{':
		return httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object")
	}
	return nil
}

// FuzzParseMessageOld checks that a body the old checks refused is refused
// exactly as before (status, code, message, no id), and that one they
// passed is not refused by the fused check as malformed.
func FuzzParseMessageOld(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"method":"x"}`, `{"id":1,"method":"x"} x`, `{"id":1,"method":"x",}`, ` [ {"method":"x"} ]`, `[1,]`,
		`"x"`, ``, ` `, "{\"id\":1,\"\xff\":2}", `{"id":1,"method":"x","a":{"b":[1,2}}`, `{"id":1}}`, `{"a\u00":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, e := parseMessage(body)
		want := oldParseRefusal(body)
		if want == nil {
			if e != nil && e.err.Code == mcp.CodeParseError {
				t.Fatalf("%q: refused as %q, which the old checks passed", body, e.err.Message)
			}
			return
		}
		if e == nil || e.status != want.status || e.id != nil || e.err.Code != want.err.Code || e.err.Message != want.err.Message || e.err.Data != nil {
			t.Fatalf("%q: refusal %+v, before %+v", body, e, want)
		}
	})
}
