package mcphttp

import (
	"net/http"
	"strconv"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// Sessions per identity (HandlerOptions.MaxSessionsPerSubject): MaxSessions
// alone let one client, authenticated or not, open every session the
// server serves and keep them with a ping every SessionTimeout, locking out
// everyone else, since existing sessions are never evicted. A session
// opened with an AuthInfo counts against its owner until it is
// unregistered; the Handler keeps each owner's sessions in a set under
// h.mu, so that counting is O(1) per initialize and Retry-After looks at
// the owner's sessions only.

// ownerOf is the identity a session opened with a counts against: its
// subject, whatever client it came through, since a user who may register
// OAuth clients (dynamic client registration) would otherwise get a fresh
// allowance per client; a user with several MCP hosts open shares one,
// which the default leaves room for. A token that speaks for no subject
// (client credentials) counts against its client, and one naming neither
// against the one identity all such tokens share: a verifier that cannot
// tell its callers apart gives them one allowance, not none. The prefixes
// keep a subject apart from a client of the same name. Sessions opened
// without authorization have no owner: only MaxSessions bounds them.
func ownerOf(a *AuthInfo) string {
	switch {
	case a == nil:
		return ""
	case a.Subject != "":
		return "s" + a.Subject
	default:
		return "c" + a.ClientID
	}
}

// ownLocked counts s against its owner, if it has one. opening says it is
// a new session (initialize), refused beyond MaxSessionsPerSubject; a
// session a replica adopts from the SessionStore exists already, and is
// only counted. Under h.mu.
func (h *Handler) ownLocked(s *httpSession, opening bool) *httpError {
	owner := ownerOf(s.auth)
	if owner == "" {
		return nil
	}
	set := h.owned[owner]
	if max := h.opts.MaxSessionsPerSubject; opening && max > 0 && len(set) >= max {
		e := httpErr(http.StatusTooManyRequests, mcp.CodeInvalidRequest,
			"too many sessions: "+strconv.Itoa(len(set))+" sessions of this user are open, the most one may hold; end unused sessions with DELETE, or retry once one has expired")
		e.retryAfter = h.expiresLocked(set)
		return e
	}
	if set == nil {
		if h.owned == nil {
			h.owned = map[string]map[*httpSession]struct{}{}
		}
		set = map[*httpSession]struct{}{}
		h.owned[owner] = set
	}
	set[s] = struct{}{}
	s.owner = owner
	return nil
}

// ownedLocked lists the sessions of s's owner. Under h.mu.
func (h *Handler) ownedLocked(s *httpSession) []*httpSession {
	set := h.owned[ownerOf(s.auth)]
	list := make([]*httpSession, 0, len(set))
	for o := range set {
		list = append(list, o)
	}
	return list
}

// disownLocked stops counting s against its owner; it may be called more
// than once. Under h.mu.
func (h *Handler) disownLocked(s *httpSession) {
	if s.owner == "" {
		return
	}
	set := h.owned[s.owner]
	delete(set, s)
	if len(set) == 0 {
		delete(h.owned, s.owner)
	}
}

// expiresLocked is when the idlest of sessions expires, or after a whole
// SessionTimeout if none idles (a minute without one). Under h.mu.
func (h *Handler) expiresLocked(sessions map[*httpSession]struct{}) time.Duration {
	wait := h.opts.SessionTimeout
	if wait <= 0 {
		return time.Minute
	}
	now := h.now()
	for s := range sessions {
		if left, _ := s.idleFor(now); left < wait {
			wait = left
		}
	}
	return max(wait, time.Second)
}
