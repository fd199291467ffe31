package mcphttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// A verifier that accepts a token but says nothing of whom it speaks for
// (no Subject, no ClientID) would bind sessions and tasks to no one: every
// such token, whoever holds it, would share them, and the binding would be
// no binding. RequireAuth refuses it as a broken verifier (500), never
// admitting the request. A client credentials token, naming only its
// client, is bound to that client.
func TestRequireAuthRefusesNoIdentity(t *testing.T) {
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		if tok == "machine" {
			return &mcphttp.AuthInfo{ClientID: "batch", Scopes: []string{"read"}}, nil
		}
		return &mcphttp.AuthInfo{Scopes: []string{"read"}}, nil
	})
	h := mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for tok, want := range map[string]int{"anyone": http.StatusInternalServerError, "machine": http.StatusTeapot} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("%s: status %d, want %d", tok, rec.Code, want)
		}
	}
}

// A token with whitespace, control or non-ASCII bytes is no bearer token
// (RFC 6750 §2.1), nor is one past maxTokenBytes: they are refused as
// invalid_token without reaching the verifier, which may hand them on (to
// an introspection endpoint, a log) as they came.
func TestRequireAuthMalformedToken(t *testing.T) {
	var calls atomic.Int32
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		calls.Add(1)
		return &mcphttp.AuthInfo{Subject: "u"}, nil
	})
	h := mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for _, tok := range []string{
		"a b",
		"a\tb",
		"a\x01b",
		"a\x7fb",
		"ålice",
		"a\u202eb",
		strings.Repeat("a", mcphttp.MaxTokenBytes+1),
	} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header["Authorization"] = []string{"Bearer " + tok}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Header().Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("%.20q: %d %q, want 401 invalid_token", tok, rec.Code, rec.Header().Get("WWW-Authenticate"))
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the verifier saw %d malformed tokens", n)
	}
	// The largest token allowed, of every byte a token may hold, passes.
	ok := strings.Repeat("Az09-._~+/!#$%&'*,:;<=>?@[]^`{|}\"\\(", mcphttp.MaxTokenBytes)[:mcphttp.MaxTokenBytes]
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+ok)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusTeapot {
		t.Errorf("a well-formed token of MaxTokenBytes: status %d", rec.Code)
	}
}

// A stream has no end of its own: the legacy GET stream lives as long as
// its session, and a 2026-07-28 subscriptions/listen as long as its
// client. Checked only as it opened, a token that expired (or was meant
// to live minutes) kept one delivering forever. RequireAuth ends such a
// request at its token's expiry; the client reconnects with a fresh one.
func TestRequireAuthStreamEndsAtExpiry(t *testing.T) {
	var life atomic.Int64 // of each token verified from now on
	life.Store(int64(time.Hour))
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		if tok != "alice" {
			return nil, fmt.Errorf("%w: unknown", mcphttp.ErrInvalidToken)
		}
		return &mcphttp.AuthInfo{Subject: "alice", ClientID: "app", Expiry: time.Now().Add(time.Duration(life.Load()))}, nil
	})

	// The deadline is the token's expiry, for streams only: a call
	// outlives its token as it always did.
	probe := mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d, ok := r.Context().Deadline()
			w.Header().Set("X-Deadline", fmt.Sprint(ok && time.Until(d) <= time.Hour))
		}))
	for _, tc := range []struct {
		method, mcpMethod, version string
		want                       string
	}{
		{http.MethodGet, "", mcp.Version20251125, "true"},
		{http.MethodPost, "subscriptions/listen", mcp.Version20260728, "true"},
		{http.MethodPost, "tools/call", mcp.Version20260728, "false"},
		{http.MethodPost, "", mcp.Version20251125, "false"},
	} {
		req := httptest.NewRequest(tc.method, "/mcp", nil)
		req.Header.Set("Authorization", "Bearer alice")
		req.Header.Set(mcphttp.HeaderProtocolVersion, tc.version)
		if tc.mcpMethod != "" {
			req.Header.Set(mcphttp.HeaderMethod, tc.mcpMethod)
		}
		rec := httptest.NewRecorder()
		probe.ServeHTTP(rec, req)
		if got := rec.Header().Get("X-Deadline"); got != tc.want {
			t.Errorf("%s %s: bounded by the token's expiry: %s, want %s", tc.method, tc.mcpMethod, got, tc.want)
		}
	}

	// End to end: a legacy session's GET stream ends as its token
	// expires, where before it stayed open on keep-alives.
	_, url := serveHTTPWrapped(t, httpTestServer(), nil, func(h http.Handler) http.Handler {
		return mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier}, h)
	})
	resp := rawPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		map[string]string{"Authorization": "Bearer alice"})
	resp.Body.Close()
	sid := resp.Header.Get(mcphttp.HeaderSessionID)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	life.Store(int64(300 * time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer alice")
	req.Header.Set(mcphttp.HeaderSessionID, sid)
	req.Header.Set(mcphttp.HeaderProtocolVersion, mcp.Version20251125)
	get, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	if _, err := io.Copy(io.Discard, get.Body); errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("the GET stream outlived its token by 10s: %v", err)
	}

	// A 2026-07-28 subscriptions/listen ends too, with its final result
	// written while the token holds: the client's cue that the server
	// ended it, and that it may listen again (before, the stream closed
	// without one, as a failed connection does).
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer alice")
	req.Header.Set(mcphttp.HeaderProtocolVersion, mcp.Version20260728)
	req.Header.Set(mcphttp.HeaderMethod, "subscriptions/listen")
	listen, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer listen.Body.Close()
	body, err := io.ReadAll(listen.Body)
	if ctx.Err() != nil {
		t.Fatalf("subscriptions/listen outlived its token by 10s: %v", err)
	}
	if !strings.Contains(string(body), "notifications/subscriptions/acknowledged") {
		t.Errorf("subscriptions/listen: %d %s", listen.StatusCode, body)
	}
	if !strings.Contains(string(body), `{"jsonrpc":"2.0","id":1,"result":{`) || !strings.Contains(string(body), `"io.modelcontextprotocol/subscriptionId":1`) {
		t.Errorf("subscriptions/listen ended without its final result: %s", body)
	}
}

// ScopesFor must be given the method and name the Handler checks against
// the body, decoded the same way. RequireAuth read them as the Handler
// reads other headers, trimming any Unicode space and decoding Base64
// leniently, where the Handler's check trims only spaces and tabs and
// decodes strictly: a resource URI ending in a no-break space was judged
// by the scopes of the URI without it.
func TestRequireAuthScopesForSeesCheckedName(t *testing.T) {
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		return &mcphttp.AuthInfo{Subject: "u"}, nil
	})
	var got []string
	h := mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier,
		ScopesFor: func(method, name string) []string {
			got = append(got, method+"|"+name)
			return nil
		}},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for _, tc := range []struct{ method, name, want string }{
		{"resources/read", "file:///a\u00a0", "resources/read|file:///a\u00a0"},
		{"tools/call", " =?base64?ZHJvcA==?=\t", "tools/call|drop"},
	} {
		got = nil
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set(mcphttp.HeaderProtocolVersion, mcp.Version20260728)
		req.Header[mcphttp.HeaderMethod] = []string{tc.method}
		req.Header[mcphttp.HeaderName] = []string{tc.name}
		h.ServeHTTP(httptest.NewRecorder(), req)
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%q: ScopesFor saw %q, want %q", tc.name, got, tc.want)
		}
	}
}
