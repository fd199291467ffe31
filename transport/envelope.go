package transport

import (
	"github.com/winbridge/winbridge/internal/jsonscan"

	"bytes"
	"encoding/json"
	"errors"
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
	note   string // why a message of kind 0 is dropped
}

// rejection is a message the stream answers with an error itself.
type rejection struct {
	id      ID // zero: answer with id null
	code    int64
	message string
}

func (r *rejection) Error() string { return r.message }

// decodeEnvelope validates one message. A returned *rejection says how to
// answer it. A message that must be neither answered nor passed on (a
// response whose id is null or not an MCP id: answering a response could
// start an endless exchange of error replies between two peers) comes back
// as an envelope of kind 0 with a nil rejection; its note says why.
//
// A response with a valid id that is malformed otherwise becomes an error
// response (internal error) for that id, so the call fails at once instead
// of timing out.
func decodeEnvelope(b []byte) (envelope, *rejection) {
	var env envelope
	b = trimJSONSpace(b)
	if len(b) > 0 && b[0] == '{' {
		// Checked as it is split: one pass, not two.
		var m members // aliases b; what outlives the read is copied by the stream
		if jsonscan.MembersValid(b, m.set) && utf8.Valid(b) {
			return splitEnvelope(env, &m)
		}
	}
	// The slow path only has to say what is wrong.
	if !utf8.Valid(b) {
		return invalidUTF8(b)
	}
	if len(b) == 0 {
		return env, &rejection{code: CodeParseError, message: "parse error: empty message"}
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
	var v any
	err := json.Unmarshal(b, &v)
	if err == nil {
		err = errors.New("invalid JSON") // cannot happen: jsonscan.Valid agrees with json.Valid
	}
	return env, &rejection{code: CodeParseError, message: "parse error: " + err.Error()}
}

// invalidUTF8 handles a message that is not valid UTF-8. A response whose
// id can still be read fails the call it answers, as a malformed response
// does, instead of leaving it to wait out its deadline; one whose id
// cannot be read is dropped, like any response without a usable id
// (answering it could start an exchange of errors). Anything else is a
// parse error, answered with id null as JSON-RPC requires.
//
// The message is read as it would be with each invalid sequence replaced
// by U+FFFD. Only an integer id is trusted: a string id may be where the
// invalid bytes were (and the ids we send are integers).
func invalidUTF8(b []byte) (envelope, *rejection) {
	const why = "message is not valid UTF-8"
	env, rej := decodeEnvelope(bytes.ToValidUTF8(b, []byte("\uFFFD")))
	switch {
	case rej != nil || env.kind == kindRequest || env.kind == kindNotification:
		return envelope{}, &rejection{code: CodeParseError, message: "parse error: " + why}
	case env.kind == kindResponse && env.id.raw[0] != '"':
		return envelope{kind: kindResponse, id: env.id, errObj: invalidUTF8Error}, nil
	}
	return envelope{note: "a response that is not valid UTF-8, without an integer id"}, nil
}

// invalidUTF8Error is the error a response that is not valid UTF-8 fails
// its call with.
var invalidUTF8Error = appendErrorObject(nil, CodeInternalError, "peer sent a malformed response: message is not valid UTF-8")

// splitEnvelope reads the members of a valid JSON object, m.
func splitEnvelope(env envelope, m *members) (envelope, *rejection) {
	method, hasMethod := m.method, m.method != nil
	result, hasResult := m.result, m.result != nil
	errObj, hasError := m.errObj, m.errObj != nil
	isResponse := !hasMethod && (hasResult || hasError)
	// Recover the id first so that every later rejection can name it.
	rawID, hasID := m.id, m.id != nil
	if hasID {
		id, err := ParseID(rawID)
		if err != nil {
			if isResponse {
				env.note = "a response with id " + describeJSON(rawID)
				return env, nil
			}
			return env, &rejection{code: CodeInvalidRequest, message: "invalid request: id must be a string or an integer, not " + describeJSON(rawID)}
		}
		env.id = id
	}
	if isResponse {
		return decodeResponse(env, m, hasID, result, hasResult, errObj, hasError)
	}
	reject := func(format string, args ...any) (envelope, *rejection) {
		return env, &rejection{id: env.id, code: CodeInvalidRequest, message: "invalid request: " + fmt.Sprintf(format, args...)}
	}
	if !isVersion(m.version) {
		return reject(`member "jsonrpc" must be "2.0"`)
	}
	if !hasMethod {
		return reject(`a message needs "method" (a request or notification) or "result"/"error" (a response)`)
	}
	if hasResult || hasError {
		return reject(`a message cannot have both "method" and "result" or "error"`)
	}
	if method[0] != '"' {
		return reject(`member "method" must be a string`)
	}
	env.method = method
	if p := m.params; p != nil && string(p) != "null" {
		if p[0] != '{' && p[0] != '[' {
			return reject(`member "params" must be an object or an array`)
		}
		env.params = p
	}
	if hasID {
		env.kind = kindRequest
	} else {
		env.kind = kindNotification
	}
	return env, nil
}

// members are the members of a message that JSON-RPC defines, each nil
// when absent (a present value is never empty). Of duplicates the last
// counts, as in encoding/json.
type members struct {
	version, id, method, params, result, errObj json.RawMessage
}

func (m *members) set(key, value []byte) bool {
	switch string(key) {
	case "jsonrpc":
		m.version = value
	case "id":
		m.id = value
	case "method":
		m.method = value
	case "params":
		m.params = value
	case "result":
		m.result = value
	case "error":
		m.errObj = value
	}
	return true
}

// decodeResponse finishes decoding a message that has "result" or "error"
// and no "method". It is never answered.
func decodeResponse(env envelope, m *members, hasID bool, result json.RawMessage, hasResult bool, errObj json.RawMessage, hasError bool) (envelope, *rejection) {
	if !hasID {
		env.note = "a response without an id"
		return env, nil
	}
	env.kind = kindResponse
	malformed := func(why string) (envelope, *rejection) {
		env.result = nil
		env.errObj = appendErrorObject(nil, CodeInternalError, "peer sent a malformed response: "+why)
		return env, nil
	}
	if !isVersion(m.version) {
		return malformed(`member "jsonrpc" must be "2.0"`)
	}
	if hasResult && hasError {
		return malformed(`a response cannot have both "result" and "error"`)
	}
	env.result = result
	if hasError {
		env.errObj = normalizeError(errObj)
	}
	return env, nil
}

// isVersion reports whether v is the JSON string "2.0".
func isVersion(v json.RawMessage) bool {
	if string(v) == `"2.0"` {
		return true
	}
	var s string
	return len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil && s == "2.0"
}

// normalizeError makes sure an error member decodes as an Error (and as a
// jsonrpc2.Error, the same shape): an integer code that fits in 64 bits and
// a string message. A malformed one becomes an internal error that carries
// the original as data.
func normalizeError(raw json.RawMessage) json.RawMessage {
	var e Error
	var present struct{ Code, Message json.RawMessage }
	if json.Unmarshal(raw, &e) == nil && json.Unmarshal(raw, &present) == nil &&
		isJSONInteger(present.Code) && len(present.Message) > 0 && present.Message[0] == '"' {
		return raw
	}
	b, _ := json.Marshal(map[string]any{"code": CodeInternalError, "message": "peer sent a malformed error object", "data": raw})
	return b
}

// headInfo is what the head of a truncated message tells.
type headInfo struct {
	id       ID   // the top-level "id", when it was complete in the head
	request  bool // a top-level "method" member was seen
	response bool // a top-level "result" or "error" member was seen
}

// recoverID looks at the head of a truncated message for its top-level "id"
// and for the members that tell a request from a response, so that an
// oversized request can still be answered under its own id and an
// oversized response can fail the call it answers.
func recoverID(head []byte) headInfo {
	var h headInfo
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return h
		}
		switch t {
		case "method":
			h.request = true
		case "result", "error":
			h.response = true
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return h
		}
		if t == "id" && h.id.IsZero() {
			h.id, _ = ParseID(v)
		}
	}
	return h
}

func describeJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "empty"
	}
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
