package mcp

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"
)

// A sealed requestState proves that the server asked what it lists, for
// this request; without more, it proved so forever and to anyone. A
// client could keep a state, answers of earlier rounds in it, and replay
// it years later, or hand it to another user of the same server, whose
// request then ran with answers (approvals, say) that user never gave.
// So a state carries when it stops being accepted and, behind
// authorization, whose request it was handed to.

// stateLifetime is how long a sealed requestState is accepted: long
// enough for a user to answer an elicitation, short enough that a leaked
// state is soon worthless.
const stateLifetime = time.Hour

// errStateExpired reports a requestState past its lifetime.
var errStateExpired = errors.New("it has expired; send the request again without it")

// stateClock is the time that seals and opens requestState.
func (s *Server) stateClock() time.Time {
	if s.stateNow != nil {
		return s.stateNow()
	}
	return time.Now()
}

// principalKey is what a requestState holds of the principal it was
// handed to: a hash, since the state is signed, not encrypted, and a
// principal key need not be the client's to read. "" stays "".
func principalKey(principal string) string {
	if principal == "" {
		return ""
	}
	h := sha256.Sum256([]byte("mcp requestState principal\x00" + principal))
	return base64.RawURLEncoding.EncodeToString(h[:16])
}
