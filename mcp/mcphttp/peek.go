package mcphttp

import (
	"net/http"
	"strconv"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/internal/wirenames"
)

// The messages that pass through the transport are read here for the few
// members routing needs, by walking them with jsonscan instead of
// decoding them with encoding/json, which on every call scanned each
// message twice and copied its members. Input that is not valid JSON
// reads as a message with no members: the transport's stream rejects it.

// inEnvelope is what the client framer reads of a message from the
// server: its id, whether it has a method (null counts as none), and its
// result.
type inEnvelope struct {
	id        []byte
	hasMethod bool
	result    []byte
	version   string // result.protocolVersion, after readVersion
}

// peekIn reads the envelope of msg.
func peekIn(msg []byte) inEnvelope {
	var e inEnvelope
	// Checked as it is walked: one pass, not two.
	valid := jsonscan.MembersValid(msg, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			e.id = v
		case "method":
			e.hasMethod = string(v) != "null"
		case "result":
			e.result = v
		}
		return true
	})
	if !valid {
		return inEnvelope{}
	}
	return e
}

// readVersion reads result.protocolVersion, of an initialize response.
func (e *inEnvelope) readVersion() {
	if len(e.result) == 0 || e.result[0] != '{' {
		return
	}
	if v, ok := jsonscan.Member(e.result, "protocolVersion"); ok {
		e.version, _ = wirenames.Unquote(v)
	}
}

// directResultHead begins every response the transport writes for a
// request handed to ServeDirect (transport.DirectRequest): a result is
// {"jsonrpc":"2.0","id":ID,"result":R} and nothing more, an error
// {"jsonrpc":"2.0","id":ID,"error":E}.
const directResultHead = `{"jsonrpc":"2.0","id":`

// statusOfDirect is statusOf for the response ServeDirect handed over for
// a stateless request. A result is 200 once its head says it is one:
// the transport writes no member after the result, so there is no error
// to find, and statusOf's walk through the whole result (the content of a
// tool call, however long) is not needed. Anything else is statusOf's.
func statusOfDirect(resp []byte) int {
	if len(resp) > len(directResultHead) && string(resp[:len(directResultHead)]) == directResultHead {
		i := jsonscan.Skip(resp, len(directResultHead)) // the id
		if rest := resp[i:]; len(rest) > len(`,"result":`) && string(rest[:len(`,"result":`)]) == `,"result":` {
			return http.StatusOK
		}
	}
	return statusOf(resp)
}

// statusOf is the HTTP status of a stateless JSON response: errors the
// transport specification pins (unknown method 404; bad params, headers,
// versions 400) and internal errors 500; everything else 200.
//
// resp is the session's own encoding of a response, valid JSON
// (transport.Conn checks what it sends), so it is not checked again.
func statusOf(resp []byte) int {
	e, ok := jsonscan.Member(resp, "error")
	if !ok || len(e) == 0 || e[0] != '{' {
		return http.StatusOK
	}
	raw, ok := jsonscan.Member(e, "code")
	if !ok {
		return http.StatusOK
	}
	code, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return http.StatusOK
	}
	return statusOfCode(code)
}
