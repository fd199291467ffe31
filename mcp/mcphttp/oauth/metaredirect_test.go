package oauth_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// fakeNet answers the requests for the hosts of its map itself and
// records every request it sees; other hosts go to the real transport
// (the loopback test servers).
type fakeNet struct {
	mu    sync.Mutex
	seen  []string
	hosts map[string]http.HandlerFunc
}

func (n *fakeNet) RoundTrip(r *http.Request) (*http.Response, error) {
	n.mu.Lock()
	n.seen = append(n.seen, r.URL.String())
	h := n.hosts[r.URL.Host]
	n.mu.Unlock()
	if h == nil {
		return http.DefaultTransport.RoundTrip(r)
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	h(rec, r)
	return &http.Response{StatusCode: rec.status, Header: rec.header, Body: io.NopCloser(strings.NewReader(rec.body.String())), Request: r}, nil
}

func (n *fakeNet) saw(prefix string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, u := range n.seen {
		if strings.HasPrefix(u, prefix) {
			return true
		}
	}
	return false
}

type recorder struct {
	header http.Header
	status int
	body   strings.Builder
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(s int)           { r.status = s }

// A metadata document may move, but a redirect is not a way around the
// rule for where the client fetches from: a hostile MCP server's
// resource_metadata (or its authorization server's metadata) that
// redirects to plain http off loopback (a cloud metadata address, say),
// or from https down to http, is not followed, whatever HTTPClient the
// Config has.
func TestMetadataRedirectStaysSecure(t *testing.T) {
	for _, tc := range []struct {
		name, hint, target string
	}{
		{"to link-local http", "", "http://169.254.169.254/latest/meta-data/"},
		{"https down to loopback http", "https://meta.test/prm", "http://127.0.0.1:1/prm"},
		{"to another scheme", "", "ftp://meta.test/prm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			net := &fakeNet{hosts: map[string]http.HandlerFunc{
				"169.254.169.254": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) },
				"meta.test": func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, tc.target, http.StatusFound)
				},
				"127.0.0.1:1": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) },
			}}
			hint := tc.hint
			if hint == "" {
				hint = f.url + "/moved"
				net.hosts[strings.TrimPrefix(f.url, "http://")] = func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/moved" {
						http.Redirect(w, r, tc.target, http.StatusFound)
						return
					}
					w.WriteHeader(http.StatusNotFound)
				}
			}
			f.mcp = func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+hint+`"`)
				w.WriteHeader(http.StatusUnauthorized)
			}
			_, err := f.get(t, &oauth.Config{HTTPClient: &http.Client{Transport: net}})
			if err == nil {
				t.Fatal("the flow went on past a redirect it should not follow")
			}
			if net.saw(tc.target) {
				t.Fatalf("the client followed the redirect to %s", tc.target)
			}
			if f.authorizes.Load() != 0 || f.tokens.Load() != 0 {
				t.Fatal("the flow reached the authorization server")
			}
		})
	}
}

// An application's own HTTPClient may have no Timeout, and the request
// being authorized may have no deadline: an endpoint that never answers
// (a hostile MCP server's resource_metadata, say) still ends the flow
// within the endpoint bound, not with the caller's deadline.
func TestOwnClientWithoutTimeoutIsBounded(t *testing.T) {
	oauth.SetEndpointTimeout(t, 200*time.Millisecond)
	f := newFake(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	net := &fakeNet{hosts: map[string]http.HandlerFunc{
		"hang.test": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		},
	}}
	f.mcp = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://hang.test/prm"`)
		w.WriteHeader(http.StatusUnauthorized)
	}
	start := time.Now()
	_, err := f.get(t, &oauth.Config{HTTPClient: &http.Client{Transport: net}})
	if err == nil {
		t.Fatal("the flow went on past an endpoint that never answered")
	}
	// f.get's own deadline is 10 s; the endpoint's bound is 200 ms.
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the flow waited %v for an endpoint that never answers: %v", d, err)
	}
	if f.authorizes.Load() != 0 || f.tokens.Load() != 0 {
		t.Fatal("the flow reached the authorization server")
	}
}
