package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// A pre-registered client tied to one authorization server
// (Config.ClientIssuer) keeps its secret, and its workload assertion, from
// any other: a hostile MCP server whose metadata names an authorization
// server of its own gets no token request at all, whatever the grant.
func TestPreRegisteredClientStaysWithItsIssuer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grant oauth.Grant
	}{
		{"client credentials", oauth.ClientCredentials{}},
		{"jwt bearer", oauth.JWTBearer{Assertion: func(context.Context) (string, error) { return "workload-jwt", nil }}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.mcp = func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+f.url+`/prm"`)
				w.WriteHeader(http.StatusUnauthorized)
			}
			tok := f.tokens.Load()
			_, err := f.get(t, &oauth.Config{
				ClientID: "cid", ClientSecret: "s3cret", ClientIssuer: "https://as.example",
				Grant: tc.grant,
			})
			if !errors.Is(err, oauth.ErrNoClient) {
				t.Errorf("err = %v, want ErrNoClient", err)
			}
			if f.tokens.Load() != tok {
				t.Fatal("the client's credentials were posted to an authorization server other than Config.ClientIssuer")
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Fatal("the error names the secret")
			}
		})
	}
}
