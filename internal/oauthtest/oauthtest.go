package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// Server is the authorization server. Start it with New.
type Server struct {
	URL string // the issuer: its base URL, no trailing slash

	srv    *httptest.Server
	scopes []string

	mu      sync.Mutex
	clients map[string]client
	codes   map[string]grant
	tokens  map[string]grant // access token -> grant
	refresh map[string]grant
	secrets []string // every secret issued or received
	subject string   // the user every authorization approves as
}

// SetSubject changes the user the next authorizations approve as
// (initially "user-1").
func (s *Server) SetSubject(sub string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subject = sub
}

type client struct {
	secret    string
	redirects []string
}

type grant struct {
	clientID, redirect, challenge, resource, scope, subject string
	expiry                                                  time.Time
}

// New starts a Server on loopback, closed when the test ends.
// scopes are its scopes_supported.
func New(t testing.TB, scopes ...string) *Server {
	s := &Server{
		subject: "user-1",
		scopes:  scopes,
		clients: map[string]client{},
		codes:   map[string]grant{},
		tokens:  map[string]grant{},
		refresh: map[string]grant{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Secrets returns every secret the server issued or saw: client secrets,
// codes, verifiers, access and refresh tokens.
func (s *Server) Secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.secrets)
}

// Revoke forgets every access token, so the next request meets a 401.
func (s *Server) Revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}

// Expire makes every access token expire now.
func (s *Server) Expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, g := range s.tokens {
		g.expiry = time.Now().Add(-time.Second)
		s.tokens[k] = g
	}
}

// Verifier checks tokens this server issued for resource.
func (s *Server) Verifier(resource string) mcphttp.TokenVerifier {
	return mcphttp.TokenVerifierFunc(func(_ context.Context, token string) (*mcphttp.AuthInfo, error) {
		s.mu.Lock()
		g, ok := s.tokens[token]
		s.mu.Unlock()
		if !ok || time.Now().After(g.expiry) {
			return nil, fmt.Errorf("%w: unknown or expired", mcphttp.ErrInvalidToken)
		}
		if g.resource != resource {
			return nil, fmt.Errorf("%w: issued for another resource", mcphttp.ErrInvalidToken)
		}
		return &mcphttp.AuthInfo{Subject: g.subject, ClientID: g.clientID, Scopes: strings.Fields(g.scope), Expiry: g.expiry}, nil
	})
}

func (s *Server) newSecret(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	v := prefix + base64.RawURLEncoding.EncodeToString(b)
	s.secrets = append(s.secrets, v)
	return v
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                s.URL,
		"authorization_endpoint":                s.URL + "/authorize",
		"token_endpoint":                        s.URL + "/token",
		"registration_endpoint":                 s.URL + "/register",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic", "client_secret_post"},
		"scopes_supported":                      s.scopes,
	})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := "client-" + fmt.Sprint(len(s.clients)+1)
	c := client{redirects: req.RedirectURIs}
	out := map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"}
	if req.AuthMethod != "none" {
		c.secret = s.newSecret("secret-")
		out["client_secret"] = c.secret
		out["token_endpoint_auth_method"] = "client_secret_basic"
	}
	s.clients[id] = c
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[q.Get("client_id")]
	if !ok || !slices.Contains(c.redirects, q.Get("redirect_uri")) {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(q.Get("redirect_uri"))
	bq := back.Query()
	bq.Set("state", q.Get("state"))
	bq.Set("iss", s.URL)
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		bq.Set("error", "invalid_request")
	} else {
		code := s.newSecret("code-")
		s.codes[code] = grant{clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), resource: q.Get("resource"), scope: q.Get("scope"), subject: s.subject}
		bq.Set("code", code)
	}
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	c, ok := s.clients[id]
	if !ok || c.secret != secret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	var g grant
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		code := r.PostForm.Get("code")
		g, ok = s.codes[code]
		delete(s.codes, code)
		v := r.PostForm.Get("code_verifier")
		s.secrets = append(s.secrets, v)
		sum := sha256.Sum256([]byte(v))
		if !ok || g.clientID != id || g.redirect != r.PostForm.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || g.resource != r.PostForm.Get("resource") {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		g, ok = s.refresh[rt]
		delete(s.refresh, rt)
		if !ok || g.clientID != id {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	g.expiry = time.Now().Add(time.Hour)
	at, rt := s.newSecret("at-"), s.newSecret("rt-")
	s.tokens[at], s.refresh[rt] = g, g
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt, "scope": g.scope})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
