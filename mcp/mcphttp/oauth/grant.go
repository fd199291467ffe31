package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/url"

	"github.com/winbridge/winbridge/internal/urlshow"
)

// Grant is how the Transport obtains a token once it knows the
// authorization server: AuthorizationCode (the default), ClientCredentials,
// JWTBearer or EnterpriseManaged.
type Grant interface {
	grant(ctx context.Context, f *flow) (*Token, error)
}

// ErrNoUserAgent is returned when the authorization code grant needs the
// user but Config has no UserAgent or RedirectURL.
var ErrNoUserAgent = errors.New("oauth: authorization needs Config.UserAgent and Config.RedirectURL")

// AuthorizationError is the error a redirect carries back from the
// authorization endpoint (RFC 6749 §4.1.2.1), or a redirect the client
// refused (state or iss wrong).
type AuthorizationError struct {
	Code        string // "access_denied", ...
	Description string
}

// Error implements the error interface.
func (e *AuthorizationError) Error() string {
	if e.Description == "" {
		return "oauth: authorization refused: " + e.Code
	}
	return "oauth: authorization refused: " + e.Code + ": " + e.Description
}

// AuthorizationCode is the authorization code grant with PKCE S256
// (OAuth 2.1 §4.1, RFC 7636), through Config.UserAgent.
type AuthorizationCode struct{}

func (AuthorizationCode) grant(ctx context.Context, f *flow) (*Token, error) {
	cfg := f.cfg
	if cfg.UserAgent == nil || cfg.RedirectURL == "" {
		return nil, ErrNoUserAgent
	}
	if !f.as.supportsS256() {
		return nil, fmt.Errorf("%w (%s)", ErrPKCEUnsupported, f.as.Issuer)
	}
	if f.as.AuthorizationEndpoint == "" {
		return nil, fmt.Errorf("oauth: authorization server %s has no authorization endpoint", f.as.Issuer)
	}
	if err := f.ensureClient(ctx); err != nil {
		return nil, err
	}
	p := newPKCE()
	state := randomString(16)
	au, err := url.Parse(f.as.AuthorizationEndpoint)
	if err != nil {
		return nil, err
	}
	q := au.Query()
	q.Set("response_type", "code")
	q.Set("client_id", f.creds.ClientID)
	q.Set("redirect_uri", cfg.RedirectURL)
	q.Set("code_challenge", p.challenge)
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	if f.scope != "" {
		q.Set("scope", f.scope)
	}
	if f.resource != "" {
		q.Set("resource", f.resource)
	}
	au.RawQuery = q.Encode()
	f.log.DebugContext(ctx, "oauth: authorization request", "endpoint", redactURL(f.as.AuthorizationEndpoint), "scope", f.scope, "resource", urlshow.String(f.resource))
	cb, err := cfg.UserAgent.Authorize(ctx, au.String())
	if err != nil {
		return nil, fmt.Errorf("oauth: authorization: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(cb.Get("state")), []byte(state)) != 1 {
		return nil, &AuthorizationError{Code: "state_mismatch", Description: "the redirect's state is not the one sent"}
	}
	// RFC 9207: an iss present must be the issuer, compared as strings;
	// one promised by the metadata must be present. Error responses too
	// (§2.4), before their text is believed: an error from another server
	// is a mix-up, and its description would be shown to the user as this
	// server's.
	iss, hasIss := cb["iss"]
	switch {
	case hasIss && (len(iss) != 1 || iss[0] != f.as.Issuer):
		return nil, fmt.Errorf("%w: the authorization response's iss is not %q", ErrIssuerMismatch, f.as.Issuer)
	case !hasIss && f.as.AuthorizationResponseIssParameterSupported:
		return nil, fmt.Errorf("%w: %s promised iss in authorization responses and sent none", ErrIssuerMismatch, f.as.Issuer)
	}
	if e := cb.Get("error"); e != "" {
		return nil, &AuthorizationError{Code: cut(e, 64), Description: cut(cb.Get("error_description"), 200)}
	}
	code := cb.Get("code")
	if code == "" {
		return nil, &AuthorizationError{Code: "no_code", Description: "the redirect carries no code"}
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {cfg.RedirectURL},
		"code_verifier": {p.verifier},
	}
	if f.resource != "" {
		form.Set("resource", f.resource)
	}
	return f.requestToken(ctx, form)
}

// refresh uses a refresh token (OAuth 2.1 §4.3).
func (f *flow) refresh(ctx context.Context, rt string) (*Token, error) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}
	if f.resource != "" {
		form.Set("resource", f.resource)
	}
	tok, err := f.requestToken(ctx, form)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = rt // RFC 6749 §6: the old one stays valid
	}
	tok.refreshed = true
	return tok, nil
}

// ClientCredentials is the client credentials grant (OAuth 2.1 §4.2,
// the MCP extension io.modelcontextprotocol/oauth-client-credentials):
// the client authenticates with Config.ClientSecret or, with
// Config.PrivateKey, a signed JWT (private_key_jwt, RFC 7523 §2.2).
type ClientCredentials struct{}

func (ClientCredentials) grant(ctx context.Context, f *flow) (*Token, error) {
	if err := f.ensurePreRegistered(); err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	f.addScopeResource(form)
	return f.requestToken(ctx, form)
}

// JWTBearerGrantType is the grant_type of RFC 7523 §2.1.
const JWTBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// JWTBearer is the JWT bearer grant of RFC 7523 §2.1 for workload
// identity federation (SEP-1933): Assertion returns a JWT the platform
// issued to the workload, and the client trades it for an access token.
// A refused assertion is an error; the grant is not retried.
type JWTBearer struct {
	Assertion func(ctx context.Context) (string, error)
}

func (g JWTBearer) grant(ctx context.Context, f *flow) (*Token, error) {
	if g.Assertion == nil {
		return nil, errors.New("oauth: JWTBearer without Assertion")
	}
	if err := f.ensurePreRegistered(); err != nil {
		return nil, err
	}
	a, err := g.Assertion(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: workload assertion: %w", err)
	}
	form := url.Values{"grant_type": {JWTBearerGrantType}, "assertion": {a}}
	f.addScopeResource(form)
	return f.requestToken(ctx, form)
}

// EnterpriseManaged is enterprise-managed authorization (SEP-990): the
// user's ID token from the enterprise identity provider is exchanged there
// for an identity assertion authorization grant (ID-JAG, RFC 8693 token
// exchange), which the authorization server trades for an access token
// (RFC 7523 JWT bearer grant), the client authenticating with its
// pre-registered credentials.
type EnterpriseManaged struct {
	IDPTokenEndpoint string // the identity provider's token endpoint
	IDPClientID      string // the client's ID at the identity provider
	IDPClientSecret  string // its secret there, if any (sent client_secret_post)
	// IDToken returns the user's OpenID Connect ID token from the
	// identity provider.
	IDToken func(ctx context.Context) (string, error)
}

func (g EnterpriseManaged) grant(ctx context.Context, f *flow) (*Token, error) {
	if g.IDToken == nil || g.IDPTokenEndpoint == "" {
		return nil, errors.New("oauth: EnterpriseManaged needs IDPTokenEndpoint and IDToken")
	}
	if !secureURL(g.IDPTokenEndpoint, f.cfg.InsecureHTTP) {
		return nil, fmt.Errorf("oauth: identity provider token endpoint %q is not an https (or loopback http) URL", redactURL(g.IDPTokenEndpoint))
	}
	if err := f.ensurePreRegistered(); err != nil {
		return nil, err
	}
	idt, err := g.IDToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: ID token: %w", err)
	}
	form := url.Values{
		"grant_type":           {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"requested_token_type": {"urn:ietf:params:oauth:token-type:id-jag"},
		"audience":             {f.as.Issuer},
		"subject_token":        {idt},
		"subject_token_type":   {"urn:ietf:params:oauth:token-type:id_token"},
	}
	f.addScopeResource(form)
	if g.IDPClientID != "" {
		form.Set("client_id", g.IDPClientID)
	}
	if g.IDPClientSecret != "" {
		form.Set("client_secret", g.IDPClientSecret)
	}
	req, err := newPost(ctx, g.IDPTokenEndpoint)
	if err != nil {
		return nil, err
	}
	jag, _, err := postToken(f.hc, req, form)
	if err != nil {
		return nil, fmt.Errorf("oauth: token exchange at the identity provider: %w", err)
	}
	form = url.Values{"grant_type": {JWTBearerGrantType}, "assertion": {jag.AccessToken}}
	f.addScopeResource(form)
	return f.requestToken(ctx, form)
}

// ensurePreRegistered gives the grants without a user their client: the
// configured one (they have no redirect to register).
func (f *flow) ensurePreRegistered() error {
	if f.creds.Issuer != f.as.Issuer {
		*f.creds = Credentials{Issuer: f.as.Issuer, Scope: f.creds.Scope}
	}
	if f.cfg.ClientID == "" {
		return fmt.Errorf("%w: this grant needs Config.ClientID", ErrNoClient)
	}
	// The authorization server is whichever the resource's metadata
	// names, so a hostile MCP server picks it: a client bound to one
	// issuer must not post its secret or assertion anywhere else.
	if f.cfg.ClientIssuer != "" && f.cfg.ClientIssuer != f.as.Issuer {
		return fmt.Errorf("%w: Config.ClientID is registered at %s, not at %s", ErrNoClient, redactURL(f.cfg.ClientIssuer), redactURL(f.as.Issuer))
	}
	f.creds.ClientID, f.creds.ClientSecret = f.cfg.ClientID, f.cfg.ClientSecret
	return nil
}

func (f *flow) addScopeResource(form url.Values) {
	if f.scope != "" {
		form.Set("scope", f.scope)
	}
	if f.resource != "" {
		form.Set("resource", f.resource)
	}
}
