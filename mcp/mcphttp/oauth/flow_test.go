package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/logrec"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/oauthtest"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
	"github.com/winbridge/winbridge/transport"
)

// protected is an MCP server behind RequireAuth with its protected
// resource metadata, trusting the test authorization server as.
type protected struct {
	url string // the MCP endpoint
	as  *oauthtest.Server
}

func newProtected(t *testing.T, scopes ...string) *protected {
	t.Helper()
	return newProtectedWith(t, func(o *mcphttp.AuthOptions) { o.Scopes = scopes })
}

func newProtectedWith(t *testing.T, configure func(*mcphttp.AuthOptions)) *protected {
	t.Helper()
	return newProtectedAt(t, "/mcp", configure)
}

// newProtectedAt is newProtectedWith with the MCP endpoint at path.
func newProtectedAt(t *testing.T, path string, configure func(*mcphttp.AuthOptions)) *protected {
	t.Helper()
	as := oauthtest.New(t, "mcp:tools", "offline_access")
	srv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]string, error) {
		info := mcphttp.SessionAuth(req.Session)
		if info == nil {
			return nil, nil, errors.New("no auth info")
		}
		return nil, map[string]string{"subject": info.Subject, "client": info.ClientID, "scopes": strings.Join(info.Scopes, " ")}, nil
	})
	h := mcphttp.NewHandler(srv, nil)
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	resource := ts.URL + path
	mux.Handle(mcphttp.ResourceMetadataPath(resource), mcphttp.ResourceMetadataHandler(&oauth.ResourceMetadata{
		Resource: resource, AuthorizationServers: []string{as.URL}, ScopesSupported: []string{"mcp:tools"},
	}))
	opts := mcphttp.AuthOptions{
		Verifier:            as.Verifier(resource),
		ResourceMetadataURL: ts.URL + mcphttp.ResourceMetadataPath(resource),
	}
	configure(&opts)
	mux.Handle(path, mcphttp.RequireAuth(opts, h))
	return &protected{url: resource, as: as}
}

// headless reads the code off the authorization endpoint's redirect, as a
// browser would follow it to the redirect URL.
func headless(ctx context.Context, authURL string) (url.Values, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	return u.Query(), nil
}

func connect(t *testing.T, ctx context.Context, endpoint string, tr *oauth.Transport, version string) *client.Client {
	t.Helper()
	stream, err := mcphttp.NewStream(ctx, endpoint, &mcphttp.ClientOptions{Client: &http.Client{Transport: tr}, Logger: tr.Config.Logger})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctx, stream, &client.Options{ProtocolVersion: version, ClientInfo: &mcp.Implementation{Name: "t", Version: "1"}})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func whoami(t *testing.T, ctx context.Context, c *client.Client) string {
	t.Helper()
	res, err := c.CallTool(ctx, "whoami", map[string]any{})
	if err != nil {
		t.Fatalf("whoami: %v", err)
	}
	m, _ := res.StructuredContent.(map[string]any)
	s, _ := m["subject"].(string)
	return s
}

// The whole flow against our own server, in both eras: 401, discovery,
// registration, PKCE code grant, the token presented, the handler seeing
// who called; then a revoked token is refreshed, and an expired one too.
func TestFlowAgainstOwnServer(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p := newProtected(t, "mcp:tools")
			store := oauth.NewMemoryStore()
			tr := &oauth.Transport{Config: &oauth.Config{
				RedirectURL: "http://127.0.0.1:9/callback",
				UserAgent:   oauth.UserAgentFunc(headless),
				Store:       store,
			}}
			c := connect(t, ctx, p.url, tr, v)
			if got := whoami(t, ctx, c); got != "user-1" {
				t.Fatalf("whoami = %q, want user-1", got)
			}
			creds, err := store.Load(ctx, p.url)
			if err != nil || creds == nil || creds.Token == nil || creds.Token.RefreshToken == "" {
				t.Fatalf("stored credentials = %v, %v; want a refreshable token", creds, err)
			}
			if !strings.Contains(creds.Scope, "mcp:tools") || !strings.Contains(creds.Scope, "offline_access") {
				t.Errorf("scope asked = %q, want mcp:tools and offline_access", creds.Scope)
			}
			p.as.Revoke()
			if got := whoami(t, ctx, c); got != "user-1" {
				t.Fatalf("after revocation whoami = %q", got)
			}
			p.as.Expire()
			if got := whoami(t, ctx, c); got != "user-1" {
				t.Fatalf("after expiry whoami = %q", got)
			}
		})
	}
}

// Step-up against our server: whoami needs mcp:admin (ScopesFor, read
// from the 2026-07-28 headers), the first token has mcp:tools only, the
// 403 insufficient_scope makes the client ask for both, and the call
// passes with the larger token.
func TestStepUpAgainstOwnServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := newProtectedWith(t, func(o *mcphttp.AuthOptions) {
		o.Scopes = []string{"mcp:tools"}
		o.ScopesFor = func(method, name string) []string {
			if method == "tools/call" && name == "whoami" {
				return []string{"mcp:admin"}
			}
			return nil
		}
	})
	tr := &oauth.Transport{Config: &oauth.Config{RedirectURL: "http://127.0.0.1:9/callback", UserAgent: oauth.UserAgentFunc(headless)}}
	c := connect(t, ctx, p.url, tr, mcp.Version20260728)
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, "whoami", map[string]any{})
	if err != nil {
		t.Fatalf("whoami: %v", err)
	}
	m, _ := res.StructuredContent.(map[string]any)
	if sc, _ := m["scopes"].(string); !strings.Contains(sc, "mcp:admin") || !strings.Contains(sc, "mcp:tools") {
		t.Fatalf("the call ran with scopes %q, want mcp:tools and mcp:admin", sc)
	}
}

// A session opened by one identity is refused to another's token.
func TestSessionBoundToIdentity(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := newProtected(t)
	tr := &oauth.Transport{Config: &oauth.Config{RedirectURL: "http://127.0.0.1:9/callback", UserAgent: oauth.UserAgentFunc(headless)}}
	stream, err := mcphttp.NewFramer(ctx, p.url, &mcphttp.ClientOptions{Client: &http.Client{Transport: tr}, NoListen: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctx, transportStream(stream), &client.Options{ProtocolVersion: mcp.Version20251125, ClientInfo: &mcp.Implementation{Name: "t", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sid := stream.SessionID()
	// Another user of the same authorization server.
	p.as.SetSubject("user-2")
	tr2 := &oauth.Transport{Config: &oauth.Config{RedirectURL: "http://127.0.0.1:9/callback", UserAgent: oauth.UserAgentFunc(headless)}}
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcphttp.HeaderSessionID, sid)
	req.Header.Set(mcphttp.HeaderProtocolVersion, mcp.Version20251125)
	resp, err := (&http.Client{Transport: tr2}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another identity's request in the session: %s, want 403", resp.Status)
	}
}

func transportStream(f *mcphttp.Framer) *transport.Stream { return transport.NewStream(f, nil) }

func fmtAll(c *oauth.Credentials) string {
	return fmt.Sprintf("%v %+v %#v %s %v %+v", c, c, *c, c, c.Token, *c.Token)
}

// No secret (client secret, code, verifier, access or refresh token)
// reaches a log line at debug level or an error, on the success path and
// on the refusal paths.
func TestNoSecretInLogsOrErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var logs logrec.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	old := slog.Default()
	slog.SetDefault(logger)
	defer slog.SetDefault(old)

	p := newProtected(t, "mcp:tools")
	var errs []string
	// A confidential client (so a client secret exists), debug logging on
	// both the flow and the transport; then print the credentials the
	// way a careless caller would.
	store := oauth.NewMemoryStore()
	tr := &oauth.Transport{Config: &oauth.Config{
		RedirectURL: "http://127.0.0.1:9/callback",
		UserAgent:   oauth.UserAgentFunc(headless),
		Store:       store,
		Logger:      logger,
		HTTPClient:  &http.Client{Timeout: 10 * time.Second},
	}}
	c := connect(t, ctx, p.url, tr, mcp.Version20251125)
	whoami(t, ctx, c)
	p.as.Expire()
	whoami(t, ctx, c)
	creds, _ := store.Load(ctx, p.url)
	logger.Debug("credentials", "creds", creds, "token", creds.Token)
	logger.Debug("printed", "s", fmtAll(creds))
	// The Transport itself, with the flows and tokens it holds, printed
	// and logged whole.
	logger.Debug("transport", "tr", tr, "s", fmt.Sprintf("%v %+v %#v", tr, tr, tr))

	// Refusals: a state that does not match, a code the server refuses, a
	// redirect carrying an error.
	for _, ua := range []oauth.UserAgentFunc{
		func(ctx context.Context, u string) (url.Values, error) {
			q, err := headless(ctx, u)
			q.Set("state", "forged")
			return q, err
		},
		func(ctx context.Context, u string) (url.Values, error) {
			q, err := headless(ctx, u)
			q.Set("code", q.Get("code")+"x")
			return q, err
		},
		func(ctx context.Context, u string) (url.Values, error) {
			q, err := headless(ctx, u)
			q.Set("error", "access_denied")
			return q, err
		},
	} {
		tr := &oauth.Transport{Config: &oauth.Config{RedirectURL: "http://127.0.0.1:9/callback", UserAgent: ua, Logger: logger}}
		stream, err := mcphttp.NewStream(ctx, p.url, &mcphttp.ClientOptions{Client: &http.Client{Transport: tr}, Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Connect(ctx, stream, &client.Options{ProtocolVersion: mcp.Version20251125, ClientInfo: &mcp.Implementation{Name: "t", Version: "1"}})
		if err == nil {
			t.Fatal("connect succeeded with a forged authorization response")
		}
		errs = append(errs, err.Error())
		logger.Error("connect failed", "err", err)
	}
	secrets := p.as.Secrets()
	if len(secrets) < 6 {
		t.Fatalf("the authorization server issued only %d secrets; the test exercises too little", len(secrets))
	}
	out := logs.String() + strings.Join(errs, "\n")
	if !strings.Contains(out, "oauth: token issued") {
		t.Fatalf("no debug line of the flow was logged; the test would pass vacuously:\n%s", out)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(out, s) {
			t.Errorf("secret %.8s... appears in the logs or errors", s)
		}
	}
}

// Config.Scopes bounds what the client asks for: the server's wider
// scopes are left out of the first authorization, and a step-up for a
// scope it does not allow fails with ErrScopeNotAllowed instead of
// asking the authorization server for it.
func TestScopesBoundWhatIsAsked(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := newProtectedWith(t, func(o *mcphttp.AuthOptions) {
		o.ScopesFor = func(method, name string) []string {
			if method == "tools/call" && name == "whoami" {
				return []string{"mcp:admin"}
			}
			return nil
		}
	})
	store := oauth.NewMemoryStore()
	tr := &oauth.Transport{Config: &oauth.Config{
		RedirectURL: "http://127.0.0.1:9/callback", UserAgent: oauth.UserAgentFunc(headless), Store: store,
		Scopes: []string{"mcp:tools"},
	}}
	c := connect(t, ctx, p.url, tr, mcp.Version20260728)
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := c.CallTool(ctx, "whoami", map[string]any{})
	if !errors.Is(err, oauth.ErrScopeNotAllowed) || !strings.Contains(err.Error(), `"mcp:admin"`) {
		t.Fatalf("whoami needing mcp:admin, not allowed: %v, want ErrScopeNotAllowed naming it", err)
	}
	creds, err := store.Load(ctx, p.url)
	if err != nil || creds == nil {
		t.Fatal(creds, err)
	}
	if strings.Contains(creds.Scope, "mcp:admin") || !strings.Contains(creds.Scope, "mcp:tools") {
		t.Errorf("scope asked = %q, want mcp:tools without mcp:admin", creds.Scope)
	}
	// Allowed, the same step-up passes.
	tr.Config.Scopes = append(tr.Config.Scopes, "mcp:admin")
	if _, err := c.CallTool(ctx, "whoami", map[string]any{}); err != nil {
		t.Fatalf("whoami with mcp:admin allowed: %v", err)
	}
}
