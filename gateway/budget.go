package gateway

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// maxIdentities bounds the stateless callers counted at once (subjects,
// plus the anonymous one). When it is reached, counts whose window has
// passed are dropped; if none has, a new caller is refused with
// session_budget until one has.
const maxIdentities = 10000

// identity is the count of one stateless caller over its window.
type identity struct {
	state *sessionState
	start time.Time
}

// identity returns the count that a stateless (2026-07-28) request's
// calls are kept in besides its session's: over HTTP each such request is
// a session of its own, which a session's count cannot bound. It is the
// authenticated subject's (mcphttp.SessionAuth, set by RequireAuth), or
// for a token without a user its client's, or the one all anonymous
// stateless requests share, each over
// Policy.Stateless.Window; nil for a request of a legacy session. ok is
// false when too many stateless callers are counted already.
func (g *Gateway) identity(req *mcp.CallToolRequest, st *settings) (s *sessionState, ok bool) {
	if !mcp.IsStateless(req.ProtocolVersion()) {
		return nil, true
	}
	key, limit := "anonymous", st.pol.Stateless.AnonymousCalls
	if limit == 0 {
		limit = DefaultAnonymousCalls
	}
	sid, who := "stateless:anonymous", "the stateless requests without an authenticated user (all together, in this window)"
	switch a := mcphttp.SessionAuth(req.Session); {
	case a == nil:
	case a.Subject != "":
		// The client too: one subject's token issued to two clients are
		// two callers, as mcphttp binds sessions.
		key, limit = "subject:"+a.Subject+"\x00"+a.ClientID, 0
		sid, who = "stateless:"+a.Subject, "this user (in this window)"
	case a.ClientID != "":
		// A token for a client and no user (client credentials) is that
		// client's: counted with the anonymous ones, two services would
		// use up each other's calls, and the anonymous callers'.
		key, limit = "client:"+a.ClientID, 0
		sid, who = "stateless:client:"+a.ClientID, "this client (in this window)"
	}
	window := st.pol.Stateless.Window
	if window <= 0 {
		window = DefaultStatelessWindow
	}
	now := g.now()
	g.identMu.Lock()
	defer g.identMu.Unlock()
	id, found := g.identities[key]
	if found && now.Sub(id.start) < window {
		return id.state, true
	}
	if !found && len(g.identities) >= maxIdentities {
		for k, old := range g.identities {
			if now.Sub(old.start) >= window {
				delete(g.identities, k)
			}
		}
		if len(g.identities) >= maxIdentities {
			return &sessionState{id: "stateless"}, false
		}
	}
	id = &identity{state: &sessionState{id: sid, who: who, limit: limit}, start: now}
	g.identities[key] = id
	return id.state, true
}

// take counts a call against the budget: limit, or the state's own.
func (s *sessionState) take(limit int) error {
	if s.limit > 0 {
		limit = s.limit
	}
	if n := s.calls.Add(1); int(n) > limit {
		s.calls.Add(-1)
		return fmt.Errorf("%s has used its %d tool calls", s.what(), limit)
	}
	return nil
}

// what names the caller in a refusal.
func (s *sessionState) what() string {
	if s.who != "" {
		return s.who
	}
	return "this session"
}

// approvalState counts one caller's approval questions against
// Policy.Approval.Budget: those the user did not accept in the current
// window, and those open now.
type approvalState struct {
	mu       sync.Mutex
	refusals int
	start    time.Time // of the window refusals counts in
	open     int
	used     map[[sha256.Size]byte]time.Time // answered states used, and when (replay.go)
}

// approvalKey is the input key of the approval question (2026-07-28):
// fixed, so that a retried call's answer can be recognised before it is
// read.
const approvalKey = "gateway-approval"

// refuseAsk returns why a new question must not be asked now, or "".
func (a *approvalState) refuseAsk(now time.Time, b ApprovalBudget, who string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if now.Sub(a.start) >= b.Window {
		a.refusals, a.start = 0, now
	}
	if a.refusals >= b.Refusals {
		return fmt.Sprintf("the user has not accepted %d approval questions of %s within %v, so calls that need approval are refused without asking until %s. "+
			"Stop calling tools that need approval: tell the user in the conversation what you want to do and why, and let them decide",
			a.refusals, who, b.Window, a.start.Add(b.Window).UTC().Format(time.RFC3339))
	}
	if a.open >= b.Concurrent {
		return fmt.Sprintf("%s has %d approval question(s) open already, the most at once; the user answers one at a time. "+
			"Stop asking in parallel: wait for the answer before calling another tool that needs approval", who, a.open)
	}
	a.open++
	return ""
}

// asked ends a question refuseAsk let through; accepted tells whether
// the user accepted it, counted whether it was counted as a refusal
// already (when asked, in 2026-07-28) and must be given back when
// accepted.
func (a *approvalState) asked(now time.Time, b ApprovalBudget, accepted, counted bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.open--
	a.count(now, b, accepted, counted)
}

func (a *approvalState) count(now time.Time, b ApprovalBudget, accepted, counted bool) {
	if now.Sub(a.start) >= b.Window {
		a.refusals, a.start = 0, now
	}
	switch {
	case !accepted && !counted:
		a.refusals++
	case accepted && counted && a.refusals > 0:
		a.refusals--
	}
}

// answered counts the answer of a question asked in an earlier round
// (2026-07-28), which was counted as a refusal when asked.
func (a *approvalState) answered(now time.Time, b ApprovalBudget, accepted bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.count(now, b, accepted, true)
}
