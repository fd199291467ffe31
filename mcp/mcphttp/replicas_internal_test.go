package mcphttp

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// loadHookStore is a MemoryStore that runs a hook once, on the next
// Load.
type loadHookStore struct {
	MemoryStore
	mu     sync.Mutex
	onLoad func()
}

func (st *loadHookStore) Load(ctx context.Context, id string, ttl time.Duration) ([][]byte, error) {
	st.mu.Lock()
	f := st.onLoad
	st.onLoad = nil
	st.mu.Unlock()
	if f != nil {
		f()
	}
	return st.MemoryStore.Load(ctx, id, ttl)
}

// With a SessionStore, a replica's copy of a session that idles out as a
// request comes in is only a copy: the session lives in the store, and
// the request is served by a fresh copy, not answered 404 (which makes
// the client initialize anew and lose its session on every replica).
func TestReplicaCopyIdlingAsARequestComesIn(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	store := &loadHookStore{}
	h := NewHandler(mcp.NewServer(&mcp.Implementation{Name: "idle", Version: "1"}, nil),
		&HandlerOptions{SessionTimeout: time.Minute, Sessions: store})
	h.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
	})
	rec := post(h, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	id := rec.Header().Get(HeaderSessionID)
	if rec.Code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	if rec := post(h, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); rec.Code != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", rec.Code, rec.Body)
	}
	old := h.session(id)
	// The copy here idles out while the request loads the session.
	store.mu.Lock()
	store.onLoad = func() {
		mu.Lock()
		now = now.Add(2 * time.Minute)
		mu.Unlock()
		h.ExpireSessions()
	}
	store.mu.Unlock()
	rec = post(h, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("a request to a session alive in the store, whose copy here idled out as it came in: %d %s", rec.Code, rec.Body)
	}
	if s := h.session(id); s == nil || s == old {
		t.Fatal("the request was not served by a fresh copy of the session")
	}
}
