package mcphttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// idleHandler is a handler with one initialized legacy session and a clock
// the test moves.
func idleHandler(t *testing.T, sessions SessionStore) (h *Handler, id string, advance func(time.Duration)) {
	t.Helper()
	var mu sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	h = NewHandler(mcp.NewServer(&mcp.Implementation{Name: "idle", Version: "1"}, nil), &HandlerOptions{SessionTimeout: time.Minute, Sessions: sessions})
	h.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
	})
	rec := post(h, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	id = rec.Header().Get(HeaderSessionID)
	if rec.Code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	return h, id, func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
}

func post(h *Handler, sid, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set(HeaderProtocolVersion, mcp.Version20251125)
	if sid != "" {
		r.Header.Set(HeaderSessionID, sid)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// A session is ended for idling only if no request has entered it: the
// end claims it, and a request that looked it up before the end but
// enters after it is answered 404 (initialize anew), not 503 (retry).
func TestIdleEndClaimsTheSession(t *testing.T) {
	h, id, advance := idleHandler(t, nil)
	s := h.session(id)

	// A request inside: the session is not idle, whatever the clock says.
	if !s.enter() {
		t.Fatal("enter refused on a live session")
	}
	advance(2 * time.Minute)
	h.ExpireSessions()
	select {
	case <-s.doneChan():
		t.Fatal("a session with a request in progress was ended as idle")
	default:
	}
	s.leave()

	// Idle now: the end claims it, and a later enter is refused.
	advance(2 * time.Minute)
	h.ExpireSessions()
	select {
	case <-s.doneChan():
	default:
		t.Fatal("an idle session was not ended")
	}
	if s.enter() {
		t.Fatal("enter accepted on a session ended as idle")
	}
}

// The request that loses the race, found in the table but claimed, is
// answered 404.
func TestClaimedSessionAnswers404(t *testing.T) {
	h, id, _ := idleHandler(t, nil)
	h.session(id).busy.Store(idleClaim) // claimed, not yet out of the table
	rec := post(h, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	b, _ := io.ReadAll(rec.Body)
	if rec.Code != http.StatusNotFound || !strings.Contains(string(b), "session not found") || !strings.Contains(string(b), `"id":2`) {
		t.Fatalf("%d %s", rec.Code, b)
	}
}
