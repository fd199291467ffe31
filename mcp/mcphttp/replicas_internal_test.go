package mcphttp

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"
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
	store := &loadHookStore{}
	h, id, advance := idleHandler(t, store)
	if rec := post(h, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); rec.Code != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", rec.Code, rec.Body)
	}
	old := h.session(id)
	// The copy here idles out while the request loads the session.
	store.mu.Lock()
	store.onLoad = func() {
		advance(2 * time.Minute)
		h.ExpireSessions()
	}
	store.mu.Unlock()
	rec := post(h, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("a request to a session alive in the store, whose copy here idled out as it came in: %d %s", rec.Code, rec.Body)
	}
	if s := h.session(id); s == nil || s == old {
		t.Fatal("the request was not served by a fresh copy of the session")
	}
}
