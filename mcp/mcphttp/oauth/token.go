package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/winbridge/winbridge/internal/urlshow"
)

// Token is an access token with what came with it. It redacts itself
// when formatted (fmt's verbs) or logged (slog), so printing one by
// mistake leaks nothing; encoding/json still writes every field, for a
// TokenStore.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"` // "Bearer" or "DPoP"
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scope        string    `json:"scope,omitempty"`

	refreshed bool // obtained by a refresh in this process
}

// Format implements fmt.Formatter: every verb prints a redacted form.
func (t Token) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "oauth.Token{type: %s, scope: %q, expiry: %s, access and refresh tokens redacted}", t.TokenType, t.Scope, t.Expiry.Format(time.RFC3339))
}

// LogValue implements slog.LogValuer: the type, scope and expiry only.
func (t Token) LogValue() slog.Value {
	return slog.GroupValue(slog.String("type", t.TokenType), slog.String("scope", t.Scope), slog.Time("expiry", t.Expiry), slog.Bool("refreshable", t.RefreshToken != ""))
}

// expired reports whether the token is past its expiry, with a margin
// for the request's flight time.
func (t *Token) expired(now time.Time) bool {
	return !t.Expiry.IsZero() && now.Add(30*time.Second).After(t.Expiry)
}

func (t *Token) isDPoP() bool { return strings.EqualFold(t.TokenType, "DPoP") }

// TokenError is an error response of a token or registration endpoint
// (RFC 6749 §5.2): the OAuth error code and the server's description.
type TokenError struct {
	Endpoint    string // the endpoint's URL, without query
	Status      int    // the HTTP status
	Code        string // "invalid_grant", "invalid_client", ..., cut to 64 bytes
	Description string // error_description, cut to 200 bytes; control characters replaced
}

// Error implements the error interface.
func (e *TokenError) Error() string {
	s := fmt.Sprintf("oauth: %s: HTTP %d", e.Endpoint, e.Status)
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// tokenResponse is the JSON of a token endpoint's answer, success or
// error.
type tokenResponse struct {
	AccessToken      string          `json:"access_token"`
	TokenType        string          `json:"token_type"`
	RefreshToken     string          `json:"refresh_token"`
	ExpiresIn        json.Number     `json:"expires_in"`
	Scope            string          `json:"scope"`
	IssuedTokenType  string          `json:"issued_token_type"`
	Error            string          `json:"error"`
	ErrorDescription string          `json:"error_description"`
	Extra            json.RawMessage `json:"-"`
}

// Client authentication methods at the token endpoint (RFC 7591 §2).
const (
	AuthNone              = "none"
	AuthClientSecretBasic = "client_secret_basic"
	AuthClientSecretPost  = "client_secret_post"
	AuthPrivateKeyJWT     = "private_key_jwt"
)

// authMethod picks how the client authenticates at the token endpoint:
// what registration settled, else what the configuration and the
// server's list allow, preferring Basic (RFC 6749 §2.3.1's default).
func (f *flow) authMethod() string {
	c := f.creds
	if c.AuthMethod != "" {
		return c.AuthMethod
	}
	supported := f.as.TokenEndpointAuthMethodsSupported
	ok := func(m string) bool { return len(supported) == 0 || slices.Contains(supported, m) }
	switch {
	case f.cfg.PrivateKey != nil && c.ClientSecret == "" && ok(AuthPrivateKeyJWT):
		return AuthPrivateKeyJWT
	case c.ClientSecret == "":
		return AuthNone
	case ok(AuthClientSecretBasic):
		return AuthClientSecretBasic
	case ok(AuthClientSecretPost):
		return AuthClientSecretPost
	case slices.Contains(supported, AuthNone):
		return AuthNone
	}
	return AuthClientSecretBasic
}

// authenticate adds the client's authentication to a token request.
func (f *flow) authenticate(req *http.Request, form url.Values) error {
	c := f.creds
	switch f.authMethod() {
	case AuthClientSecretBasic:
		// RFC 6749 §2.3.1: both parts form-encoded before Basic.
		cred := url.QueryEscape(c.ClientID) + ":" + url.QueryEscape(c.ClientSecret)
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cred)))
	case AuthClientSecretPost:
		form.Set("client_id", c.ClientID)
		form.Set("client_secret", c.ClientSecret)
	case AuthPrivateKeyJWT:
		if f.cfg.PrivateKey == nil {
			return fmt.Errorf("oauth: the client was registered for private_key_jwt but Config.PrivateKey is nil")
		}
		a, err := clientAssertion(f.cfg.PrivateKey, c.ClientID, f.as.Issuer, time.Now())
		if err != nil {
			return err
		}
		form.Set("client_id", c.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", a)
	default:
		form.Set("client_id", c.ClientID)
	}
	return nil
}

// requestToken posts form to the authorization server's token endpoint
// with the client's authentication and, when the flow binds tokens to a
// DPoP key, a proof (retried once with the server's nonce when it asks
// for one, RFC 9449 §8).
func (f *flow) requestToken(ctx context.Context, form url.Values) (*Token, error) {
	endpoint := f.as.TokenEndpoint
	if endpoint == "" {
		return nil, fmt.Errorf("oauth: authorization server %s has no token endpoint", f.as.Issuer)
	}
	for attempt := 0; ; attempt++ {
		body := url.Values{}
		for k, v := range form {
			body[k] = v
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
		if err != nil {
			return nil, err
		}
		if err := f.authenticate(req, body); err != nil {
			return nil, err
		}
		if f.st.dpop != nil {
			p, err := f.st.dpop.proof(http.MethodPost, endpoint, f.st.asNonce(), "")
			if err != nil {
				return nil, err
			}
			req.Header.Set("DPoP", p)
		}
		tok, resp, err := postToken(f.hc, req, body)
		if err != nil {
			var te *TokenError
			if attempt == 0 && f.st.dpop != nil && asTokenError(err, &te) && te.Code == "use_dpop_nonce" && resp.Get("DPoP-Nonce") != "" {
				f.st.setASNonce(resp.Get("DPoP-Nonce"))
				continue
			}
			return nil, err
		}
		if tok.isDPoP() && f.st.dpop == nil {
			return nil, fmt.Errorf("oauth: %s issued a DPoP-bound token to a request without a proof", redactURL(endpoint))
		}
		if !tok.isDPoP() && !strings.EqualFold(tok.TokenType, "Bearer") {
			return nil, fmt.Errorf("oauth: %s issued a token of unsupported type %q", redactURL(endpoint), cut(tok.TokenType, 32))
		}
		if n := resp.Get("DPoP-Nonce"); n != "" && f.st.dpop != nil {
			f.st.setASNonce(n)
		}
		f.log.DebugContext(ctx, "oauth: token issued", "endpoint", redactURL(endpoint), "grant_type", form.Get("grant_type"), "token", *tok)
		return tok, nil
	}
}

// postToken sends a form-encoded token request and reads the answer.
// It returns the response headers in every case, for DPoP-Nonce.
func postToken(hc *http.Client, req *http.Request, form url.Values) (*Token, http.Header, error) {
	enc := form.Encode()
	req.Body = http.NoBody
	if enc != "" {
		req.Body = readCloser(enc)
		req.ContentLength = int64(len(enc))
		req.GetBody = func() (io.ReadCloser, error) { return readCloser(enc), nil }
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	endpoint := redactURL(req.URL.String())
	resp, err := noRedirects(hc).Do(req)
	if err != nil {
		return nil, http.Header{}, fmt.Errorf("oauth: %s: %w", endpoint, urlshow.Error(err))
	}
	defer resp.Body.Close()
	raw, err := readLimited(resp.Body)
	if err != nil {
		return nil, resp.Header, fmt.Errorf("oauth: %s: %w", endpoint, err)
	}
	var tr tokenResponse
	jerr := json.Unmarshal(raw, &tr)
	if resp.StatusCode/100 != 2 {
		return nil, resp.Header, &TokenError{Endpoint: endpoint, Status: resp.StatusCode, Code: cut(tr.Error, 64), Description: cut(tr.ErrorDescription, 200)}
	}
	if jerr != nil {
		return nil, resp.Header, fmt.Errorf("oauth: %s: response is not JSON: %w", endpoint, jerr)
	}
	if tr.AccessToken == "" {
		return nil, resp.Header, fmt.Errorf("oauth: %s: response has no access_token", endpoint)
	}
	if !sendableToken(tr.AccessToken) {
		// Not repeated: it is a secret, however malformed.
		return nil, resp.Header, fmt.Errorf("oauth: %s: the access_token cannot be sent in an Authorization header (%d bytes, printable ASCII without spaces at most %d)", endpoint, len(tr.AccessToken), maxTokenBytes)
	}
	tok := &Token{AccessToken: tr.AccessToken, TokenType: tr.TokenType, RefreshToken: tr.RefreshToken, Scope: tr.Scope}
	if tok.TokenType == "" {
		tok.TokenType = "Bearer"
	}
	if n, err := tr.ExpiresIn.Int64(); err == nil && n > 0 {
		// Past about 292 years the product overflows a Duration into the
		// past, and the token would be taken for expired at every use; a
		// lifetime past the bound is as good as none.
		if n < maxExpiresIn {
			tok.Expiry = time.Now().Add(time.Duration(n) * time.Second)
		}
	}
	return tok, resp.Header, nil
}

// maxTokenBytes bounds an access token: it goes in the header of every
// request, and servers refuse headers much larger.
const maxTokenBytes = 64 << 10

// sendableToken reports whether an access token can be sent as the
// credentials of an Authorization header: visible ASCII, no space, and
// not too large. Anything else (a line break would inject a header; a
// control character makes net/http refuse the request before it leaves)
// would, once stored, make every later request fail with an error that
// is not a 401, and the client would never authorize again.
func sendableToken(s string) bool {
	if len(s) > maxTokenBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// maxExpiresIn is the longest expires_in, in seconds, taken as an expiry
// (a hundred years); a longer one leaves the token without one.
const maxExpiresIn = 100 * 365 * 24 * 3600

func readCloser(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }

func asTokenError(err error, te **TokenError) bool { return errors.As(err, te) }

// cut tames text a server chose for an error message: at most n bytes
// of valid UTF-8, with control and format characters (a terminal's escape
// sequences, bidirectional overrides) replaced by "?". The text ends up
// on the user's terminal and in logs.
func cut(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			r = '?'
		}
		if b.Len()+utf8.RuneLen(r) > n {
			return b.String() + "..."
		}
		b.WriteRune(r)
	}
	return b.String()
}
