package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// --url reads at most 1 MiB of response headers, as mcphttp's own client
// does: over http.DefaultTransport (10 MiB) a server padding its headers
// made each response, and an SSE response lasts as long as its call, hold
// ten times that. Headers of ordinary size pass.
func TestRemoteBoundsResponseHeaders(t *testing.T) {
	for _, c := range []struct {
		name  string
		bytes int
		ok    bool
	}{{"32 KiB", 32 << 10, true}, {"2 MiB", 2 << 20, false}} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var msg struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				body, _ := io.ReadAll(r.Body)
				if r.Method != http.MethodPost || json.Unmarshal(body, &msg) != nil {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				if msg.ID == nil {
					w.WriteHeader(http.StatusAccepted)
					return
				}
				pad := strings.Repeat("p", 1000)
				for i := range c.bytes / 1024 {
					w.Header().Set("X-Pad-"+strconv.Itoa(i), pad)
				}
				w.Header().Set("Content-Type", "application/json")
				reply := `"error":{"code":-32601,"message":"no"}`
				switch msg.Method {
				case "initialize":
					reply = `"result":{"protocolVersion":"` + mcp.LatestLegacyVersion + `","capabilities":{"tools":{}},"serverInfo":{"name":"padded","version":"1"}}`
				case "tools/list":
					reply = `"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`
				}
				io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,`+reply+`}`)
			}))
			defer srv.Close()
			store := filepath.Join(t.TempDir(), "tokens.json")
			code, out, errs := mcpc(t, "--timeout", "30s", "--url", srv.URL, "--store", store, "tools")
			if c.ok && (code != exitOK || !strings.Contains(out, `"t"`)) {
				t.Errorf("headers of %s: status %d, %s %s", c.name, code, out, errs)
			}
			if !c.ok && (code != exitFailure || !strings.Contains(errs, "header")) {
				t.Errorf("headers of %s: status %d, stderr %q; want a failure naming the headers", c.name, code, errs)
			}
		})
	}
}
