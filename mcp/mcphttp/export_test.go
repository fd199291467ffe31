package mcphttp

import "time"

// Test hooks: the clock of timeouts, and the state the limits bound.

// SetClock replaces the handler's clock; call it before serving.
func (h *Handler) SetClock(now func() time.Time) { h.now = now }

// ExpireSessions closes the sessions idle past SessionTimeout by the
// handler's clock, as their timers would.
func (h *Handler) ExpireSessions() { h.expireSessions() }

// BodyBytesInUse is what the bodies being read hold of MaxBodyMemory.
func (h *Handler) BodyBytesInUse() int64 { return h.bodies.inUse() }

// Retained reports the POST streams session sid holds and the bytes of
// the events of all its streams.
func (h *Handler) Retained(sid string) (streams int, bytes int64) {
	s := h.session(sid)
	if s == nil {
		return 0, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, es := range s.streams {
		_, _, _, n := es.state()
		bytes += n
	}
	_, _, _, n := s.standalone.state()
	return len(s.streams), bytes + n
}

// EncodeHeaderValue and DecodeParamHeader are the two ends of an
// Mcp-Param-* header value.
var (
	EncodeHeaderValue = encodeHeaderValue
	DecodeParamHeader = decodeParamHeader
)

// OnAbandoned sets a function called once a POST whose client went away
// while its request ran has let go of its session.
func (h *Handler) OnAbandoned(f func()) { h.testHookAbandoned.Store(&f) }

// ParamTools is how many tools the framer keeps parameter headers for,
// of the last complete tools/list and of the one under way.
func (f *Framer) ParamTools() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.params) + len(f.listing)
}

// SessionsOf is how many live sessions count against
// MaxSessionsPerSubject for the identity of a.
func (h *Handler) SessionsOf(a *AuthInfo) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.owned[ownerOf(a)])
}

// InFlight is how many POSTs count against MaxInFlight.
func (h *Handler) InFlight() int64 { return h.posts.Load() }

// InFlightOf is how many POSTs count against MaxInFlightPerSubject for the
// identity of a.
func (h *Handler) InFlightOf(a *AuthInfo) int { return h.flights.of(ownerOf(a)) }

// MaxTokenBytes is the longest access token RequireAuth hands its verifier.
const MaxTokenBytes = maxTokenBytes
