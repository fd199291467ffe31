package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// statelessFacade serves a gateway over Streamable HTTP, behind
// RequireAuth when auth is true (the token is the subject), and returns
// a function that makes one stateless (2026-07-28) tool call with a
// token and returns the gateway's code.
func statelessFacade(t *testing.T, pol *Policy, auth bool) (*Gateway, func(token string) Code) {
	t.Helper()
	g, url, ctx := serveFacade(t, pol, auth)
	return g, func(token string) Code {
		t.Helper()
		return statelessCall(ctx, t, url, token, &client.Options{}, "up__echo", map[string]any{"text": "x"})
	}
}

// serveFacade starts a gateway over pol and serves it over Streamable
// HTTP, behind RequireAuth when auth is true (the token is the subject,
// or for "client-X" the client X of a token without a user).
// It returns the gateway, its URL and a context for calls to it.
func serveFacade(t *testing.T, pol *Policy, auth bool) (*Gateway, string, context.Context) {
	t.Helper()
	g, err := New(&Options{Servers: inproc(), Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(g.Server(), nil)
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	var srv http.Handler = h
	if auth {
		srv = mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
			if c, ok := strings.CutPrefix(tok, "client-"); ok {
				return &mcphttp.AuthInfo{ClientID: c}, nil // client credentials: no user
			}
			return &mcphttp.AuthInfo{Subject: tok, ClientID: "test"}, nil
		})}, h)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return g, ts.URL, ctx
}

// statelessCall makes one stateless (2026-07-28) call of tool with a
// client of its own over copts, with token as its bearer token if not
// empty, and returns the gateway's code.
func statelessCall(ctx context.Context, t *testing.T, url, token string, copts *client.Options, tool string, args any) Code {
	t.Helper()
	hdr := http.Header{}
	if token != "" {
		hdr.Set("Authorization", "Bearer "+token)
	}
	stream, err := mcphttp.NewStream(ctx, url, &mcphttp.ClientOptions{Header: hdr, NoListen: true})
	if err != nil {
		t.Fatal(err)
	}
	copts.ProtocolVersion = mcp.Version20260728
	c, err := client.Connect(ctx, stream, copts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return codeOf(res)
}

// TestStatelessBudgetAnonymous: stateless requests without an
// authenticated subject share one budget per window, though each is a
// session of its own.
func TestStatelessBudgetAnonymous(t *testing.T) {
	_, call := statelessFacade(t, mustPolicy(t, `{"stateless":{"anonymousCalls":3}}`), false)
	for i := range 3 {
		if code := call(""); code != CodeOK {
			t.Fatalf("call %d: %s", i, code)
		}
	}
	if code := call(""); code != CodeSessionBudget {
		t.Errorf("the 4th anonymous stateless call: %s, want %s", code, CodeSessionBudget)
	}
}

// TestStatelessBudgetPerSubject: behind RequireAuth, stateless requests
// are counted by subject against callsPerSession; another subject has
// its own count; the count starts again after the window.
func TestStatelessBudgetPerSubject(t *testing.T) {
	g, call := statelessFacade(t, mustPolicy(t, `{"budgets":{"callsPerSession":2},"stateless":{"windowMs":60000}}`), true)
	var skew atomic.Int64
	g.now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	for i := range 2 {
		if code := call("alice"); code != CodeOK {
			t.Fatalf("alice %d: %s", i, code)
		}
	}
	if code := call("alice"); code != CodeSessionBudget {
		t.Errorf("alice's 3rd call: %s, want %s", code, CodeSessionBudget)
	}
	if code := call("bob"); code != CodeOK {
		t.Errorf("bob: %s", code)
	}
	skew.Store(int64(time.Minute)) // the window passes: alice's count starts again
	if code := call("alice"); code != CodeOK {
		t.Errorf("alice after the window: %s", code)
	}
}

func TestStatelessBudgetPolicy(t *testing.T) {
	for doc, want := range map[string]string{
		`{"stateless":{"windowMs":"1"}}`:         `stateless.windowMs: want integer`,
		`{"stateless":{"window":1}}`:             `stateless.window`,
		`{"servers":{"a":{"sampling":"maybe"}}}`: `servers.a.sampling: want one of`,
		`{"servers":{"a":{"sampled":"allow"}}}`:  `servers.a.sampled`,
	} {
		if _, err := ParsePolicy([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

// TestStatelessBudgetPerClient: a token that speaks for a client and no
// user (client credentials) is counted as that client, not in the pool
// all anonymous requests share: two services do not use up each other's
// calls, nor the anonymous callers'.
func TestStatelessBudgetPerClient(t *testing.T) {
	_, call := statelessFacade(t, mustPolicy(t, `{"budgets":{"callsPerSession":2},"stateless":{"anonymousCalls":1}}`), true)
	for i := range 2 {
		if code := call("client-svc"); code != CodeOK {
			t.Fatalf("client svc, call %d: %s", i, code)
		}
	}
	if code := call("client-svc"); code != CodeSessionBudget {
		t.Errorf("client svc's 3rd call: %s, want %s", code, CodeSessionBudget)
	}
	if code := call("client-other"); code != CodeOK {
		t.Errorf("client other: %s", code)
	}
}
