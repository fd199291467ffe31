package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// A remote MCP server cannot point the client at plain http on the
// user's own machine: loopback http is for a server that is itself on
// loopback (development), not a way for one on the internet to have the
// client GET and POST (registration, token requests with the client's
// secret) to whatever listens on a local port.
func TestRemoteServerCannotNameLoopbackHTTP(t *testing.T) {
	for _, tc := range []struct {
		name string
		hint func(local string) string // the challenge's resource_metadata
		as   func(local string) string // the metadata's authorization server
	}{
		{"authorization server", func(string) string { return "https://mcp.example/prm" }, func(local string) string { return local }},
		{"resource metadata", func(local string) string { return local + "/prm" }, func(local string) string { return local }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			local := newFake(t) // plays the service on a local port
			local.prm = func(string) map[string]any {
				return map[string]any{"resource": "https://mcp.example/mcp", "authorization_servers": []string{local.url}}
			}
			remote := &fakeNet{hosts: map[string]http.HandlerFunc{
				"mcp.example": func(w http.ResponseWriter, r *http.Request) {
					switch r.URL.Path {
					case "/prm":
						w.Header().Set("Content-Type", "application/json")
						json.NewEncoder(w).Encode(map[string]any{"resource": "https://mcp.example/mcp", "authorization_servers": []string{tc.as(local.url)}})
					default:
						w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+tc.hint(local.url)+`"`)
						w.WriteHeader(http.StatusUnauthorized)
					}
				},
			}}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			tr := &oauth.Transport{Base: remote, Config: &oauth.Config{
				ClientID: "cid", ClientSecret: "s3cret", ClientIssuer: tc.as(local.url), Grant: oauth.ClientCredentials{},
				HTTPClient: &http.Client{Transport: remote},
			}}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://mcp.example/mcp", nil)
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err == nil {
				resp.Body.Close()
				t.Fatal("the flow ran against plain http on loopback for a remote server")
			}
			if remote.saw(local.url) || local.tokens.Load() != 0 {
				t.Fatalf("the client reached %s for a remote server", local.url)
			}
		})
	}
}
