package oauth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// proofKey is the jwk header of a DPoP proof, as JSON: which key signed it.
func proofKey(proof string) string {
	h, _, _ := strings.Cut(proof, ".")
	b, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		return ""
	}
	var hdr struct {
		JWK json.RawMessage `json:"jwk"`
	}
	json.Unmarshal(b, &hdr)
	return string(hdr.JWK)
}

// Two programs sharing a token file each bind their tokens to a DPoP key
// of their own, which the file does not hold: one must neither take the
// other's token (its proofs would not match it) nor spend the other's
// refresh token (bound to the other's key, RFC 9449 §5), or every refresh
// becomes a new login in the browser. Each refreshes its own.
func TestSharedFileStoreKeepsDPoPTokensApart(t *testing.T) {
	var (
		mu      sync.Mutex
		boundTo = map[string]string{} // access and refresh token -> key
		n       int
		grants  int
		base    string
	)
	writeJSON := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "DPoP ")
		mu.Lock()
		key := boundTo[tok]
		mu.Unlock()
		if !ok || key == "" || key != proofKey(r.Header.Get("DPoP")) {
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_token", resource_metadata="`+base+`/prm"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("ok"))
	})
	mux.HandleFunc("/prm", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "code_challenge_methods_supported": []string{"S256"},
			"dpop_signing_alg_values_supported": []string{"ES256"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"client_id": "cid"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:9/cb?code=c&state="+r.URL.Query().Get("state"), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		key := proofKey(r.Header.Get("DPoP"))
		mu.Lock()
		defer mu.Unlock()
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			grants++
		case "refresh_token":
			if rt := r.PostForm.Get("refresh_token"); boundTo[rt] == "" || boundTo[rt] != key {
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
				return
			}
		}
		n++
		at, rt := "at"+strconv.Itoa(n), "rt"+strconv.Itoa(n)
		boundTo[at], boundTo[rt] = key, key
		// The first token is issued already within the expiry margin,
		// so its program refreshes it on its next request.
		life := 3600
		if n == 1 {
			life = 1
		}
		writeJSON(w, 200, map[string]any{"access_token": at, "refresh_token": rt, "token_type": "DPoP", "expires_in": life})
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	base = ts.URL

	path := filepath.Join(t.TempDir(), "tokens.json")
	program := func() *http.Client {
		return &http.Client{Transport: &oauth.Transport{Config: &oauth.Config{
			Store:     &oauth.FileStore{Path: path},
			UserAgent: oauth.UserAgentFunc(headless), RedirectURL: "http://127.0.0.1:9/cb",
		}}}
	}
	get := func(c *http.Client, what string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/mcp", nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", what, resp.StatusCode)
		}
	}
	a, b := program(), program()
	get(a, "a logs in")             // grant 1: at1, about to expire
	get(b, "b logs in")             // at1 is bound to a's key: grant 2
	get(a, "a refreshes its token") // at1 expired: a refreshes rt1 with its key
	get(b, "b uses its token")      // at2 is still b's
	mu.Lock()
	defer mu.Unlock()
	if grants != 2 {
		t.Errorf("%d logins, want 2: a program took the other's DPoP-bound token or refresh token", grants)
	}
}
