package mcphttp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// A body the handler would read as other than what its headers declare is
// refused with 415. The handler decodes no content coding and reads every
// body as UTF-8, so a body declared gzip, br, or in another charset was
// read as plain UTF-8 JSON, while a proxy or filter in front that honours
// the headers read another message (or none) than the one served.
func TestPostBodyCodingMustBeWhatIsRead(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), nil)
	sid := openSession(t, url)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range []struct {
		hdr  map[string]string
		want int
	}{
		{map[string]string{"Content-Encoding": "gzip"}, http.StatusUnsupportedMediaType},
		{map[string]string{"Content-Encoding": "br"}, http.StatusUnsupportedMediaType},
		{map[string]string{"Content-Encoding": "identity, gzip"}, http.StatusUnsupportedMediaType},
		{map[string]string{"Content-Type": "application/json; charset=utf-16"}, http.StatusUnsupportedMediaType},
		{map[string]string{"Content-Type": "application/json; charset=iso-8859-1"}, http.StatusUnsupportedMediaType},
		{map[string]string{"Content-Encoding": "identity"}, http.StatusOK},
		{map[string]string{"Content-Encoding": "Identity"}, http.StatusOK},
		{map[string]string{"Content-Type": "application/json; charset=UTF-8"}, http.StatusOK},
		{map[string]string{"Content-Type": `application/json;charset="utf-8"`}, http.StatusOK},
		{map[string]string{"Content-Type": "application/json; charset=utf8"}, http.StatusOK},
	} {
		hdr := map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125}
		for k, v := range tc.hdr {
			hdr[k] = v
		}
		resp := rawPost(t, url, ping, hdr)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%v: %s %s, want %d", tc.hdr, resp.Status, body, tc.want)
			continue
		}
		if tc.want == http.StatusUnsupportedMediaType {
			var r rpcReply
			if err := json.Unmarshal(body, &r); err != nil || r.Error == nil || r.Error.Code != mcp.CodeInvalidRequest {
				t.Errorf("%v: body %s, want a -32600 error", tc.hdr, body)
			}
		}
	}
}
