package mcphttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// RequireAuth answers 401 with the resource metadata URL and scope when
// the token is missing or refused (invalid_token only when one was sent),
// 403 insufficient_scope when it lacks a scope, 500 without detail when
// the verifier fails otherwise, and passes what it verified on.
func TestRequireAuth(t *testing.T) {
	const prm = "https://mcp.example/.well-known/oauth-protected-resource/mcp"
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		switch tok {
		case "good":
			return &mcphttp.AuthInfo{Subject: "u", Scopes: []string{"read", "write"}}, nil
		case "narrow":
			return &mcphttp.AuthInfo{Subject: "u", Scopes: []string{"read"}}, nil
		case "old":
			return &mcphttp.AuthInfo{Subject: "u", Scopes: []string{"read", "write"}, Expiry: time.Now().Add(-time.Minute)}, nil
		case "broken":
			return nil, fmt.Errorf("database down, token=%s", tok)
		}
		return nil, fmt.Errorf("%w: unknown", mcphttp.ErrInvalidToken)
	})
	h := mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier, ResourceMetadataURL: prm, Scopes: []string{"read", "write"}},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "hello ", mcphttp.AuthFromContext(r.Context()).Subject)
		}))
	for _, tc := range []struct {
		auth      string
		status    int
		challenge string
	}{
		{"", 401, `Bearer scope="read write", resource_metadata="` + prm + `"`},
		{"Basic Zm9vOmJhcg==", 401, `Bearer scope="read write", resource_metadata="` + prm + `"`},
		{"Bearer bogus", 401, `Bearer error="invalid_token", scope="read write", resource_metadata="` + prm + `"`},
		{"Bearer old", 401, `Bearer error="invalid_token", scope="read write", resource_metadata="` + prm + `"`},
		{"Bearer narrow", 403, `Bearer error="insufficient_scope", scope="read write", resource_metadata="` + prm + `"`},
		{"Bearer broken", 500, ""},
		{"bearer good", 200, ""},
	} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}"))
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status || rec.Header().Get("WWW-Authenticate") != tc.challenge {
			t.Errorf("%q: %d %q, want %d %q", tc.auth, rec.Code, rec.Header().Get("WWW-Authenticate"), tc.status, tc.challenge)
		}
		if strings.Contains(rec.Body.String(), "database") || strings.Contains(rec.Body.String(), "broken") {
			t.Errorf("%q: the verifier's error reached the client: %s", tc.auth, rec.Body)
		}
		if tc.status == 200 && rec.Body.String() != "hello u" {
			t.Errorf("handler saw %q", rec.Body)
		}
	}
	// What the client parses back is what was sent.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
	cs := oauth.ParseChallenges(rec.Header())
	if len(cs) != 1 || cs[0].ResourceMetadata() != prm || cs[0].Scope() != "read write" {
		t.Errorf("parsed challenge = %+v", cs)
	}
}

// The metadata endpoint serves the document at the RFC 9728 path.
func TestResourceMetadataHandler(t *testing.T) {
	m := &oauth.ResourceMetadata{Resource: "https://mcp.example/mcp", AuthorizationServers: []string{"https://as.example"}}
	if p := mcphttp.ResourceMetadataPath(m.Resource); p != "/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("path = %q", p)
	}
	if p := mcphttp.ResourceMetadataPath("https://mcp.example"); p != "/.well-known/oauth-protected-resource" {
		t.Fatalf("root path = %q", p)
	}
	rec := httptest.NewRecorder()
	mcphttp.ResourceMetadataHandler(m).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"authorization_servers":["https://as.example"]`) {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	mcphttp.ResourceMetadataHandler(m).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/x", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", rec.Code)
	}
}

// RequireAuth admits a request exactly when its Authorization header is
// the Bearer scheme with the one token the verifier accepts, whatever
// else the header holds.
func FuzzRequireAuth(f *testing.F) {
	for _, s := range []string{"Bearer good", "bearer  good ", "Bearer good2", "Basic good", "Bearergood", "Bearer", "", "Bearer g\x00ood", "DPoP good", "Bearer go od", "Bearer good\x7f", "Bearer g\u00f6od", "Bearer \tgood"} {
		f.Add(s)
	}
	// malformed is set when the verifier is handed what is no token:
	// empty, too long, or holding other than visible ASCII.
	var malformed atomic.Bool
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		if tok == "" || len(tok) > mcphttp.MaxTokenBytes || strings.IndexFunc(tok, func(c rune) bool { return c < 0x21 || c > 0x7e }) >= 0 {
			malformed.Store(true)
		}
		if tok == "good" {
			return &mcphttp.AuthInfo{Subject: "u", Scopes: []string{"s"}}, nil
		}
		return nil, mcphttp.ErrInvalidToken
	})
	h := mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier, Scopes: []string{"s"}},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	f.Fuzz(func(t *testing.T, auth string) {
		defer func() {
			if malformed.Swap(false) {
				t.Fatalf("%q: the verifier was handed a malformed token", auth)
			}
		}()
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header["Authorization"] = []string{auth}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		scheme, tok, _ := strings.Cut(auth, " ")
		want := strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(tok) == "good"
		if got := rec.Code == http.StatusTeapot; got != want {
			t.Fatalf("%q: admitted %v, want %v (status %d)", auth, got, want, rec.Code)
		}
		if !want && rec.Code != http.StatusUnauthorized {
			t.Fatalf("%q: status %d, want 401", auth, rec.Code)
		}
	})
}

// ScopesFor is consulted only for 2026-07-28 requests, whose Mcp-Method
// and Mcp-Name the Handler checks against the body; the scopes it adds
// are named in the challenges.
func TestRequireAuthScopesFor(t *testing.T) {
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		return &mcphttp.AuthInfo{Subject: "u", Scopes: []string{"read"}}, nil
	})
	var calls []string
	h := mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier, Scopes: []string{"read"},
		ScopesFor: func(method, name string) []string {
			calls = append(calls, method+" "+name)
			if name == "drop_table" {
				return []string{"admin"}
			}
			return nil
		}},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	do := func(version, method, name, auth string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set(mcphttp.HeaderProtocolVersion, version)
		req.Header.Set(mcphttp.HeaderMethod, method)
		req.Header.Set(mcphttp.HeaderName, name)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	rec := do("2026-07-28", "tools/call", "drop_table", "Bearer t")
	if rec.Code != http.StatusForbidden || rec.Header().Get("WWW-Authenticate") != `Bearer error="insufficient_scope", scope="read admin"` {
		t.Fatalf("stateless call needing admin: %d %q", rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
	if rec := do("2026-07-28", "tools/call", "drop_table", ""); rec.Header().Get("WWW-Authenticate") != `Bearer scope="read admin"` {
		t.Fatalf("401 challenge %q does not name the call's scope", rec.Header().Get("WWW-Authenticate"))
	}
	if rec := do("2026-07-28", "tools/call", "list_rows", "Bearer t"); rec.Code != http.StatusTeapot {
		t.Fatalf("stateless call needing read: %d", rec.Code)
	}
	calls = nil
	if rec := do("2025-11-25", "tools/call", "drop_table", "Bearer t"); rec.Code != http.StatusTeapot || len(calls) != 0 {
		t.Fatalf("legacy request: %d, ScopesFor called %v (its headers are not checked against the body)", rec.Code, calls)
	}
}
