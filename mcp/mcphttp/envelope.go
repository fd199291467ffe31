package mcphttp

import (
	"bytes"
	"encoding/json"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/internal/wirenames"
)

// envelope is what routing needs of a message the server writes.
type envelope struct {
	ID            json.RawMessage // nil when absent
	Method        *string         // nil for a response
	ProgressToken json.RawMessage // params.progressToken, nil when absent
}

// peekEnvelope reads a message's routing members without decoding the
// rest: WriteFrame sees every message the server sends, results of any
// size among them, and encoding/json would walk all of it with
// reflection. What the server writes is valid JSON (its own encoding);
// the result is what json.Unmarshal into the same fields gives (a null
// method is no method; a null id or token stays the raw null).
func peekEnvelope(msg []byte) envelope {
	var env envelope
	var params []byte
	// Keys match as encoding/json matches struct fields: case folded.
	_ = jsonscan.MembersBytes(msg, func(k, v []byte) bool {
		switch {
		case bytes.EqualFold(k, []byte("id")):
			env.ID = v
		case bytes.EqualFold(k, []byte("method")):
			env.Method = nil
			if len(v) > 0 && v[0] == '"' {
				if m, ok := wirenames.Unquote(v); ok {
					env.Method = &m
				}
			}
		case bytes.EqualFold(k, []byte("params")):
			params = v
		}
		return true
	})
	if len(params) > 0 && params[0] == '{' {
		_ = jsonscan.MembersBytes(params, func(k, v []byte) bool {
			if bytes.EqualFold(k, []byte("progressToken")) {
				env.ProgressToken = v
			}
			return true
		})
	}
	return env
}
