package mcphttp

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// POSTs in flight per identity (HandlerOptions.MaxInFlightPerSubject):
// MaxInFlight bounds the whole handler, so one authenticated user holding
// long calls (or open subscriptions/listen streams) could take every place
// and starve the others. Each POST made with an AuthInfo counts against
// its identity as ownerOf names it for MaxSessionsPerSubject, from its
// admission until it returns, and follows MaxInFlight's rules for POSTs
// whose clients walked away (adrift.go): it stops counting while its
// legacy session lives, and counts again from the session's end until its
// handler returns. A POST without an AuthInfo is not counted: looking one
// up is the only cost on its path.

// subjectFlights counts the POSTs in flight of each identity.
type subjectFlights struct {
	mu sync.Mutex
	n  map[string]int // by ownerOf; an identity with none is absent
}

// add counts n more of owner's POSTs, however many it already has.
func (f *subjectFlights) add(owner string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addLocked(owner, n)
}

func (f *subjectFlights) addLocked(owner string, n int) {
	c := f.n[owner] + n
	switch {
	case c == 0:
		delete(f.n, owner)
	case f.n == nil:
		f.n = map[string]int{owner: c}
	default:
		f.n[owner] = c
	}
}

// tryAdd counts one more POST of owner unless it has limit already.
func (f *subjectFlights) tryAdd(owner string, limit int) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.n[owner]; c >= limit {
		return c, false
	}
	f.addLocked(owner, 1)
	return 0, true
}

// of is how many POSTs of owner are counted.
func (f *subjectFlights) of(owner string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n[owner]
}

// counted is the identity r's POST counts against, "" for none (no
// AuthInfo, or no MaxInFlightPerSubject).
func (h *Handler) counted(r *http.Request) string {
	if h.opts.MaxInFlightPerSubject <= 0 {
		return ""
	}
	return ownerOf(AuthFromContext(r.Context()))
}

// admitSubject counts r's POST against its identity, which the caller
// gives back as the POST returns; beyond MaxInFlightPerSubject it answers
// 429, before the body is read. It returns the identity counted, "" for
// none.
func (h *Handler) admitSubject(r *http.Request) (string, *httpError) {
	owner := h.counted(r)
	if owner == "" {
		return "", nil
	}
	if n, ok := h.flights.tryAdd(owner, h.opts.MaxInFlightPerSubject); !ok {
		e := httpErr(http.StatusTooManyRequests, mcp.CodeInvalidRequest,
			"too many requests: "+strconv.Itoa(n)+" requests of this user are being served, the most one may have at once (MaxInFlightPerSubject); retry once some have answered")
		e.retryAfter = time.Second
		// The body is not read: the connection closes after the answer.
		e.close = closes(r)
		return "", e
	}
	return owner, nil
}
