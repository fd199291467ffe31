package gateway

import (
	"crypto/sha256"
	"time"
)

// A 2026-07-28 call that needed approval is retried with the user's
// answer and the sealed requestState of the round that asked. mcp accepts
// that state for an hour, to anyone who holds it on behalf of the same
// principal: a client that sent the retry once could send it again, and
// every copy would run the approved call (a transfer approved once, made
// ten times) and give back the refusal the question was counted as, until
// the approval budget counted nothing. The facade lets an answered state
// be used once: it remembers, per caller, a hash of each one used, for as
// long as mcp could still accept it.

// usedStateMemory is how long a used state is remembered: past mcp's
// lifetime of a requestState (an hour), with room for clocks.
const usedStateMemory = 2 * time.Hour

// maxUsedStates bounds the states remembered per caller. Each is an
// answer the user gave: a caller past it has had a thousand questions
// answered within two hours, and further answers are refused rather than
// forgotten, since a forgotten one could be replayed.
const maxUsedStates = 1024

// use records the retried call's state as used, or says why it cannot
// be used: it was already, or the caller has used too many lately.
func (a *approvalState) use(now time.Time, state string) string {
	h := sha256.Sum256([]byte(state))
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.used[h]; ok && now.Sub(t) < usedStateMemory {
		return "was used by an earlier call already; call the tool again without inputResponses and requestState to ask the user anew"
	}
	if len(a.used) >= maxUsedStates {
		for k, t := range a.used {
			if now.Sub(t) >= usedStateMemory {
				delete(a.used, k)
			}
		}
	}
	if len(a.used) >= maxUsedStates {
		return "cannot be recorded: this caller's user answered more approval questions in the last two hours than the facade remembers; wait before asking again"
	}
	if a.used == nil {
		a.used = map[[sha256.Size]byte]time.Time{}
	}
	a.used[h] = now
	return ""
}
