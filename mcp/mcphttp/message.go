package mcphttp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/internal/wirenames"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// rpcMessage is a POST body checked enough to route it: the stream of the
// session that receives it validates it in full.
type rpcMessage struct {
	raw      []byte
	id       transport.ID // zero for notifications
	method   string
	response bool
	params   rawObject // members of params, when it is an object
	meta     rawObject // members of params._meta, when it is an object
	// mem backs params and meta for messages of up to len(mem) members
	// in both together, as nearly all are: maps cost three allocations
	// and a kilobyte per POST.
	mem [8]rawMember
}

// rawMember is one member of a JSON object: key and value alias the body
// (a key with escapes is decoded into bytes of its own).
type rawMember struct {
	key, value []byte
}

// rawObject is the members of a JSON object in order, duplicates kept;
// lookups find the last of duplicate keys, as encoding/json into a map
// keeps the last. Objects here have a handful of members: a linear search
// is faster than hashing.
type rawObject []rawMember

// get returns the value of the member key, and whether there is one.
func (o rawObject) get(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if string(o[i].key) == key {
			return o[i].value, true
		}
	}
	return nil, false
}

// field returns the member that encoding/json decodes into a struct field
// named key, as the server decodes params: the last whose key equals key
// ignoring case (bytes.EqualFold is how encoding/json folds names). The
// headers are checked against the member the server acts on, so that
// {"name":"a","NAME":"b"} cannot show intermediaries one tool and run
// another.
func (o rawObject) field(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if bytes.EqualFold(o[i].key, []byte(key)) {
			return o[i].value, true
		}
	}
	return nil, false
}

// has reports whether the object has a member key.
func (o rawObject) has(key string) bool {
	_, ok := o.get(key)
	return ok
}

func (m *rpcMessage) isRequest() bool { return !m.response && !m.id.IsZero() }

// metaString returns a string entry of the params' _meta.
func (m *rpcMessage) metaString(key string) (string, bool) {
	raw, ok := m.meta.get(key)
	if !ok {
		return "", false
	}
	return rawString(raw)
}

// rawString decodes a raw JSON value, already checked valid, as
// json.Unmarshal decodes it into a string: null leaves it empty, and
// anything but a string fails.
func rawString(raw []byte) (string, bool) {
	if string(raw) == "null" {
		return "", true
	}
	return wirenames.Unquote(raw)
}

// nameValue returns what the Mcp-Name header must repeat for methods that
// have one: the tool or prompt name, the resource URI, the task ID.
func (m *rpcMessage) nameValue() (string, bool) {
	var key string
	switch m.method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		key = "taskId"
	default:
		return "", false
	}
	raw, ok := m.params.field(key)
	if !ok {
		return "", false
	}
	return rawString(raw)
}

// parseMessage checks that body is one JSON-RPC message. Batches are
// refused: the transport carries one message per POST since 2025-06-18.
func parseMessage(body []byte) (*rpcMessage, *httpError) {
	bad := func(code int64, msg string) (*rpcMessage, *httpError) {
		return nil, httpErr(http.StatusBadRequest, code, msg)
	}
	if !utf8.Valid(body) {
		return bad(mcp.CodeParseError, "parse error: body is not valid UTF-8")
	}
	// The scanner checks the body as it splits it, without decoding the
	// values, as encoding/json into a map would (the last of duplicate
	// keys wins), at a fraction of the cost on every POST.
	var rawID, rawMethod, rawParams []byte
	var hasID, hasMethod, hasResult, hasError bool
	valid := jsonscan.MembersValid(body, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			rawID, hasID = v, true
		case "method":
			rawMethod, hasMethod = v, true
		case "params":
			rawParams = v
		case "result":
			hasResult = true
		case "error":
			hasError = true
		}
		return true
	})
	t := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case !valid:
		return bad(mcp.CodeParseError, "parse error: body is not valid JSON")
	case len(t) > 0 && t[0] == '[':
		return bad(mcp.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; POST one message per request")
	case len(t) == 0 || t[0] != '{':
		return bad(mcp.CodeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object")
	}
	m := &rpcMessage{raw: body}
	if hasID {
		id, err := transport.ParseID(rawID)
		if err != nil {
			return bad(mcp.CodeInvalidRequest, "invalid request: id must be a string or an integer")
		}
		m.id = id
	}
	switch {
	case hasMethod:
		method, ok := rawString(rawMethod)
		if !ok {
			return nil, httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest, `invalid request: member "method" must be a string`).withID(m)
		}
		m.method = method
	case hasResult || hasError:
		if m.id.IsZero() {
			return bad(mcp.CodeInvalidRequest, "invalid request: a response needs an id")
		}
		m.response = true
	default:
		return nil, httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest, `invalid request: a message needs "method" or "result"/"error"`).withID(m)
	}
	if len(rawParams) > 0 && rawParams[0] == '{' {
		m.params = appendMembers(m.mem[:0], rawParams)
		// Capped, so that meta's members, appended after, never
		// overwrite params' should params grow.
		m.params = m.params[:len(m.params):len(m.params)]
		if mt, ok := m.params.field("_meta"); ok && len(mt) > 0 && mt[0] == '{' {
			if len(m.params) >= len(m.mem) {
				m.meta = appendMembers(nil, mt)
			} else {
				m.meta = appendMembers(m.mem[len(m.params):len(m.params)], mt)
			}
		}
	}
	return m, nil
}

// appendMembers appends the members of b, a valid JSON object, to o.
func appendMembers(o rawObject, b []byte) rawObject {
	_ = jsonscan.MembersBytes(b, func(k, v []byte) bool {
		o = append(o, rawMember{k, v})
		return true
	})
	return o
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

// strictHeaderValue returns the first value of a standard header that is
// checked against the body, decoded as an Mcp-Param-* value is
// (decodeParamHeader): a =?base64?...?= wrapper holds strict, padded
// Base64. valid is false when it does not; headerValue would take such a
// value as it is, or decode Base64 that a strict decoder refuses.
func strictHeaderValue(r *http.Request, name string) (v string, present, valid bool) {
	vs := r.Header.Values(name)
	if len(vs) == 0 {
		return "", false, false
	}
	v, valid = decodeParamHeader(vs[0])
	return v, true, valid
}

// statusOfCode is the HTTP status of a stateless response's error code:
// errors the transport specification pins (unknown method 404; bad
// params, headers, versions 400) and internal errors 500; others 200.
func statusOfCode(code int64) int {
	switch code {
	case mcp.CodeMethodNotFound:
		return http.StatusNotFound
	case mcp.CodeParseError, mcp.CodeInvalidRequest, mcp.CodeInvalidParams, mcp.CodeHeaderMismatch, mcp.CodeMissingClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case mcp.CodeInternalError:
		return http.StatusInternalServerError
	}
	return http.StatusOK
}
