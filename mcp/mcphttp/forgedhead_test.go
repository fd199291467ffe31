package mcphttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/replicatest"
)

// deleteBeforeAppend is a MemoryStore on which, once armed, the session
// is deleted just before the next Append: a DELETE through another
// replica that lands between a request's load of the record and its
// append. With recreate, the append then re-creates the record with the
// request's message first, as stores did before Append refused a
// session it does not hold (and as a replica of that version may still
// leave during a rollout).
type deleteBeforeAppend struct {
	mcphttp.MemoryStore
	armed    atomic.Bool
	recreate bool
}

func (st *deleteBeforeAppend) Append(ctx context.Context, id string, msg []byte, ttl time.Duration) (int, error) {
	if st.armed.CompareAndSwap(true, false) {
		_ = st.MemoryStore.Delete(ctx, id)
		if st.recreate {
			return 1, st.MemoryStore.Create(ctx, id, msg, ttl)
		}
	}
	return st.MemoryStore.Append(ctx, id, msg, ttl)
}

// A record re-created by a client's message (its append raced the
// session's deletion, on a replica of an earlier version) is no session,
// whatever members the client put in that message: a resources/subscribe
// carrying an "initialize" member of its own must not read as a record's
// head, with no opener, that any token (or another identity's) may then
// use on every other replica.
func TestReplicasClientMessageIsNoRecordHead(t *testing.T) {
	store := &deleteBeforeAppend{recreate: true}
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		return &mcphttp.AuthInfo{Subject: tok}, nil
	})
	withAuth := func(h http.Handler) http.Handler {
		return mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier}, h)
	}
	var urls []string
	for range 2 {
		_, u := serveHTTPWrapped(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
			&mcphttp.HandlerOptions{Sessions: store}, withAuth)
		urls = append(urls, u)
	}
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	resp := replicatest.Post(t, urls[0], "", "", init, bearer("alice"))
	sid := resp.Header.Get("Mcp-Session-Id")
	replicatest.Result(t, resp)
	store.armed.Store(true)
	r := replicatest.Post(t, urls[0], sid, "2025-11-25",
		`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://watched"},"initialize":`+init+`}`, bearer("alice"))
	r.Body.Close()
	r = replicatest.Post(t, urls[1], sid, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, bearer("mallory"))
	r.Body.Close()
	if r.StatusCode == http.StatusOK {
		t.Fatal("mallory's token was served a session whose record a client's message re-created, read as a head without an opener")
	}
}

// A replica keeping a session's GET stream open reads the record as every
// request does: one re-created by a client's message (an append of a
// replica of an earlier version that raced the session's deletion) is no
// session, and the stream ends, instead of refreshing that record for as
// long as it stays open.
func TestReplicasKeepAliveEndsOnAHeadlessRecord(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	_, u := serveHTTP(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
		&mcphttp.HandlerOptions{Sessions: store, SessionTimeout: 300 * time.Millisecond})
	sid := replicatest.Initialize(t, u)
	resp := replicatest.OpenGET(t, u, sid)
	defer resp.Body.Close()
	ctx := context.Background()
	if err := store.Delete(ctx, sid); err != nil {
		t.Fatal(err)
	}
	if err := store.Create(ctx, sid, []byte(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://watched"}}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the GET stream of a session whose record has no head stayed open")
	}
}

// A request with another identity's token is refused before the session
// is loaded from the store: the load keeps the session alive, and whoever
// holds a session's ID, without its token, must not keep it from expiring.
func TestReplicasRefusedIdentityKeepsNoSessionAlive(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	store := &mcphttp.MemoryStore{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }}
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		return &mcphttp.AuthInfo{Subject: tok}, nil
	})
	_, u := serveHTTPWrapped(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
		&mcphttp.HandlerOptions{Sessions: store, SessionTimeout: time.Minute},
		func(h http.Handler) http.Handler {
			return mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier}, h)
		})
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	resp := replicatest.Post(t, u, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, bearer("alice"))
	sid := resp.Header.Get("Mcp-Session-Id")
	replicatest.Result(t, resp)
	for range 3 {
		advance(50 * time.Second)
		r := replicatest.Post(t, u, sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, bearer("mallory"))
		r.Body.Close()
		if r.StatusCode != http.StatusForbidden {
			t.Fatalf("mallory's request: status %d, want 403", r.StatusCode)
		}
	}
	if _, err := store.Load(context.Background(), sid, time.Minute); !errors.Is(err, mcphttp.ErrNotFound) {
		t.Fatalf("the session is still in the store 150 s after alice's last request (timeout 60 s), kept alive by refused requests: %v", err)
	}
}

// The same on a replica that holds no copy of the session: there the
// identity that opened it is known only from the record, which is loaded
// without keeping the session alive, and kept alive only once the
// request's identity is checked against it.
func TestReplicasRefusedIdentityWithoutACopyKeepsNoSessionAlive(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	store := &mcphttp.MemoryStore{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }}
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		return &mcphttp.AuthInfo{Subject: tok}, nil
	})
	var hs []*mcphttp.Handler
	var urls []string
	for range 2 {
		h, u := serveHTTPWrapped(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
			&mcphttp.HandlerOptions{Sessions: store, SessionTimeout: time.Minute},
			func(h http.Handler) http.Handler {
				return mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier}, h)
			})
		hs = append(hs, h)
		urls = append(urls, u)
	}
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	resp := replicatest.Post(t, urls[0], "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, bearer("alice"))
	sid := resp.Header.Get("Mcp-Session-Id")
	replicatest.Result(t, resp)
	for range 2 {
		advance(25 * time.Second)
		r := replicatest.Post(t, urls[1], sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, bearer("mallory"))
		r.Body.Close()
		if r.StatusCode != http.StatusForbidden {
			t.Fatalf("mallory's request on the replica without a copy: status %d, want 403", r.StatusCode)
		}
	}
	if n := hs[1].SessionCount(); n != 0 {
		t.Fatalf("replica B runs %d copies of the session after refusing mallory", n)
	}
	advance(25 * time.Second)
	if _, err := store.Load(context.Background(), sid, time.Minute); !errors.Is(err, mcphttp.ErrNotFound) {
		t.Fatalf("the session is still in the store 75 s after alice's last request (timeout 60 s), kept alive by requests refused on a replica without a copy: %v", err)
	}
}

// A state change whose append races the session's DELETE through another
// replica finds no record to append to: the store refuses it
// (ErrNotFound), the client gets 404, and no record without its head is
// left in the store, occupying it until its ttl.
func TestReplicasAppendRacingDeleteLeavesNoRecord(t *testing.T) {
	store := &deleteBeforeAppend{}
	urls := replicasOf(t, 2, &mcphttp.HandlerOptions{Sessions: store})
	sid := replicatest.Initialize(t, urls[0])
	store.armed.Store(true)
	r := replicatest.Post(t, urls[0], sid, "2025-11-25",
		`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://watched"}}`, nil)
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if msgs, err := store.MemoryStore.Load(context.Background(), sid, 0); !errors.Is(err, mcphttp.ErrNotFound) {
		t.Fatalf("after a subscribe whose append raced the session's deletion the store holds %q (%v), want nothing", msgs, err)
	}
	if r.StatusCode != http.StatusNotFound {
		t.Fatalf("a subscribe whose append raced the session's deletion: %d %s, want 404", r.StatusCode, body)
	}
	// Gone on every replica, the one that served the subscribe included.
	for i, u := range urls {
		r := replicatest.Post(t, u, sid, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, nil)
		r.Body.Close()
		if r.StatusCode != http.StatusNotFound {
			t.Fatalf("replica %d answers %d to a ping of the deleted session, want 404", i, r.StatusCode)
		}
	}
}
