package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// A server without protected resource metadata (2025-03-26) still gets
// the resource indicator (RFC 8707), its own URL, in the authorization
// and token requests: the authorization specification requires it
// whether or not the authorization server supports it, and it is what
// keeps the token from being good at another resource.
func TestResourceIndicatorWithoutMetadata(t *testing.T) {
	f := newFake(t)
	f.mcp = func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer good" {
			w.Write([]byte("ok"))
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	}
	var mu sync.Mutex
	var authRes, tokenRes []string
	redirect := f.redirect
	f.redirect = func(q url.Values, base string) url.Values {
		mu.Lock()
		authRes = q["resource"]
		mu.Unlock()
		return redirect(q, base)
	}
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		tokenRes = r.PostForm["resource"]
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"access_token": "good", "token_type": "Bearer"})
	}))
	defer tokens.Close()
	meta := f.meta
	f.meta = func(base string) map[string]any {
		v := meta(base)
		v["token_endpoint"] = tokens.URL + "/token"
		return v
	}
	resp, err := f.get(t, &oauth.Config{})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%v %v", resp, err)
	}
	want := f.url + "/mcp"
	mu.Lock()
	defer mu.Unlock()
	if len(authRes) != 1 || authRes[0] != want {
		t.Errorf("authorization request resource = %q, want %q", authRes, want)
	}
	if len(tokenRes) != 1 || tokenRes[0] != want {
		t.Errorf("token request resource = %q, want %q", tokenRes, want)
	}
}
