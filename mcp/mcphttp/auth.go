package mcphttp

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// RequireBearer returns middleware that passes a request to next only if
// it carries "Authorization: Bearer <token>". Others get 401 with
// WWW-Authenticate: Bearer and a JSON-RPC error, and their connection is
// closed without reading their body. The comparison takes the same time
// whatever the token sent, so timing does not reveal it. It panics if
// token is empty, which would admit anyone.
//
// A bearer token is only as private as the connection: over plain HTTP
// anyone on the path can read it, so off loopback serve it over TLS or a
// network you trust.
func RequireBearer(token string, next http.Handler) http.Handler {
	if token == "" {
		panic("mcphttp: RequireBearer with an empty token")
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r)
		// Hashing first makes the comparison independent of the
		// lengths too.
		sum := sha256.Sum256([]byte(got))
		if ok && subtle.ConstantTimeCompare(sum[:], want[:]) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		challenge := `Bearer realm="mcp"`
		msg := "unauthorized: send Authorization: Bearer <token>"
		if ok {
			challenge += `, error="invalid_token"`
			msg = "unauthorized: the bearer token is not valid"
		}
		w.Header().Set("WWW-Authenticate", challenge)
		// The body of a refused request is not read: a client that
		// trickles it must not hold the connection.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
		e := httpErr(http.StatusUnauthorized, mcp.CodeInvalidRequest, msg)
		e.close = closes(r)
		writeHTTPError(w, e)
	})
}

// bearer returns the token of an Authorization header of the Bearer
// scheme (the scheme name is case-insensitive, RFC 9110 §11.1). A request
// with two Authorization headers has none: the field holds one
// credential, and a proxy in front may have checked the other one.
func bearer(r *http.Request) (string, bool) {
	vs := r.Header["Authorization"]
	if len(vs) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(vs[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
