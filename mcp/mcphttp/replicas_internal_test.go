package mcphttp

import (
	"context"
	"fmt"
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

// A replica's own state change takes effect here before any catch-up of
// the session runs: catchUp takes the changes this replica recorded for
// applied in their place, and a later-recorded change of another replica
// caught up while this replica's own was still on its way would be
// overwritten by it. The Subscribe hook runs as the change is applied.
func TestReplicaOwnChangeTakesEffectBeforeCatchUp(t *testing.T) {
	var h *Handler
	var sid string
	applied := 0
	srv := mcp.NewServer(&mcp.Implementation{Name: "own", Version: "1"}, &mcp.ServerOptions{
		Subscribe: func(context.Context, *mcp.ServerSession, string, bool) error {
			applied++
			if s := h.session(sid); s.catchMu.TryLock() {
				s.catchMu.Unlock()
				t.Error("a catch-up could run between the append of the replica's own change and its effect")
			}
			return nil
		},
	})
	h = NewHandler(srv, &HandlerOptions{Sessions: &MemoryStore{}})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
	})
	rec := post(h, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	sid = rec.Header().Get(HeaderSessionID)
	if rec.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	for i, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"uri":"test://x"}}`, i+2, method)
		if rec := post(h, sid, body); rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", method, rec.Code, rec.Body)
		}
	}
	if applied != 2 {
		t.Fatalf("the Subscribe hook ran %d times, want 2", applied)
	}
}
