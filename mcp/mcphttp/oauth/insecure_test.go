package oauth_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// A token never travels in clear to a resource that is neither https nor
// loopback: the MCP server at http://mcp.test (not loopback) gets no
// authorization run for it and no token, though its metadata names a
// perfectly good authorization server. Config.InsecureHTTP allows it.
func TestNoTokenToPlainHTTPResource(t *testing.T) {
	f := newFake(t)
	fu, _ := url.Parse(f.url)
	remote := "http://mcp.test:" + fu.Port()
	var sawToken atomic.Int32
	f.prm = func(base string) map[string]any {
		return map[string]any{"resource": remote + "/mcp", "authorization_servers": []string{base}}
	}
	inner := f.mcp
	f.mcp = func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "mcp.test:"+fu.Port() && r.Header.Get("Authorization") != "" {
			sawToken.Add(1)
		}
		inner(w, r)
	}
	// Every name dials the fake, as DNS for mcp.test would.
	base := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, fu.Host)
	}}
	t.Cleanup(base.CloseIdleConnections)
	for _, insecure := range []bool{false, true} {
		sawToken.Store(0)
		f.authorizes.Store(0)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cfg := &oauth.Config{UserAgent: oauth.UserAgentFunc(headless), RedirectURL: "http://127.0.0.1:9/cb", InsecureHTTP: insecure}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, remote+"/mcp", nil)
		resp, err := (&http.Client{Transport: &oauth.Transport{Config: cfg, Base: base}}).Do(req)
		if resp != nil {
			resp.Body.Close()
		}
		cancel()
		if !insecure {
			if sawToken.Load() != 0 || f.authorizes.Load() != 0 {
				t.Errorf("plain http to a non-loopback resource: %d authorizations, token sent %d times", f.authorizes.Load(), sawToken.Load())
			}
			if !errors.Is(err, oauth.ErrInsecureResource) {
				t.Errorf("got %v, want ErrInsecureResource", err)
			}
			continue
		}
		if err != nil || resp.StatusCode != http.StatusOK || sawToken.Load() == 0 {
			t.Errorf("with InsecureHTTP: %v %v, token sent %d times", resp, err, sawToken.Load())
		}
	}
}
