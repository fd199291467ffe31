package mcphttp

import (
	"encoding/json"
	"errors"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// httpError is a refusal: an HTTP status and the JSON-RPC error in the body.
type httpError struct {
	status     int
	id         json.RawMessage // nil: null
	err        *mcp.Error
	retryAfter time.Duration // a Retry-After header, rounded up to seconds
	close      bool          // Connection: close, when the body is left unread
}

// badVersion is the 400 answer to a protocol version the server does not
// offer; err is Server.CheckVersion's refusal.
func badVersion(err error) *httpError {
	var e *mcp.Error
	if !errors.As(err, &e) {
		e = &mcp.Error{Code: mcp.CodeInvalidRequest, Message: err.Error()}
	}
	return &httpError{status: http.StatusBadRequest, err: e}
}

func httpErr(status int, code int64, message string) *httpError {
	return &httpError{status: status, err: &mcp.Error{Code: code, Message: message}}
}

// withID names the request the refusal answers, when it is known.
func (e *httpError) withID(m *rpcMessage) *httpError {
	if m != nil && !m.id.IsZero() {
		e.id = m.id.Raw()
	}
	return e
}

// closes is the close of a refusal of r that leaves its body unread:
// over HTTP/1.1 the connection closes after the answer (Connection:
// close), so that the rest of the body does not hold it. Over HTTP/2 the
// stream's unread body is reset on its own (RST_STREAM NO_ERROR once the
// answer is sent), and Connection: close would make net/http send GOAWAY,
// turning away every new stream of a connection other clients may share
// (a proxy's), and making the client reconnect for each refusal.
func closes(r *http.Request) bool { return r.ProtoMajor < 2 }

// writeHTTPError writes e as a JSON-RPC error response.
func writeHTTPError(w http.ResponseWriter, e *httpError) {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *mcp.Error      `json:"error"`
	}{"2.0", id, e.err})
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	if e.retryAfter > 0 {
		hd.Set("Retry-After", strconv.FormatInt(int64((e.retryAfter+time.Second-1)/time.Second), 10))
	}
	if e.close {
		hd.Set("Connection", "close")
	}
	w.WriteHeader(e.status)
	_, _ = w.Write(body)
}

// checkHost refuses a Host header outside AllowedHosts.
func (h *Handler) checkHost(r *http.Request) *httpError {
	if hostAllowed(r.Host, h.opts.AllowedHosts) {
		return nil
	}
	return httpErr(http.StatusForbidden, mcp.CodeInvalidRequest, "forbidden: Host "+strconv.Quote(r.Host)+" is not allowed")
}

// checkOrigin refuses an Origin header outside AllowedOrigins. A request
// without Origin does not come from a web page and cannot be rebound.
func (h *Handler) checkOrigin(r *http.Request) *httpError {
	origin := r.Header.Get("Origin")
	if origin == "" || originAllowed(origin, h.opts.AllowedOrigins) {
		return nil
	}
	return httpErr(http.StatusForbidden, mcp.CodeInvalidRequest, "forbidden: Origin "+strconv.Quote(origin)+" is not allowed")
}

func hostAllowed(host string, allowed []string) bool {
	name, port := splitHost(host)
	if allowed == nil {
		return isLoopback(name)
	}
	for _, a := range allowed {
		if a == "*" {
			return true
		}
		an, ap := splitHost(a)
		if strings.EqualFold(an, name) && (ap == "" || ap == port) {
			return true
		}
	}
	return false
}

// splitHost splits "name:port", "[v6]:port", "name" or a bare IPv6 address.
func splitHost(s string) (name, port string) {
	if n, p, err := net.SplitHostPort(s); err == nil {
		return n, p
	}
	return strings.Trim(s, "[]"), ""
}

func originAllowed(origin string, allowed []string) bool {
	if allowed == nil {
		u, err := url.Parse(origin)
		return err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopback(u.Hostname())
	}
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	return false
}

func isLoopback(name string) bool {
	switch name {
	case "127.0.0.1", "::1":
		// What loopback clients send, every request: known without
		// net.ParseIP, which allocates the address it parses.
		return true
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// accepts reports whether the Accept header admits media type typ
// ("type/subtype"), wildcards included; q=0 excludes.
func accepts(r *http.Request, typ string) bool {
	// What clients of this transport send, checked three times per POST:
	// compared whole before it is parsed.
	if vs := r.Header["Accept"]; len(vs) == 1 && (vs[0] == acceptBoth || vs[0] == acceptBothSSEFirst) &&
		(typ == "application/json" || typ == "text/event-stream") {
		return true
	}
	major, _, _ := strings.Cut(typ, "/")
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, err := parseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
					continue
				}
			}
			if mt == typ || mt == "*/*" || mt == major+"/*" {
				return true
			}
		}
	}
	return false
}

// The Accept headers of Streamable HTTP clients (accepts' fast path).
const (
	acceptBoth         = "application/json, text/event-stream"
	acceptBothSSEFirst = "text/event-stream, application/json"
)

// isJSON reports whether the Content-Type is application/json in UTF-8:
// parameters are allowed, but a charset other than UTF-8 is not, since the
// body is read as UTF-8 whatever it declares (RFC 8259 requires it), and a
// proxy or filter that honoured the charset would read another message.
func isJSON(r *http.Request) bool {
	mt, params, err := parseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "utf8")
}

// unencoded reports whether the body has no content coding (or only
// identity). The handler decodes none: a body declared gzip would be read
// as the bytes sent, and what a proxy or filter in front decoded would not
// be what was served.
func unencoded(r *http.Request) bool {
	for _, v := range r.Header.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return false
			}
		}
	}
	return true
}

// parseMediaType is mime.ParseMediaType with a fast path for what every
// request carries several times (Accept, Content-Type): a lowercase
// type/subtype of token characters and no parameters, which it would
// return unchanged after allocating a map and a lowercased copy.
func parseMediaType(v string) (string, map[string]string, error) {
	if plainMediaType(v) {
		return v, nil, nil
	}
	return mime.ParseMediaType(v)
}

// plainMediaType reports whether v is "type/subtype" of lowercase token
// characters (RFC 9110 tchar), with nothing else.
func plainMediaType(v string) bool {
	slash := -1
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '/':
			if slash >= 0 {
				return false
			}
			slash = i
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return slash > 0 && slash < len(v)-1
}
