package mcphttp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/winbridge/winbridge/internal/jsonscan"
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
	params   map[string]json.RawMessage
	meta     map[string]json.RawMessage
}

func (m *rpcMessage) isRequest() bool { return !m.response && !m.id.IsZero() }

// metaString returns a string entry of the params' _meta.
func (m *rpcMessage) metaString(key string) (string, bool) {
	raw, ok := m.meta[key]
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
	return jsonscan.Unquote(raw)
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
	raw, ok := m.params[key]
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
	t := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case !utf8.Valid(body):
		return bad(mcp.CodeParseError, "parse error: body is not valid UTF-8")
	case !jsonscan.Valid(body):
		return bad(mcp.CodeParseError, "parse error: body is not valid JSON")
	case len(t) > 0 && t[0] == '[':
		return bad(mcp.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; POST one message per request")
	case len(t) == 0 || t[0] != '{':
		return bad(mcp.CodeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object")
	}
	// The body is valid JSON: the scanner splits it without decoding the
	// values, as encoding/json into a map would (the last of duplicate
	// keys wins), at a fraction of the cost on every POST.
	top := members(body)
	m := &rpcMessage{raw: body}
	if raw, ok := top["id"]; ok {
		id, err := transport.ParseID(raw)
		if err != nil {
			return bad(mcp.CodeInvalidRequest, "invalid request: id must be a string or an integer")
		}
		m.id = id
	}
	rawMethod, hasMethod := top["method"]
	_, hasResult := top["result"]
	_, hasError := top["error"]
	switch {
	case hasMethod:
		if json.Unmarshal(rawMethod, &m.method) != nil {
			return nil, httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest, `invalid request: member "method" must be a string`).withID(m)
		}
	case hasResult || hasError:
		if m.id.IsZero() {
			return bad(mcp.CodeInvalidRequest, "invalid request: a response needs an id")
		}
		m.response = true
	default:
		return nil, httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest, `invalid request: a message needs "method" or "result"/"error"`).withID(m)
	}
	if p, ok := top["params"]; ok && len(p) > 0 && p[0] == '{' {
		m.params = members(p)
		if mt, ok := m.params["_meta"]; ok && len(mt) > 0 && mt[0] == '{' {
			m.meta = members(mt)
		}
	}
	return m, nil
}

// members splits a valid JSON object into its members; the values alias b.
func members(b []byte) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	_ = jsonscan.MembersBytes(b, func(k, v []byte) bool {
		out[memberKey(k)] = v
		return true
	})
	return out
}

// memberKey is k as a string, without a new string for the keys every
// message has: those were a dozen allocations per POST.
func memberKey(k []byte) string {
	switch string(k) { // compared, not converted: no allocation
	case "jsonrpc":
		return "jsonrpc"
	case "id":
		return "id"
	case "method":
		return "method"
	case "params":
		return "params"
	case "result":
		return "result"
	case "error":
		return "error"
	case "name":
		return "name"
	case "arguments":
		return "arguments"
	case "uri":
		return "uri"
	case "taskId":
		return "taskId"
	case "_meta":
		return "_meta"
	case mcp.MetaProtocolVersion:
		return mcp.MetaProtocolVersion
	case mcp.MetaClientInfo:
		return mcp.MetaClientInfo
	case mcp.MetaClientCapabilities:
		return mcp.MetaClientCapabilities
	case mcp.MetaLogLevel:
		return mcp.MetaLogLevel
	case mcp.MetaProgressToken:
		return mcp.MetaProgressToken
	}
	return string(k)
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
