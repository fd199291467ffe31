package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// fakeServer is one origin playing MCP server and authorization server,
// each answer adjustable, counting the authorization and token requests.
type fakeServer struct {
	url          string
	prm          func(base string) map[string]any
	meta         func(base string) map[string]any
	redirect     func(q url.Values, base string) url.Values // the callback query
	mcp          func(w http.ResponseWriter, r *http.Request)
	authorizes   atomic.Int32
	tokens       atomic.Int32
	registration atomic.Int32
}

func newFake(t *testing.T) *fakeServer {
	f := &fakeServer{}
	f.prm = func(base string) map[string]any {
		return map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}}
	}
	f.meta = func(base string) map[string]any {
		return map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "code_challenge_methods_supported": []string{"S256"},
		}
	}
	f.redirect = func(q url.Values, base string) url.Values {
		return url.Values{"code": {"c"}, "state": {q.Get("state")}, "iss": {base}}
	}
	f.mcp = func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer good" {
			w.Write([]byte("ok"))
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+f.url+`/prm"`)
		w.WriteHeader(http.StatusUnauthorized)
	}
	mux := http.NewServeMux()
	js := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) { f.mcp(w, r) })
	mux.HandleFunc("/prm", func(w http.ResponseWriter, r *http.Request) { js(w, f.prm(f.url)) })
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) { js(w, f.meta(f.url)) })
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		f.registration.Add(1)
		w.WriteHeader(http.StatusCreated)
		js(w, map[string]any{"client_id": "cid"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		f.authorizes.Add(1)
		back := "http://127.0.0.1:9/cb?" + f.redirect(r.URL.Query(), f.url).Encode()
		http.Redirect(w, r, back, http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		f.tokens.Add(1)
		js(w, map[string]any{"access_token": "good", "token_type": "Bearer", "expires_in": 60})
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	f.url = ts.URL
	return f
}

func (f *fakeServer) get(t *testing.T, cfg *oauth.Config) (*http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	if cfg == nil {
		cfg = &oauth.Config{}
	}
	if cfg.UserAgent == nil {
		cfg.UserAgent = oauth.UserAgentFunc(headless)
		cfg.RedirectURL = "http://127.0.0.1:9/cb"
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.url+"/mcp", nil)
	resp, err := (&http.Client{Transport: &oauth.Transport{Config: cfg}}).Do(req)
	if resp != nil {
		resp.Body.Close()
	}
	return resp, err
}

func TestFlowSucceedsOnFake(t *testing.T) {
	f := newFake(t)
	resp, err := f.get(t, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	if f.authorizes.Load() != 1 || f.tokens.Load() != 1 || f.registration.Load() != 1 {
		t.Fatalf("authorizes %d tokens %d registrations %d", f.authorizes.Load(), f.tokens.Load(), f.registration.Load())
	}
}

// Each refusal stops the flow before the step it protects: no
// authorization request for metadata the client cannot trust, no token
// request for an authorization response it cannot trust.
func TestFlowRefusals(t *testing.T) {
	for _, tc := range []struct {
		name            string
		setup           func(f *fakeServer)
		want            error
		wantText        string
		maxAuthorizes   int32
		maxTokenRequest int32
	}{
		{"resource of another server", func(f *fakeServer) {
			f.prm = func(base string) map[string]any {
				return map[string]any{"resource": "https://evil.example/mcp", "authorization_servers": []string{base}}
			}
		}, oauth.ErrResourceMismatch, "", 0, 0},
		{"metadata names another issuer", func(f *fakeServer) {
			m := f.meta
			f.meta = func(base string) map[string]any { v := m(base); v["issuer"] = "https://attacker.example"; return v }
		}, oauth.ErrIssuerMismatch, "", 0, 0},
		{"issuer differs by a trailing slash", func(f *fakeServer) {
			m := f.meta
			f.meta = func(base string) map[string]any { v := m(base); v["issuer"] = base + "/"; return v }
		}, oauth.ErrIssuerMismatch, "", 0, 0},
		{"no PKCE S256", func(f *fakeServer) {
			m := f.meta
			f.meta = func(base string) map[string]any {
				v := m(base)
				v["code_challenge_methods_supported"] = []string{"plain"}
				return v
			}
		}, oauth.ErrPKCEUnsupported, "", 0, 0},
		{"PKCE methods absent", func(f *fakeServer) {
			m := f.meta
			f.meta = func(base string) map[string]any {
				v := m(base)
				delete(v, "code_challenge_methods_supported")
				return v
			}
		}, oauth.ErrPKCEUnsupported, "", 0, 0},
		{"iss of another server", func(f *fakeServer) {
			r := f.redirect
			f.redirect = func(q url.Values, base string) url.Values {
				v := r(q, base)
				v.Set("iss", "https://evil.example")
				return v
			}
		}, oauth.ErrIssuerMismatch, "", 1, 0},
		// RFC 9207 §2.4: error responses are checked too; an error another
		// server sent (its text shown to the user) is a mix-up, not a refusal.
		{"error response with the iss of another server", func(f *fakeServer) {
			f.redirect = func(q url.Values, base string) url.Values {
				return url.Values{"error": {"access_denied"}, "error_description": {"call +1 555 0100 to unlock your account"}, "state": {q.Get("state")}, "iss": {"https://evil.example"}}
			}
		}, oauth.ErrIssuerMismatch, "", 1, 0},
		{"iss normalized", func(f *fakeServer) {
			r := f.redirect
			f.redirect = func(q url.Values, base string) url.Values { v := r(q, base); v.Set("iss", base+"/"); return v }
		}, oauth.ErrIssuerMismatch, "", 1, 0},
		{"iss promised and missing", func(f *fakeServer) {
			m := f.meta
			f.meta = func(base string) map[string]any {
				v := m(base)
				v["authorization_response_iss_parameter_supported"] = true
				return v
			}
			r := f.redirect
			f.redirect = func(q url.Values, base string) url.Values { v := r(q, base); v.Del("iss"); return v }
		}, oauth.ErrIssuerMismatch, "", 1, 0},
		{"state forged", func(f *fakeServer) {
			r := f.redirect
			f.redirect = func(q url.Values, base string) url.Values { v := r(q, base); v.Set("state", "forged"); return v }
		}, nil, "state_mismatch", 1, 0},
		{"authorization server over plain http off loopback", func(f *fakeServer) {
			f.prm = func(base string) map[string]any {
				return map[string]any{"resource": base + "/mcp", "authorization_servers": []string{"http://as.example"}}
			}
		}, nil, "https (or loopback http)", 0, 0},
		{"endpoint over plain http off loopback", func(f *fakeServer) {
			m := f.meta
			f.meta = func(base string) map[string]any {
				v := m(base)
				v["token_endpoint"] = "http://as.example/token"
				return v
			}
		}, nil, "https (or loopback http)", 0, 0},
		{"metadata larger than the bound", func(f *fakeServer) {
			m := f.meta
			f.meta = func(base string) map[string]any {
				v := m(base)
				v["pad"] = strings.Repeat("x", oauth.MaxResponseBytes)
				return v
			}
		}, nil, "larger than", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			tc.setup(f)
			_, err := f.get(t, nil)
			if err == nil {
				t.Fatal("the flow went through")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.wantText != "" && !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("err = %v, want it to say %q", err, tc.wantText)
			}
			if f.authorizes.Load() > tc.maxAuthorizes || f.tokens.Load() > tc.maxTokenRequest {
				t.Fatalf("authorization requests %d (max %d), token requests %d (max %d)", f.authorizes.Load(), tc.maxAuthorizes, f.tokens.Load(), tc.maxTokenRequest)
			}
		})
	}
}

// A server that keeps asking for more scope gets 1 + MaxStepUp
// authorizations, then its 403 is the answer; one that keeps answering
// 401 gets one authorization per request.
func TestFlowBounds(t *testing.T) {
	f := newFake(t)
	f.mcp = func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Bearer scope="a"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`)
		w.WriteHeader(http.StatusForbidden)
	}
	resp, err := f.get(t, nil)
	if err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("%v %v", resp, err)
	}
	if n := f.authorizes.Load(); n != 3 {
		t.Fatalf("%d authorizations, want 3 (one, then two step-ups)", n)
	}

	g := newFake(t)
	g.mcp = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.WriteHeader(http.StatusUnauthorized)
	}
	resp, err = g.get(t, &oauth.Config{MaxStepUp: -1})
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("%v %v", resp, err)
	}
	if n := g.authorizes.Load(); n != 1 {
		t.Fatalf("%d authorizations for one request, want 1", n)
	}
}

// Requests that meet the 401 together share one authorization.
func TestConcurrentRequestsShareOneFlow(t *testing.T) {
	f := newFake(t)
	tr := &oauth.Transport{Config: &oauth.Config{UserAgent: oauth.UserAgentFunc(headless), RedirectURL: "http://127.0.0.1:9/cb"}}
	hc := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url+"/mcp", strings.NewReader(`{"x":1}`))
			resp, err := hc.Do(req)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != 200 {
					err = errors.New(resp.Status)
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := f.authorizes.Load(); n != 1 {
		t.Fatalf("%d authorizations for 8 concurrent requests, want 1", n)
	}
}

// A caller waiting for another request's authorization can give up.
func TestWaitingForAuthorizationIsCancellable(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	ua := oauth.UserAgentFunc(func(ctx context.Context, u string) (url.Values, error) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return headless(ctx, u)
	})
	hc := &http.Client{Transport: &oauth.Transport{Config: &oauth.Config{UserAgent: ua, RedirectURL: "http://127.0.0.1:9/cb"}}}
	ctx1, cancel1 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel1()
	first := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx1, http.MethodGet, f.url+"/mcp", nil)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		first <- err
	}()
	<-entered // the first request holds the flow, waiting for the "user"
	ctx2, cancel2 := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx2, http.MethodGet, f.url+"/mcp", nil)
		_, err := hc.Do(req)
		second <- err
	}()
	cancel2()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// A server that refuses even the refreshed token gets a new
// authorization on the next request, not a refresh forever.
func TestRefusedRefreshFallsBackToGrant(t *testing.T) {
	f := newFake(t)
	var issued atomic.Int32
	f.mcp = func(w http.ResponseWriter, r *http.Request) {
		// Only the token of the second authorization code grant works.
		if r.Header.Get("Authorization") == "Bearer code-2" {
			w.Write([]byte("ok"))
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.WriteHeader(http.StatusUnauthorized)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		tok := "refreshed"
		if r.PostForm.Get("grant_type") == "authorization_code" {
			tok = "code-" + string(rune('0'+issued.Add(1)))
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "refresh_token": "rt"})
	})
	tokenSrv := httptest.NewServer(mux)
	defer tokenSrv.Close()
	m := f.meta
	f.meta = func(base string) map[string]any {
		v := m(base)
		v["token_endpoint"] = tokenSrv.URL + "/token"
		return v
	}
	tr := &oauth.Transport{Config: &oauth.Config{UserAgent: oauth.UserAgentFunc(headless), RedirectURL: "http://127.0.0.1:9/cb"}}
	hc := &http.Client{Transport: tr}
	codes := []int{}
	for range 3 {
		resp, err := hc.Get(f.url + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	// 1: grant (code-1) refused, one authorization per request: 401.
	// 2: refresh refused: 401, and refreshing is marked useless.
	// 3: the grant again (code-2): 200.
	if codes[2] != 200 || f.authorizes.Load() != 2 {
		t.Fatalf("statuses %v, %d authorizations; want the third request to pass after a second grant", codes, f.authorizes.Load())
	}
}

// A token endpoint that redirects the POST elsewhere does not get the
// client's secret re-sent there.
func TestTokenPostNotRedirected(t *testing.T) {
	var leaked atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { leaked.Add(1) }))
	defer elsewhere.Close()
	f := newFake(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/token", http.StatusTemporaryRedirect)
	})
	redirector := httptest.NewServer(mux)
	defer redirector.Close()
	m := f.meta
	f.meta = func(base string) map[string]any {
		v := m(base)
		v["token_endpoint"] = redirector.URL + "/token"
		return v
	}
	if _, err := f.get(t, &oauth.Config{ClientID: "cid", ClientSecret: "s3cret", ClientIssuer: f.url}); err == nil {
		t.Fatal("a redirected token request succeeded")
	}
	if leaked.Load() != 0 {
		t.Fatal("the token request was re-sent to the redirect's target")
	}
}

// A token that expires is refreshed before use with the metadata the
// last challenge named, even where the well-known paths lead elsewhere.
func TestExpiryRefreshUsesRememberedMetadata(t *testing.T) {
	f := newFake(t) // the resource metadata is only at /prm, named by the challenge
	var grants, refreshes atomic.Int32
	mux := http.NewServeMux()
	as := httptest.NewServer(mux)
	defer as.Close()
	// The resource's authorization server is another origin; the MCP
	// server's own origin has metadata too, of an issuer it does not name.
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		v := f.meta(as.URL)
		v["authorization_endpoint"] = f.url + "/authorize"
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": "cid"})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if r.PostForm.Get("grant_type") == "refresh_token" {
			refreshes.Add(1)
		} else {
			grants.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		// Expired at once (expires_in 1 is under the 30 s margin).
		json.NewEncoder(w).Encode(map[string]any{"access_token": "good", "token_type": "Bearer", "refresh_token": "rt", "expires_in": 1})
	})
	f.prm = func(base string) map[string]any {
		return map[string]any{"resource": base + "/mcp", "authorization_servers": []string{as.URL}}
	}
	r := f.redirect
	f.redirect = func(q url.Values, base string) url.Values { v := r(q, base); v.Set("iss", as.URL); return v }
	hc := &http.Client{Transport: &oauth.Transport{Config: &oauth.Config{UserAgent: oauth.UserAgentFunc(headless), RedirectURL: "http://127.0.0.1:9/cb"}}}
	for range 2 {
		resp, err := hc.Get(f.url + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatal(resp.Status)
		}
	}
	if grants.Load() != 1 || refreshes.Load() != 1 {
		t.Fatalf("%d grants, %d refreshes; want 1 and 1", grants.Load(), refreshes.Load())
	}
}

// The same with the application's own HTTPClient, whose redirect policy
// (net/http's default: follow, re-sending the body on 307 and 308) would
// carry the code, the verifier or the secret to wherever the endpoint
// points: token and registration POSTs are never redirected, whatever the
// client.
func TestTokenPostNotRedirectedWithOwnClient(t *testing.T) {
	var leaked atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { leaked.Add(1) }))
	defer elsewhere.Close()
	for _, endpoint := range []string{"token_endpoint", "registration_endpoint"} {
		t.Run(endpoint, func(t *testing.T) {
			f := newFake(t)
			redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
			}))
			defer redirector.Close()
			m := f.meta
			f.meta = func(base string) map[string]any {
				v := m(base)
				v[endpoint] = redirector.URL + "/x"
				return v
			}
			cfg := &oauth.Config{HTTPClient: &http.Client{}}
			if endpoint == "token_endpoint" {
				cfg.ClientID, cfg.ClientSecret, cfg.ClientIssuer = "cid", "s3cret", f.url
			}
			if _, err := f.get(t, cfg); err == nil {
				t.Fatal("a redirected POST succeeded")
			}
			if leaked.Load() != 0 {
				t.Fatal("the POST was re-sent to the redirect's target")
			}
		})
	}
}
