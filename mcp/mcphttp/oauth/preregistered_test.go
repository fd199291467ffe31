package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
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

// A client with credentials (a secret, a key, an assertion grant) that
// does not name its authorization server is refused before anything is
// sent, the MCP request included: whichever server the resource's
// metadata named would otherwise receive them. A public client ID alone
// (nothing to steal) needs no issuer.
func TestClientWithCredentialsMustNameItsIssuer(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	assertion := func(context.Context) (string, error) { return "workload-jwt", nil }
	for _, tc := range []struct {
		name string
		cfg  oauth.Config
	}{
		{"secret", oauth.Config{ClientID: "cid", ClientSecret: "s3cret"}},
		{"secret, client credentials", oauth.Config{ClientID: "cid", ClientSecret: "s3cret", Grant: oauth.ClientCredentials{}}},
		{"private key", oauth.Config{ClientID: "cid", PrivateKey: key, Grant: oauth.ClientCredentials{}}},
		{"jwt bearer", oauth.Config{ClientID: "cid", Grant: oauth.JWTBearer{Assertion: assertion}}},
		{"enterprise managed", oauth.Config{ClientID: "cid", Grant: oauth.EnterpriseManaged{IDPTokenEndpoint: "https://idp.example/token", IDToken: assertion}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Check(); !errors.Is(err, oauth.ErrClientIssuerRequired) {
				t.Errorf("Check = %v, want ErrClientIssuerRequired", err)
			}
			f := newFake(t)
			var mcp atomic.Int32
			f.mcp = func(w http.ResponseWriter, r *http.Request) { mcp.Add(1) }
			_, err := f.get(t, &tc.cfg)
			if !errors.Is(err, oauth.ErrClientIssuerRequired) {
				t.Errorf("err = %v, want ErrClientIssuerRequired", err)
			}
			if mcp.Load() != 0 || f.tokens.Load() != 0 {
				t.Error("a request was sent with a Config the Transport refuses")
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Error("the error names the secret")
			}
			tc.cfg.ClientIssuer = f.url
			if err := tc.cfg.Check(); err != nil {
				t.Errorf("with ClientIssuer: %v", err)
			}
		})
	}
	public := oauth.Config{ClientID: "cid"}
	if err := public.Check(); err != nil {
		t.Errorf("public client: %v", err)
	}
	if err := (&oauth.Config{ClientID: "cid", ClientIssuer: "http://as.example"}).Check(); err == nil {
		t.Error("a plain-http ClientIssuer was accepted")
	}
}
