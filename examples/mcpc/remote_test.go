package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/oauthtest"
	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// protected is an MCP server behind OAuth (an oauthtest authorization
// server), with one tool, whoami, that answers with the token's subject.
type protected struct {
	as       *oauthtest.Server
	resource string // the MCP endpoint
}

func newProtected(t *testing.T) *protected {
	t.Helper()
	p := &protected{as: oauthtest.New(t, "mcp:tools")}
	srv := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		sub := "nobody"
		if ai := mcphttp.SessionAuth(req.Session); ai != nil {
			sub = ai.Subject
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you are " + sub}}}, nil, nil
	})
	h := mcphttp.NewHandler(srv, nil)
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	p.resource = ts.URL + "/mcp"
	mux.Handle(mcphttp.ResourceMetadataPath(p.resource), mcphttp.ResourceMetadataHandler(&oauth.ResourceMetadata{Resource: p.resource, AuthorizationServers: []string{p.as.URL}}))
	mux.Handle("/mcp", mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: p.as.Verifier(p.resource), ResourceMetadataURL: ts.URL + mcphttp.ResourceMetadataPath(p.resource)}, h))
	return p
}

// browser is mcpc's stderr: it keeps the text and, like a user, opens
// each authorization URL printed, following the redirects to mcpc's
// loopback callback.
type browser struct {
	t       *testing.T
	prefix  string
	mu      sync.Mutex
	text    bytes.Buffer
	wg      sync.WaitGroup
	opened  atomic.Int64
	failure atomic.Pointer[error]
}

var urlLine = regexp.MustCompile(`(?m)^\s*(http://\S+)\s*$`)

func (b *browser) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.text.Write(p)
	b.mu.Unlock()
	for _, m := range urlLine.FindAllSubmatch(p, -1) {
		u := string(m[1])
		if !strings.HasPrefix(u, b.prefix) {
			continue
		}
		b.opened.Add(1)
		b.wg.Go(func() {
			resp, err := http.Get(u)
			if err == nil {
				resp.Body.Close()
			} else {
				b.failure.Store(&err)
			}
		})
	}
	return len(p), nil
}

func (b *browser) String() string {
	b.wg.Wait()
	if err := b.failure.Load(); err != nil {
		b.t.Errorf("browser: %v", *err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.text.String()
}

// mcpcRemote runs mcpc with stderr a browser; it returns the status,
// stdout, stderr and how many authorization URLs were opened.
func (p *protected) mcpc(t *testing.T, args ...string) (code int, stdout, stderr string, opened int64) {
	t.Helper()
	b := &browser{t: t, prefix: p.as.URL + "/authorize?"}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code = run(ctx, args, &out, b)
	stderr = b.String()
	for _, s := range p.as.Secrets() {
		if strings.Contains(out.String(), s) || strings.Contains(stderr, s) {
			t.Errorf("mcpc %q printed a secret (%.6s...)", args, s)
		}
	}
	return code, out.String(), stderr, b.opened.Load()
}

func whoami(t *testing.T, code int, out, errs string) {
	t.Helper()
	var res mcp.CallToolResult
	if code != exitOK || json.Unmarshal([]byte(out), &res) != nil || res.TextOf() != "you are user-1" {
		t.Fatalf("call whoami: status %d, stdout %s, stderr %s", code, out, errs)
	}
}

// mcpc login, then calls with the stored token: no browser, the token
// refreshed when the server refuses it (expired there) and when it has
// expired here, and nothing secret ever printed, -v included.
func TestRemoteUsesLoginTokens(t *testing.T) {
	p := newProtected(t)
	store := filepath.Join(t.TempDir(), "tokens.json")
	if code, out, errs, opened := p.mcpc(t, "login", "--store", store, p.resource); code != exitOK || opened != 1 {
		t.Fatalf("login: status %d, %d URLs opened\n%s\n%s", code, opened, out, errs)
	}
	fs := &oauth.FileStore{Path: store}
	stored := func() *oauth.Credentials {
		c, err := fs.Load(context.Background(), p.resource)
		if err != nil || c == nil || c.Token == nil {
			t.Fatalf("store: %v, %v", c, err)
		}
		return c
	}
	first := stored().Token.AccessToken

	// The stored token is used as it is: no browser, no refresh.
	code, out, errs, opened := p.mcpc(t, "--url", p.resource, "--store", store, "call", "whoami")
	whoami(t, code, out, errs)
	if opened != 0 || strings.Contains(errs, "authorize") || stored().Token.AccessToken != first {
		t.Fatalf("a second authorization or a refresh: %d URLs, stderr %s", opened, errs)
	}
	code, out, errs, _ = p.mcpc(t, "--url", p.resource, "--store", store, "tools")
	if code != exitOK || !strings.Contains(out, `"whoami"`) {
		t.Fatalf("tools: %d %s %s", code, out, errs)
	}

	// Expired at the server: the 401 is answered by a refresh.
	p.as.Expire()
	code, out, errs, opened = p.mcpc(t, "-v", "--url", p.resource, "--store", store, "call", "whoami")
	whoami(t, code, out, errs)
	second := stored().Token.AccessToken
	if opened != 0 || second == first {
		t.Fatalf("after expiry: %d URLs opened, token replaced %v; stderr %s", opened, second != first, errs)
	}

	// Expired here: refreshed before the request is sent.
	c := stored()
	c.Token.Expiry = time.Now().Add(-time.Minute)
	if err := fs.Save(context.Background(), p.resource, c); err != nil {
		t.Fatal(err)
	}
	code, out, errs, opened = p.mcpc(t, "--url", p.resource, "--store", store, "call", "whoami")
	whoami(t, code, out, errs)
	if third := stored().Token; opened != 0 || third.AccessToken == second || !third.Expiry.After(time.Now()) {
		t.Fatalf("after local expiry: %d URLs opened, token replaced %v; stderr %s", opened, third.AccessToken != second, errs)
	}
	if fi, err := os.Stat(store); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("store mode: %v %v", fi, err)
	}
}

// With no token stored, mcpc runs the browser flow itself: it prints the
// URL on stderr, and what it stores serves the next run.
func TestRemoteBrowserFlowWithoutLogin(t *testing.T) {
	p := newProtected(t)
	store := filepath.Join(t.TempDir(), "sub", "tokens.json")
	code, out, errs, opened := p.mcpc(t, "--url", p.resource, "--store", store, "call", "whoami")
	whoami(t, code, out, errs)
	if opened != 1 || !strings.Contains(errs, "Open this URL in a browser") {
		t.Fatalf("%d URLs opened; stderr %s", opened, errs)
	}
	code, out, errs, opened = p.mcpc(t, "--url", p.resource, "--store", store, "call", "whoami")
	whoami(t, code, out, errs)
	if opened != 0 {
		t.Fatalf("a second browser flow: %s", errs)
	}
}

// A config file mixing a stdio server and url servers: the url entry
// reaches the protected server with the tokens of mcpc login, and an
// entry with its own Authorization header sends it instead of running
// OAuth.
func TestRemoteConfigEntry(t *testing.T) {
	p := newProtected(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "tokens.json")
	if code, _, errs, _ := p.mcpc(t, "login", "--store", store, p.resource); code != exitOK {
		t.Fatalf("login: %s", errs)
	}
	cfgFile := filepath.Join(dir, "mcp.json")
	doc, _ := json.Marshal(map[string]any{"servers": map[string]any{
		"local":  map[string]any{"type": "stdio", "command": "/bin/true"},
		"web":    map[string]any{"type": "http", "url": p.resource, "timeoutMs": 20000},
		"static": map[string]any{"type": "http", "url": p.resource, "headers": map[string]string{"Authorization": "Bearer not-a-valid-token"}},
	}})
	if err := os.WriteFile(cfgFile, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs, opened := p.mcpc(t, "--config", cfgFile, "--server", "web", "--store", store, "call", "whoami")
	whoami(t, code, out, errs)
	if opened != 0 {
		t.Fatalf("a browser flow despite mcpc login: %s", errs)
	}
	code, out, errs, opened = p.mcpc(t, "--config", cfgFile, "--server", "static", "--store", store, "tools")
	if code != exitFailure || opened != 0 || out != "" || strings.Contains(errs, "not-a-valid-token") {
		t.Fatalf("static header: status %d, %d URLs, stdout %q, stderr %s", code, opened, out, errs)
	}
}

// Flags that make no sense for a remote server are refused before
// anything is sent, and a URL with credentials in it is refused.
func TestRemoteFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--url", "ftp://h/mcp", "tools"},
		{"--url", "https://user:pw@h/mcp", "tools"},
		{"--url", "http://127.0.0.1:1/mcp", "-e", "A=1", "tools"},
		{"--url", "http://127.0.0.1:1/mcp", "--npx", "pkg", "tools"},
		{"--url", "http://127.0.0.1:1/mcp", "tools", "--", "cmd"},
	} {
		code, out, errs := mcpc(t, args...)
		if code != exitFailure || out != "" || !strings.HasPrefix(errs, "mcpc: ") || strings.Contains(errs, "pw@") {
			t.Errorf("mcpc %q: status %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// examples/everything-server -http, which asks for no authorization:
// --url lists and calls its tools, and nothing is stored.
func TestRemoteEverythingServer(t *testing.T) {
	endpoint := peertest.EverythingHTTP(t)
	store := filepath.Join(t.TempDir(), "tokens.json")
	code, out, errs := mcpc(t, "--url", endpoint, "--store", store, "tools")
	if code != exitOK || !strings.Contains(out, `"test_simple_text"`) {
		t.Fatalf("tools: %d %s %s", code, out, errs)
	}
	code, out, errs = mcpc(t, "--url", endpoint, "--store", store, "call", "test_simple_text")
	var res mcp.CallToolResult
	if code != exitOK || json.Unmarshal([]byte(out), &res) != nil || res.TextOf() == "" {
		t.Fatalf("call: %d %s %s", code, out, errs)
	}
	if code, _, _ := mcpc(t, "--url", endpoint, "--store", store, "call", "test_error_handling"); code != exitToolError {
		t.Errorf("a tool error over HTTP: status %d, want %d", code, exitToolError)
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Errorf("a server without authorization left a token store: %v", err)
	}
}
