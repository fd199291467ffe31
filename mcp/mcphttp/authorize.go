package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// AuthInfo is what a TokenVerifier learned of a request's access token.
// RequireAuth puts it in the request's context (AuthFromContext) and the
// Handler keeps the one that opened a session (SessionAuth). It holds no
// token.
type AuthInfo struct {
	Subject  string         // the user or workload the token speaks for
	ClientID string         // the OAuth client it was issued to (one of the two is required)
	Scopes   []string       // the scopes it grants
	Expiry   time.Time      // zero: no expiry known
	Extra    map[string]any // whatever else the verifier wants handlers to see
}

// TokenVerifier checks an access token (its signature, issuer, audience =
// this resource, expiry) and says what it grants. An error wrapping
// ErrInvalidToken answers 401 invalid_token; any other error answers 500
// without its text.
type TokenVerifier interface {
	VerifyToken(ctx context.Context, token string) (*AuthInfo, error)
}

// TokenVerifierFunc adapts a function to TokenVerifier.
type TokenVerifierFunc func(ctx context.Context, token string) (*AuthInfo, error)

// VerifyToken implements TokenVerifier.
func (f TokenVerifierFunc) VerifyToken(ctx context.Context, token string) (*AuthInfo, error) {
	return f(ctx, token)
}

// ErrInvalidToken is what a TokenVerifier wraps to refuse a token.
var ErrInvalidToken = errors.New("mcphttp: invalid access token")

// AuthOptions configure RequireAuth.
type AuthOptions struct {
	// Verifier checks each token; required.
	Verifier TokenVerifier
	// ResourceMetadataURL is the URL of this resource's protected
	// resource metadata (ResourceMetadataHandler serves it), sent in every
	// challenge so clients find the authorization server (RFC 9728 §5.1).
	ResourceMetadataURL string
	// Scopes are required of every request's token: one lacking any gets
	// 403 insufficient_scope naming them. They are also the scope of the
	// 401 challenge.
	Scopes []string
	// ScopesFor adds the scopes one call requires, for step-up
	// authorization: a token lacking them gets 403 insufficient_scope
	// naming them, and the client asks for more. It is called only for
	// 2026-07-28 requests, with the method and name (tool, prompt or
	// resource URI) of their Mcp-Method and Mcp-Name headers, which the
	// Handler refuses when they differ from the body; a legacy request
	// carries nothing trustworthy to go by before its body is read, and
	// needs Scopes only.
	ScopesFor func(method, name string) []string
}

type authKey struct{}

// AuthFromContext returns what RequireAuth verified of the request whose
// context ctx is, or nil.
func AuthFromContext(ctx context.Context) *AuthInfo {
	a, _ := ctx.Value(authKey{}).(*AuthInfo)
	return a
}

// RequireAuth returns middleware that admits a request only with an
// access token (Authorization: Bearer) that opts.Verifier accepts, not
// expired, granting opts.Scopes; it passes the AuthInfo on in the
// request's context. A request without a valid token gets 401 with
// WWW-Authenticate: Bearer resource_metadata=..., scope=... (and
// error="invalid_token" when it sent one); a valid token lacking a scope
// gets 403 error="insufficient_scope". Refused requests have their body
// left unread and their connection closed. It panics without a Verifier.
//
// The verifier must name a Subject or, for a token with no user, a
// ClientID: one naming neither is a 500, since everything is bound to
// the pair. A token of anything but visible ASCII, or longer than 16 KiB,
// is invalid_token without reaching the verifier. A request that opens a
// stream with no end of its own (a GET, a subscriptions/listen) ends at
// its token's Expiry, and the client reconnects with a fresh token.
//
// Put it around a Handler: the Handler then binds each session to the
// subject and client that opened it, and refuses the session's requests
// made with another's token (403), so a leaked session ID is not a way
// into another user's session.
func RequireAuth(opts AuthOptions, next http.Handler) http.Handler {
	if opts.Verifier == nil {
		panic("mcphttp: RequireAuth without a Verifier")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The scopes this request needs, named in every challenge so that
		// a client asks for them at once.
		o := opts
		if opts.ScopesFor != nil {
			if hv, _ := headerValue(r, HeaderProtocolVersion); mcp.IsStateless(hv) {
				// Read as checkStateless reads them to compare them with
				// the body: these are then the body's method and name.
				method, _, _ := strictHeaderValue(r, HeaderMethod)
				name, _, _ := strictHeaderValue(r, HeaderName)
				o.Scopes = append(slices.Clone(opts.Scopes), opts.ScopesFor(method, name)...)
			}
		}
		tok, ok := bearer(r)
		if !ok {
			refuse(w, r, http.StatusUnauthorized, challenge(o, ""), "unauthorized: send Authorization: Bearer <access token>")
			return
		}
		if !wellFormedToken(tok) {
			refuse(w, r, http.StatusUnauthorized, challenge(o, "invalid_token"), "unauthorized: the access token is not valid")
			return
		}
		info, err := opts.Verifier.VerifyToken(r.Context(), tok)
		switch {
		case errors.Is(err, ErrInvalidToken):
			refuse(w, r, http.StatusUnauthorized, challenge(o, "invalid_token"), "unauthorized: the access token is not valid")
			return
		case err != nil || info == nil:
			refuse(w, r, http.StatusInternalServerError, "", "internal error: the access token could not be verified")
			return
		case info.Subject == "" && info.ClientID == "":
			// Sessions and tasks are bound to the subject and client
			// (a client credentials token may have only the client):
			// every token naming neither would share them.
			refuse(w, r, http.StatusInternalServerError, "", "internal error: the access token names no subject or client")
			return
		case !info.Expiry.IsZero() && time.Now().After(info.Expiry):
			refuse(w, r, http.StatusUnauthorized, challenge(o, "invalid_token"), "unauthorized: the access token expired")
			return
		}
		for _, s := range o.Scopes {
			if !slices.Contains(info.Scopes, s) {
				refuse(w, r, http.StatusForbidden, challenge(o, "insufficient_scope"), "forbidden: the access token lacks scope "+strconv.Quote(s))
				return
			}
		}
		ctx := context.WithValue(r.Context(), authKey{}, info)
		if !info.Expiry.IsZero() && endless(r) {
			// Checked only as it opened, a stream would go on serving
			// its token's holder long after the token expired (or was
			// meant to have been replaced): it ends with the token, and
			// the client reconnects with a fresh one.
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, info.Expiry)
			defer cancel()
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// endless reports whether r opens a stream that has no end of its own:
// a legacy session's GET stream, which lives as long as the session, or
// a 2026-07-28 subscriptions/listen. Its Mcp-Method header is checked
// against the body by the Handler; a request that names the method
// falsely only shortens its own life.
func endless(r *http.Request) bool {
	if r.Method == http.MethodGet {
		return true
	}
	m, _, _ := strictHeaderValue(r, HeaderMethod)
	return m == "subscriptions/listen"
}

// maxTokenBytes bounds the access tokens handed to the verifier: a JWT
// with many claims runs to a few KiB, and nothing longer (up to the
// header limit, 1 MiB by default) should be parsed, or sent on to an
// introspection endpoint, on behalf of a request not yet authorized.
const maxTokenBytes = 16 << 10

// wellFormedToken reports whether tok may be an access token: at most
// maxTokenBytes of visible ASCII. RFC 6750's b64token is narrower still,
// but authorization servers issue opaque tokens with other visible
// characters; whitespace, control bytes and non-ASCII are no token's,
// and a verifier that logs or forwards its input must not be handed them.
func wellFormedToken(tok string) bool {
	if len(tok) > maxTokenBytes {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// challenge is the WWW-Authenticate value of a refusal.
func challenge(opts AuthOptions, code string) string {
	var parts []string
	if code != "" {
		parts = append(parts, `error="`+code+`"`)
	}
	if len(opts.Scopes) > 0 {
		parts = append(parts, "scope="+quote(strings.Join(opts.Scopes, " ")))
	}
	if opts.ResourceMetadataURL != "" {
		parts = append(parts, "resource_metadata="+quote(opts.ResourceMetadataURL))
	}
	if len(parts) == 0 {
		return "Bearer"
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// quote makes a quoted-string (RFC 9110 §5.6.4).
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func refuse(w http.ResponseWriter, r *http.Request, status int, challenge, msg string) {
	if challenge != "" {
		w.Header().Set("WWW-Authenticate", challenge)
	}
	// The body of a refused request is not read: a client that trickles
	// it must not hold the connection.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	code := int64(mcp.CodeInvalidRequest)
	if status == http.StatusInternalServerError {
		code = mcp.CodeInternalError
	}
	e := httpErr(status, code, msg)
	e.close = closes(r)
	writeHTTPError(w, e)
}

// ResourceMetadataHandler serves m, this resource's protected resource
// metadata (RFC 9728), as JSON to GET (any origin may read it, as
// browsers' clients need). Mount it at ResourceMetadataPath(m.Resource).
// It panics if m names no resource or no authorization server.
func ResourceMetadataHandler(m *oauth.ResourceMetadata) http.Handler {
	if m == nil || m.Resource == "" || len(m.AuthorizationServers) == 0 {
		panic("mcphttp: ResourceMetadataHandler needs a resource and an authorization server")
	}
	body, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=3600")
		_, _ = w.Write(body)
	})
}

// ResourceMetadataPath is the well-known path of the metadata of the
// resource identifier resource (RFC 9728 §3.1):
// "/.well-known/oauth-protected-resource" followed by its path, so
// "https://h/mcp" has "/.well-known/oauth-protected-resource/mcp".
func ResourceMetadataPath(resource string) string {
	p := ""
	if u, err := url.Parse(resource); err == nil {
		p = strings.TrimSuffix(u.Path, "/")
	}
	return "/.well-known/oauth-protected-resource" + p
}

// bindAuth records the identity of the request that opens s.
func (s *httpSession) bindAuth(r *http.Request) {
	if a := AuthFromContext(r.Context()); a != nil {
		s.auth = a
		s.ss.SetAuth(a)
		s.ss.BindPrincipal(principalOf(a))
	}
}

// principalOf is the principal tasks are bound to: the subject and the
// client, as a session is (sameIdentity). Quoting keeps the two apart, so
// no subject can end in a client's name and meet another pair.
func principalOf(a *AuthInfo) string {
	return strconv.Quote(a.Subject) + " " + strconv.Quote(a.ClientID)
}

// sameIdentity reports whether r may use s: a session opened without
// authorization is open to all; one opened with a token only to tokens of
// the same subject and client. An admitted request's AuthInfo becomes the
// session's latest (its scopes may have grown by a step-up).
func (s *httpSession) sameIdentity(r *http.Request) bool {
	if s.auth == nil {
		return true
	}
	a := AuthFromContext(r.Context())
	if a == nil || a.Subject != s.auth.Subject || a.ClientID != s.auth.ClientID {
		return false
	}
	s.ss.SetAuth(a)
	return true
}

// SessionAuth returns what RequireAuth verified of the latest request in
// ss (for a 2026-07-28 stateless request, whose session is the request,
// of that request), or nil. Every request of a session has the subject
// and client of the one that opened it; the scopes and expiry are those
// of the latest token. Tool handlers reach it through
// req.Session:
//
//	info := mcphttp.SessionAuth(req.Session)
//
// It is kept with ss, not with its connection: the handler of a task
// sees it after the request that started the task has ended.
func SessionAuth(ss *mcp.ServerSession) *AuthInfo {
	if ss == nil {
		return nil
	}
	info, _ := ss.Auth().(*AuthInfo)
	return info
}
