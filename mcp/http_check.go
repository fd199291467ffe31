package mcp

import (
	"encoding/base64"
	"encoding/json"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/winbridge/winbridge/transport"
)

// httpError is a refusal: an HTTP status and the JSON-RPC error in the body.
type httpError struct {
	status int
	id     json.RawMessage // nil: null
	err    *Error
}

func httpErr(status int, code int64, message string) *httpError {
	return &httpError{status: status, err: &Error{Code: code, Message: message}}
}

// withID names the request the refusal answers, when it is known.
func (e *httpError) withID(m *rpcMessage) *httpError {
	if m != nil && !m.id.IsZero() {
		e.id = m.id.Raw()
	}
	return e
}

// writeHTTPError writes e as a JSON-RPC error response.
func writeHTTPError(w http.ResponseWriter, e *httpError) {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *Error          `json:"error"`
	}{"2.0", id, e.err})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.status)
	_, _ = w.Write(body)
}

// checkHost refuses a Host header outside AllowedHosts.
func (h *HTTPHandler) checkHost(r *http.Request) *httpError {
	if hostAllowed(r.Host, h.opts.AllowedHosts) {
		return nil
	}
	return httpErr(http.StatusForbidden, CodeInvalidRequest, "forbidden: Host "+strconv.Quote(r.Host)+" is not allowed")
}

// checkOrigin refuses an Origin header outside AllowedOrigins. A request
// without Origin does not come from a web page and cannot be rebound.
func (h *HTTPHandler) checkOrigin(r *http.Request) *httpError {
	origin := r.Header.Get("Origin")
	if origin == "" || originAllowed(origin, h.opts.AllowedOrigins) {
		return nil
	}
	return httpErr(http.StatusForbidden, CodeInvalidRequest, "forbidden: Origin "+strconv.Quote(origin)+" is not allowed")
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
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// accepts reports whether the Accept header admits media type typ
// ("type/subtype"), wildcards included; q=0 excludes.
func accepts(r *http.Request, typ string) bool {
	major, _, _ := strings.Cut(typ, "/")
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
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

// isJSON reports whether the Content-Type is application/json (any
// parameters, such as charset, allowed).
func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// rpcMessage is a POST body checked enough to route it: the stream of the
// session that receives it validates it in full.
type rpcMessage struct {
	raw      []byte
	id       transport.ID // zero for notifications
	method   string
	response bool
	params   map[string]json.RawMessage
	meta     map[string]json.RawMessage
}

func (m *rpcMessage) isRequest() bool { return !m.response && !m.id.IsZero() }

// metaString returns a string entry of the params' _meta.
func (m *rpcMessage) metaString(key string) (string, bool) {
	var s string
	raw, ok := m.meta[key]
	if !ok || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// nameValue returns what the Mcp-Name header must repeat for methods that
// have one: the tool or prompt name, the resource URI.
func (m *rpcMessage) nameValue() (string, bool) {
	var key string
	switch m.method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	default:
		return "", false
	}
	var s string
	raw, ok := m.params[key]
	if !ok || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// parseMessage checks that body is one JSON-RPC message. Batches are
// refused: the transport carries one message per POST since 2025-06-18.
func parseMessage(body []byte) (*rpcMessage, *httpError) {
	bad := func(code int64, msg string) (*rpcMessage, *httpError) {
		return nil, httpErr(http.StatusBadRequest, code, msg)
	}
	t := strings.TrimLeft(string(body), " \t\r\n")
	switch {
	case !utf8.Valid(body):
		return bad(CodeParseError, "parse error: body is not valid UTF-8")
	case !json.Valid(body):
		return bad(CodeParseError, "parse error: body is not valid JSON")
	case strings.HasPrefix(t, "["):
		return bad(CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; POST one message per request")
	case !strings.HasPrefix(t, "{"):
		return bad(CodeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return bad(CodeParseError, "parse error: "+err.Error())
	}
	m := &rpcMessage{raw: body}
	if raw, ok := top["id"]; ok {
		id, err := transport.ParseID(raw)
		if err != nil {
			return bad(CodeInvalidRequest, "invalid request: id must be a string or an integer")
		}
		m.id = id
	}
	rawMethod, hasMethod := top["method"]
	_, hasResult := top["result"]
	_, hasError := top["error"]
	switch {
	case hasMethod:
		if json.Unmarshal(rawMethod, &m.method) != nil {
			return nil, httpErr(http.StatusBadRequest, CodeInvalidRequest, `invalid request: member "method" must be a string`).withID(m)
		}
	case hasResult || hasError:
		if m.id.IsZero() {
			return bad(CodeInvalidRequest, "invalid request: a response needs an id")
		}
		m.response = true
	default:
		return nil, httpErr(http.StatusBadRequest, CodeInvalidRequest, `invalid request: a message needs "method" or "result"/"error"`).withID(m)
	}
	if p, ok := top["params"]; ok && len(p) > 0 && p[0] == '{' {
		_ = json.Unmarshal(p, &m.params)
		if mt, ok := m.params["_meta"]; ok && len(mt) > 0 && mt[0] == '{' {
			_ = json.Unmarshal(mt, &m.meta)
		}
	}
	return m, nil
}

// headerValue returns a standard header's value without surrounding white
// space (RFC 9110 §5.5), decoding the "=?base64?…?=" form that carries
// values HTTP cannot hold as they are.
func headerValue(r *http.Request, name string) (string, bool) {
	vs := r.Header.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	v := strings.TrimSpace(vs[0])
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
		if err != nil {
			return v, true
		}
		return string(b), true
	}
	return v, true
}

// statusOf is the HTTP status of a stateless JSON response: errors the
// transport specification pins (unknown method 404; bad params, headers,
// versions 400) and internal errors 500; everything else 200.
func statusOf(resp []byte) int {
	var m struct {
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(resp, &m) != nil || m.Error == nil {
		return http.StatusOK
	}
	switch m.Error.Code {
	case CodeMethodNotFound:
		return http.StatusNotFound
	case CodeParseError, CodeInvalidRequest, CodeInvalidParams, CodeHeaderMismatch, CodeMissingClientCapability, CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case CodeInternalError:
		return http.StatusInternalServerError
	}
	return http.StatusOK
}
