package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Error codes the stream itself answers with (JSON-RPC 2.0, section 5.1).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// kind classifies a decoded message.
type kind uint8

const (
	kindRequest kind = iota + 1
	kindNotification
	kindResponse
)

// envelope is a JSON-RPC message split into its members, each still raw
// JSON. Members are matched case-sensitively, unlike encoding/json's struct
// decoding, because JSON-RPC member names are exact.
type envelope struct {
	kind   kind
	id     ID
	method json.RawMessage // the JSON string, as received
	params json.RawMessage
	result json.RawMessage
	errObj json.RawMessage
}

// rejection is a message the stream answers with an error itself.
type rejection struct {
	id      ID // zero: answer with id null
	code    int64
	message string
}

func (r *rejection) Error() string { return r.message }

// decodeEnvelope validates one message. A returned *rejection says how to
// answer it; any other error is not possible.
func decodeEnvelope(b []byte) (envelope, *rejection) {
	var env envelope
	if !utf8.Valid(b) {
		return env, &rejection{code: CodeParseError, message: "parse error: message is not valid UTF-8"}
	}
	switch b[0] {
	case '{':
	case '[':
		if !json.Valid(b) {
			return env, &rejection{code: CodeParseError, message: "parse error: invalid JSON"}
		}
		return env, &rejection{code: CodeInvalidRequest, message: "invalid request: JSON-RPC batches are not supported; send each message on its own line"}
	default:
		if !json.Valid(b) {
			return env, &rejection{code: CodeParseError, message: "parse error: invalid JSON"}
		}
		return env, &rejection{code: CodeInvalidRequest, message: "invalid request: a JSON-RPC message must be a JSON object"}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return env, &rejection{code: CodeParseError, message: "parse error: " + trimJSONErr(err)}
	}
	// Recover the id first so that every later rejection can name it.
	if raw, ok := m["id"]; ok {
		id, err := ParseID(raw)
		if err != nil {
			return env, &rejection{code: CodeInvalidRequest, message: "invalid request: id must be a string or an integer, not " + describeJSON(raw)}
		}
		env.id = id
	}
	reject := func(format string, args ...any) (envelope, *rejection) {
		return env, &rejection{id: env.id, code: CodeInvalidRequest, message: "invalid request: " + fmt.Sprintf(format, args...)}
	}
	if v, ok := m["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return reject(`member "jsonrpc" must be "2.0"`)
	}
	method, hasMethod := m["method"]
	result, hasResult := m["result"]
	errObj, hasError := m["error"]
	switch {
	case hasMethod:
		if hasResult || hasError {
			return reject(`a message cannot have both "method" and "result" or "error"`)
		}
		if len(method) == 0 || method[0] != '"' {
			return reject(`member "method" must be a string`)
		}
		env.method = method
		if p, ok := m["params"]; ok && string(p) != "null" {
			if p[0] != '{' && p[0] != '[' {
				return reject(`member "params" must be an object or an array`)
			}
			env.params = p
		}
		if _, ok := m["id"]; ok {
			env.kind = kindRequest
		} else {
			env.kind = kindNotification
		}
	case hasResult || hasError:
		if _, ok := m["id"]; !ok {
			return reject(`a response must have an "id"`)
		}
		if hasResult && hasError {
			return reject(`a response cannot have both "result" and "error"`)
		}
		env.kind = kindResponse
		env.result = result
		if hasError {
			env.errObj = normalizeError(errObj)
		}
	default:
		return reject(`a message needs "method" (a request or notification) or "result"/"error" (a response)`)
	}
	return env, nil
}

// normalizeError makes sure an error member has an integer code and a string
// message, so that jsonrpc2 can decode it; a malformed one becomes an
// internal error that carries the original as data.
func normalizeError(raw json.RawMessage) json.RawMessage {
	var e struct {
		Code    *json.Number    `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Code != nil && e.Message != nil && isJSONInteger([]byte(*e.Code)) {
		if _, err := e.Code.Int64(); err == nil {
			return raw
		}
	}
	b, _ := json.Marshal(map[string]any{"code": CodeInternalError, "message": "peer sent a malformed error object", "data": raw})
	return b
}

// recoverID looks for the top-level "id" of a truncated message, so that an
// oversized request can still be answered under its own id.
func recoverID(head []byte) ID {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ID{}
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ID{}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ID{}
		}
		if t == "id" {
			id, _ := ParseID(v)
			return id
		}
	}
	return ID{}
}

func describeJSON(raw json.RawMessage) string {
	switch c := raw[0]; {
	case c == 'n':
		return "null"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a fractional or exponent number"
	}
	return string(raw)
}

func trimJSONErr(err error) string {
	return err.Error()
}

// appendErrorResponse appends a JSON-RPC error response.
func appendErrorResponse(b []byte, id ID, code int64, message string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id.Raw()...)
	b = append(b, `,"error":{"code":`...)
	b = fmt.Appendf(b, "%d", code)
	b = append(b, `,"message":`...)
	msg, _ := json.Marshal(message)
	b = append(b, msg...)
	return append(b, "}}"...)
}
