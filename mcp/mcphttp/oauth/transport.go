package oauth

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/winbridge/winbridge/internal/urlshow"
)

// Config configures a Transport. Only the fields of the grant in use
// matter; the zero value runs the authorization code grant and fails
// with ErrNoUserAgent when a server asks for authorization.
type Config struct {
	// ClientID and ClientSecret are a pre-registered client, used only
	// at the authorization server whose issuer is ClientIssuer, whatever
	// the grant: the authorization server is whichever the resource's
	// metadata names, and so the MCP server's choice. A client with a
	// secret or PrivateKey, or a grant that posts an assertion (JWTBearer,
	// EnterpriseManaged), must name its issuer: the Transport refuses
	// every request otherwise (ErrClientIssuerRequired). A public client
	// (an ID alone, nothing to steal) may leave it empty and is then
	// used at any authorization server.
	ClientID, ClientSecret, ClientIssuer string
	// PrivateKey, with ClientID, authenticates the client with a signed
	// JWT (private_key_jwt) instead of a secret; ParsePrivateKey reads one.
	PrivateKey crypto.Signer
	// ClientMetadataURL is the client's ID metadata document (an https
	// URL), used as client_id where the authorization server supports it.
	// The document must list RedirectURL among its redirect_uris.
	ClientMetadataURL string
	// ClientName is sent in dynamic registration; "" means "winbridge".
	ClientName string
	// RedirectURL is where the authorization server sends the user back.
	RedirectURL string
	// UserAgent runs the user's part of the authorization code grant.
	UserAgent UserAgent
	// Grant obtains tokens; nil means AuthorizationCode{}.
	Grant Grant
	// Store keeps credentials between runs; nil means a MemoryStore.
	Store TokenStore
	// HTTPClient sends the requests to metadata, registration and token
	// endpoints; nil means a client with a 30-second timeout that follows
	// at most 5 redirects of a GET. Whatever the client, a POST follows
	// none (a 307 would carry the client's secret elsewhere) and a GET
	// none to a less secure URL; a client without a Timeout gets 30
	// seconds per request (an endpoint that never answers would otherwise
	// hold every request of the MCP server waiting for the flow).
	HTTPClient *http.Client
	// InsecureHTTP lets the flow use plain-http authorization servers and
	// metadata off loopback, and tokens go to plain-http MCP servers off
	// loopback, where anyone on the path reads the credentials: for closed
	// test networks only. Without it such a server that asks for
	// authorization gets none (ErrInsecureResource).
	InsecureHTTP bool
	// DisableDPoP keeps tokens bearer tokens even where the authorization
	// server offers DPoP binding.
	DisableDPoP bool
	// Scopes, if not nil, are the only scopes the client asks for: a
	// challenge's (or the resource metadata's) others are left out, so
	// that a hostile MCP server cannot widen what a grant without a user
	// (client credentials, JWT bearer, enterprise-managed) silently asks
	// the client's authorization server for. A step-up for scopes none of
	// which it allows fails with ErrScopeNotAllowed instead of asking
	// again. offline_access, which the client adds itself for the
	// authorization code grant, needs no listing. Nil means whatever the
	// server asks for, the MCP scope selection strategy.
	Scopes []string
	// MaxStepUp bounds the re-authorizations for insufficient_scope in one
	// request; zero means 2, negative means none.
	MaxStepUp int
	// Logger receives debug lines of the flow (never a secret); nil
	// means slog.Default().
	Logger *slog.Logger
}

// ErrClientIssuerRequired is returned by Config.Check, and by every
// request of a Transport with such a Config, for a pre-registered client
// with credentials that does not name the authorization server it is
// registered at (Config.ClientIssuer).
var ErrClientIssuerRequired = errors.New("oauth: Config.ClientIssuer must name the authorization server a client with a secret, key or assertion is registered at")

// ErrScopeNotAllowed is returned for a request whose server asks, by a
// 403 insufficient_scope, for scopes Config.Scopes does not list: asking
// again for the allowed ones would get the same answer.
var ErrScopeNotAllowed = errors.New("oauth: the server asks for scopes Config.Scopes does not allow")

// Check reports a Config the Transport refuses to use: a client with a
// secret, a private key or an assertion grant but no ClientIssuer (its
// credentials would go to whichever authorization server an MCP server
// names), or a ClientIssuer that is not an https URL. Call it at startup
// to fail there; the Transport calls it before every request.
func (c *Config) Check() error {
	confidential := c.ClientSecret != "" || c.PrivateKey != nil
	switch c.Grant.(type) {
	case JWTBearer, *JWTBearer, EnterpriseManaged, *EnterpriseManaged:
		confidential = true
	}
	if c.ClientIssuer == "" {
		if confidential {
			return ErrClientIssuerRequired
		}
		return nil
	}
	if !secureURL(c.ClientIssuer, c.InsecureHTTP) {
		return fmt.Errorf("oauth: Config.ClientIssuer %q is not an https (or loopback http) URL", redactURL(c.ClientIssuer))
	}
	return nil
}

// Transport is an http.RoundTripper that adds the token of its Config to
// every request and runs the authorization flow when the server answers
// 401 (or 403 insufficient_scope). It serves one MCP endpoint or many,
// keeping credentials per endpoint URL. Safe for concurrent use: requests
// that meet a 401 together share one authorization.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base   http.RoundTripper
	Config *Config

	mu     sync.Mutex
	states map[string]*state
	mem    *MemoryStore // the store when Config has none
}

// state is what the Transport knows of one endpoint.
type state struct {
	key   string
	flows chan struct{} // one authorization at a time

	mu      sync.Mutex
	creds   *Credentials // nil until loaded
	loaded  bool
	dpop    *dpopKey
	nonceAS string
	nonceRS string
	// skipRefresh: a refreshed token was refused at once; the next
	// authorization runs the grant instead.
	skipRefresh bool
	hint        string // the last challenge's resource_metadata
}

func (s *state) hasDPoP() bool       { s.mu.Lock(); defer s.mu.Unlock(); return s.dpop != nil }
func (s *state) asNonce() string     { s.mu.Lock(); defer s.mu.Unlock(); return s.nonceAS }
func (s *state) setASNonce(n string) { s.mu.Lock(); s.nonceAS = n; s.mu.Unlock() }
func (s *state) rsNonce() string     { s.mu.Lock(); defer s.mu.Unlock(); return s.nonceRS }
func (s *state) setRSNonce(n string) { s.mu.Lock(); s.nonceRS = n; s.mu.Unlock() }

// maxEndpoints bounds the endpoints a Transport keeps state for.
const maxEndpoints = 64

var zeroConfig Config

func (t *Transport) cfg() *Config {
	if t.Config == nil {
		return &zeroConfig
	}
	return t.Config
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

func (t *Transport) logger() *slog.Logger {
	if l := t.cfg().Logger; l != nil {
		return l
	}
	return slog.Default()
}

func (t *Transport) store() TokenStore {
	if s := t.cfg().Store; s != nil {
		return s
	}
	// No Store configured: one MemoryStore for the Transport's life. The
	// Config is the caller's and is not written to.
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.mem == nil {
		t.mem = NewMemoryStore()
	}
	return t.mem
}

// endpointKey is the resource key of a request: its URL without query
// or fragment.
func endpointKey(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.RawFragment, c.User = "", "", "", nil
	return c.String()
}

func (t *Transport) stateFor(key string) *state {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.states == nil {
		t.states = map[string]*state{}
	}
	s := t.states[key]
	if s == nil {
		s = &state{key: key, flows: make(chan struct{}, 1)}
		// Past the bound, a new endpoint (a server redirecting to ever
		// new URLs, say) gets a state that is not kept: it still works,
		// but remembers nothing between requests.
		if len(t.states) < maxEndpoints {
			t.states[key] = s
		}
	}
	return s
}

// credentials returns the endpoint's credentials, loading them from the
// store the first time.
func (t *Transport) credentials(ctx context.Context, s *state) (*Credentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		c, err := t.store().Load(ctx, s.key)
		if err != nil {
			return nil, err
		}
		s.creds, s.loaded = c, true
	}
	return clone(s.creds), nil
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := t.cfg().Check(); err != nil {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even on error
		}
		return nil, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		// The request may be sent again after authorization: keep its body.
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(ctx)
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	if !secureURL(endpointKey(req.URL), t.cfg().InsecureHTTP) {
		// No token leaves for plain http beyond loopback, none is asked
		// for, and none stored earlier is used; a server that needs
		// none still works.
		resp, err := t.base().RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusUnauthorized {
			return resp, err
		}
		drain(resp)
		return nil, fmt.Errorf("%w: %s (Config.InsecureHTTP allows it)", ErrInsecureResource, urlshow.URL(req.URL))
	}
	s := t.stateFor(endpointKey(req.URL))
	creds, err := t.credentials(ctx, s)
	if err != nil {
		return nil, err
	}
	var tok *Token
	if creds != nil {
		tok = creds.Token
	}
	if tok != nil && tok.isDPoP() && !s.hasDPoP() {
		tok = nil // bound to the key of an earlier process: unusable
	}
	if tok != nil && tok.expired(time.Now()) {
		if tok, err = t.authorize(ctx, s, req.URL, Challenge{}, tok, false); err != nil {
			return nil, err
		}
	}
	maxStep := t.cfg().MaxStepUp
	if maxStep == 0 {
		maxStep = 2
	}
	authorized, nonceRetried, steps := false, false, 0
	for first := true; ; first = false {
		r := req
		if !first {
			if r, err = rewind(req); err != nil {
				return nil, err
			}
		} else {
			r = req.Clone(ctx)
		}
		if err := t.present(r, s, tok); err != nil {
			return nil, err
		}
		resp, err := t.base().RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if n := resp.Header.Get("DPoP-Nonce"); n != "" && tok != nil && tok.isDPoP() {
			s.setRSNonce(n)
		}
		scheme := "Bearer"
		if tok != nil && tok.isDPoP() {
			scheme = "DPoP"
		}
		ch := challengeFor(ParseChallenges(resp.Header), scheme)
		switch {
		case resp.StatusCode == http.StatusUnauthorized && ch.Error() == "use_dpop_nonce" && tok != nil && tok.isDPoP() && !nonceRetried && resp.Header.Get("DPoP-Nonce") != "":
			nonceRetried = true
		case resp.StatusCode == http.StatusUnauthorized && !authorized:
			authorized = true
			drain(resp)
			if tok, err = t.authorize(ctx, s, req.URL, ch, tok, false); err != nil {
				return nil, err
			}
			continue
		case resp.StatusCode == http.StatusForbidden && ch.Error() == "insufficient_scope" && steps < maxStep:
			steps++
			drain(resp)
			if tok, err = t.authorize(ctx, s, req.URL, ch, tok, true); err != nil {
				return nil, err
			}
			continue
		default:
			if resp.StatusCode == http.StatusUnauthorized && authorized && tok != nil && tok.refreshed {
				// The refreshed token was refused at once: the next
				// authorization skips refreshing, or every request would
				// refresh forever and never ask again.
				s.mu.Lock()
				s.skipRefresh = true
				s.mu.Unlock()
			}
			return resp, nil
		}
		drain(resp)
	}
}

// CloseIdleConnections closes the idle connections of Base, as
// http.Client.CloseIdleConnections expects of its Transport.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base().(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// present adds the token (and its DPoP proof) to r.
func (t *Transport) present(r *http.Request, s *state, tok *Token) error {
	if tok == nil {
		return nil
	}
	if tok.isDPoP() {
		s.mu.Lock()
		key := s.dpop
		s.mu.Unlock()
		if key == nil {
			return errors.New("oauth: a DPoP-bound token without its key (from an earlier process); authorize again")
		}
		p, err := key.proof(r.Method, r.URL.String(), s.rsNonce(), tok.AccessToken)
		if err != nil {
			return err
		}
		r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		r.Header.Set("DPoP", p)
		return nil
	}
	r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = b
	}
	return r, nil
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// flow is one authorization run against one authorization server.
type flow struct {
	cfg      *Config
	st       *state
	hc       *http.Client
	log      *slog.Logger
	server   *url.URL
	prm      *ResourceMetadata
	as       *ServerMetadata
	resource string
	scope    string
	creds    *Credentials
	// refreshed is the token a refresh obtained, not yet saved.
	refreshed *Token
}

// authorize obtains a new token for the endpoint after failed was
// refused (nil: there was none) with challenge ch. Concurrent callers
// wait for one run; a caller that finds the token already replaced uses
// the new one. stepUp asks for the union of the scopes so far and the
// challenge's.
func (t *Transport) authorize(ctx context.Context, s *state, server *url.URL, ch Challenge, failed *Token, stepUp bool) (*Token, error) {
	select {
	case s.flows <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.flows }()
	creds, err := t.credentials(ctx, s)
	if err != nil {
		return nil, err
	}
	if creds == nil {
		creds = &Credentials{}
	}
	usable := creds.Token != nil && !creds.Token.expired(time.Now()) && (!creds.Token.isDPoP() || s.hasDPoP())
	if usable && (failed == nil || creds.Token.AccessToken != failed.AccessToken) && !stepUp {
		return creds.Token, nil // another request authorized meanwhile
	}
	cfg := t.cfg()
	f := &flow{cfg: cfg, st: s, log: t.logger(), server: server, creds: creds}
	f.hc = cfg.HTTPClient
	if f.hc == nil {
		f.hc = &http.Client{Timeout: endpointTimeout, CheckRedirect: getRedirectsOnly}
	}
	// A challenge's resource_metadata is remembered: a refresh before
	// expiry has no challenge, and the metadata may be only there.
	hint := ch.ResourceMetadata()
	s.mu.Lock()
	if hint != "" {
		s.hint = hint
	} else {
		hint = s.hint
	}
	s.mu.Unlock()
	if f.prm, err = discoverResource(ctx, f.hc, server, hint, reachFor(server, cfg.InsecureHTTP)); err != nil {
		return nil, err
	}
	issuer := (&url.URL{Scheme: server.Scheme, Host: server.Host}).String()
	// Without metadata (a 2025-03-26 server) the resource indicator is
	// the server's canonical URI: the specification requires one in every
	// authorization and token request, and without it the token may be
	// good at any resource of the authorization server.
	f.resource = canonicalResource(server)
	if f.prm != nil {
		f.resource = f.prm.Resource
		if len(f.prm.AuthorizationServers) > 0 {
			issuer = f.prm.AuthorizationServers[0]
		}
	}
	if f.as, err = discoverServer(ctx, f.hc, issuer, reachFor(server, cfg.InsecureHTTP)); err != nil {
		return nil, err
	}
	f.log.DebugContext(ctx, "oauth: discovered", "resource", urlshow.String(f.resource), "issuer", f.as.Issuer, "fallback", f.as.fallback)
	if slices.Contains(f.as.DPoPSigningAlgValuesSupported, "ES256") && !cfg.DisableDPoP {
		s.mu.Lock()
		if s.dpop == nil {
			if s.dpop, err = newDPoPKey(); err != nil {
				s.mu.Unlock()
				return nil, err
			}
		}
		s.mu.Unlock()
	}
	grant := cfg.Grant
	if grant == nil {
		grant = AuthorizationCode{}
	}
	var refused []string
	f.scope, refused = f.selectScope(ch, stepUp, grant)
	if stepUp && len(refused) > 0 && !addsScope(f.scope, creds.Scope) {
		return nil, fmt.Errorf("%w: %s", ErrScopeNotAllowed, strconv.Quote(strings.Join(refused, " ")))
	}

	var tok *Token
	s.mu.Lock()
	skip := s.skipRefresh
	s.skipRefresh = false
	s.mu.Unlock()
	if creds.Token != nil && creds.Token.RefreshToken != "" && creds.Issuer == f.as.Issuer && !stepUp && !skip {
		stored, err := t.refresh(ctx, f, creds)
		if err == nil && stored != nil {
			return stored.Token, nil
		}
		if err != nil {
			if errors.Is(err, ErrStoreLocked) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, err // not the server's refusal: no reason to ask the user
			}
			f.log.DebugContext(ctx, "oauth: refresh refused; authorizing again", "err", err)
		}
		if stored == nil && err == nil {
			tok = f.refreshed
		}
	}
	if tok == nil {
		creds.Token = nil
		if tok, err = grant.grant(ctx, f); err != nil {
			return nil, err
		}
	}
	creds.Token = tok
	creds.Scope = f.scope
	if err := t.save(ctx, s, creds); err != nil {
		return nil, err
	}
	return tok, nil
}

// refresh spends the refresh token of creds. With a store that other
// processes share (an UpdatingStore), it does so inside Update, after
// reading what is stored now: when another process has refreshed since
// creds were read, its token is taken and no refresh token is spent
// twice (a server that rotates them refuses the old one, and may revoke
// the whole family). It then returns the credentials stored, already
// saved. With another store it leaves the new token in f.refreshed and
// returns nil, for the caller to save.
func (t *Transport) refresh(ctx context.Context, f *flow, creds *Credentials) (*Credentials, error) {
	us, ok := t.store().(UpdatingStore)
	if !ok || creds.Token.isDPoP() {
		// A DPoP-bound token and its refresh token are this process's
		// alone: they are bound to its key, which no store holds.
		tok, err := f.refresh(ctx, creds.Token.RefreshToken)
		f.refreshed = tok
		return nil, err
	}
	var stored *Credentials
	err := us.Update(ctx, f.st.key, func(cur *Credentials) (*Credentials, error) {
		rt := creds.Token.RefreshToken
		// Another process's DPoP-bound token, and its refresh token, are
		// bound to that process's key: neither is any use here.
		if cur != nil && cur.Issuer == creds.Issuer && cur.Token != nil && !cur.Token.isDPoP() {
			ct := cur.Token
			if ct.AccessToken != creds.Token.AccessToken && !ct.expired(time.Now()) {
				stored = cur // another process refreshed first
				return nil, nil
			}
			if ct.RefreshToken != "" {
				rt = ct.RefreshToken
			}
		}
		tok, err := f.refresh(ctx, rt)
		if err != nil {
			return nil, err
		}
		next := clone(creds)
		next.Token, next.Scope = tok, f.scope
		stored = next
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	s := f.st
	s.mu.Lock()
	s.creds, s.loaded = clone(stored), true
	s.mu.Unlock()
	return stored, nil
}

// canonicalResource is the canonical URI of the MCP server at u (RFC
// 8707 §2, the MCP authorization specification): scheme and host in
// lower case, the path as it is, no user info, query or fragment.
func canonicalResource(u *url.URL) string {
	c := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}
	return c.String()
}

func (t *Transport) save(ctx context.Context, s *state, c *Credentials) error {
	if err := t.store().Save(ctx, s.key, c); err != nil {
		return fmt.Errorf("oauth: saving credentials: %w", err)
	}
	s.mu.Lock()
	s.creds, s.loaded = clone(c), true
	s.mu.Unlock()
	return nil
}

// selectScope follows the MCP scope selection strategy: the challenge's
// scope, else the resource's scopes_supported, else none; a step-up adds
// the scopes asked before; offline_access is added for the authorization
// code grant when the authorization server offers it (SEP-2207). Of the
// server's choice, it keeps those Config.Scopes allows, and returns the
// others as refused.
func (f *flow) selectScope(ch Challenge, stepUp bool, g Grant) (scope string, refused []string) {
	var scopes []string
	switch {
	case ch.Scope() != "":
		scopes = strings.Fields(ch.Scope())
	case f.prm != nil && len(f.prm.ScopesSupported) > 0:
		scopes = slices.Clone(f.prm.ScopesSupported)
	}
	if f.cfg.Scopes != nil {
		scopes = slices.DeleteFunc(scopes, func(sc string) bool {
			if slices.Contains(f.cfg.Scopes, sc) {
				return false
			}
			refused = append(refused, sc)
			return true
		})
	}
	if stepUp || len(scopes) > 0 {
		for _, sc := range strings.Fields(f.creds.Scope) {
			if !slices.Contains(scopes, sc) && (stepUp || sc != "offline_access") {
				scopes = append(scopes, sc)
			}
		}
	}
	if _, ok := g.(AuthorizationCode); ok && len(scopes) > 0 && slices.Contains(f.as.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	return strings.Join(scopes, " "), refused
}

// addsScope reports whether scope holds one not in before.
func addsScope(scope, before string) bool {
	have := strings.Fields(before)
	for sc := range strings.FieldsSeq(scope) {
		if !slices.Contains(have, sc) {
			return true
		}
	}
	return false
}

// getRedirectsOnly lets metadata GETs follow redirects but not token and
// registration POSTs: Go would re-send their body, secrets included, to
// wherever a 307 or 308 points.
func getRedirectsOnly(req *http.Request, via []*http.Request) error {
	if req.Method != http.MethodGet || len(via) >= 5 {
		return http.ErrUseLastResponse
	}
	return nil
}

// noRedirects returns c, whatever its own policy, following no redirect:
// for token and registration POSTs, whose body (a code and its verifier,
// a refresh token, the client's secret or assertion) net/http would
// re-send on a 307 or 308 to wherever it points, plain http included. The
// redirect is then the answer, and an error.
func noRedirects(c *http.Client) *http.Client {
	cc := *c
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	bounded(&cc)
	return &cc
}

// endpointTimeout bounds one request to an authorization server or
// metadata endpoint (a variable for the tests).
var endpointTimeout = 30 * time.Second

// bounded gives c, a copy of the Config's client, a Timeout if it has
// none: the caller's context may have no deadline, and the flow holds the
// requests of its MCP server while it runs.
func bounded(c *http.Client) {
	if c.Timeout == 0 {
		c.Timeout = endpointTimeout
	}
}

func newPost(ctx context.Context, u string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
}
