package mcphttp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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

// initializedHandler serves srv with opts and initializes a legacy
// session on it; the handler shuts down with the test.
func initializedHandler(t *testing.T, srv *mcp.Server, opts *HandlerOptions) (*Handler, string) {
	t.Helper()
	h := NewHandler(srv, opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
	})
	rec := post(h, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	sid := rec.Header().Get(HeaderSessionID)
	if rec.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	return h, sid
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
			if s := h.session(sid); s.tryLockCatch() {
				s.unlockCatch()
				t.Error("a catch-up could run between the append of the replica's own change and its effect")
			}
			return nil
		},
	})
	h, sid = initializedHandler(t, srv, &HandlerOptions{Sessions: &MemoryStore{}})
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

// appendHookStore is a MemoryStore that reports each Append.
type appendHookStore struct {
	MemoryStore
	appended chan string
}

func (st *appendHookStore) Append(ctx context.Context, id string, msg []byte, ttl time.Duration) (int, error) {
	n, err := st.MemoryStore.Append(ctx, id, msg, ttl)
	st.appended <- string(msg)
	return n, err
}

// A state change holds the session's catch-ups off until it takes effect
// here, and it may wait for an in-flight slot meanwhile. The client's
// notifications/cancelled for the call that holds the slot must still
// get through: it needs no catch-up, and it is what frees the slot.
func TestReplicaCancelPassesAStateChangeWaitingForASlot(t *testing.T) {
	started := make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "slot", Version: "1"}, &mcp.ServerOptions{MaxInFlight: 1})
	mcp.AddTool(srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(started)
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	store := &appendHookStore{appended: make(chan string, 16)}
	h, sid := initializedHandler(t, srv, &HandlerOptions{Sessions: store})
	if rec := post(h, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); rec.Code != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", rec.Code, rec.Body)
	}
	<-store.appended // the initialized (the initialize is the record's head, created)

	// A cancelled call is not answered: its POST ends when the client
	// goes, here with the test.
	callCtx, leave := context.WithCancel(context.Background())
	callDone := make(chan struct{})
	t.Cleanup(func() { leave(); <-callDone })
	go func() {
		defer close(callDone)
		r := httptest.NewRequestWithContext(callCtx, http.MethodPost, "http://127.0.0.1/",
			strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set(HeaderProtocolVersion, mcp.Version20251125)
		r.Header.Set(HeaderSessionID, sid)
		h.ServeHTTP(httptest.NewRecorder(), r)
	}()
	<-started // the call holds the one slot
	level := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		level <- post(h, sid, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"error"}}`)
	}()
	<-store.appended // recorded: the setLevel holds catch-ups off and waits for the slot

	cancelled := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		cancelled <- post(h, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	}()
	select {
	case rec := <-cancelled:
		if rec.Code != http.StatusAccepted {
			t.Fatalf("notifications/cancelled: %d %s", rec.Code, rec.Body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("notifications/cancelled waited behind a state change that waits for the slot the cancelled call holds")
	}
	if rec := <-level; rec.Code != http.StatusOK {
		t.Fatalf("setLevel after the slot was freed: %d %s", rec.Code, rec.Body)
	}
}

// Changes relayed while this replica's own state change holds catch-ups
// off (waiting for a slot, or in a Subscribe hook that blocks) do not
// each park a goroutine, with a record it loaded, behind the catch-up
// lock: one waits, and catches up with all of them once it has the lock.
func TestReplicaRelayedCatchUpsWaitingCoalesce(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "relayed", Version: "1"}, nil)
	h, sid := initializedHandler(t, srv, &HandlerOptions{Sessions: &MemoryStore{}})
	s := h.session(sid)
	if err := s.lockCatch(context.Background()); err != nil { // as a state change of this replica's own does
		t.Fatal(err)
	}
	done := make(chan struct{}, 3)
	for range 3 {
		go func() { h.catchUpShared(s); done <- struct{}{} }()
	}
	for range 2 {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			s.unlockCatch()
			t.Fatal("every relayed catch-up waits behind the replica's own state change")
		}
	}
	s.unlockCatch()
	<-done
}

// A request waiting for the session's catch-up lock, held by a state
// change in a Subscribe hook that blocks, gives up when its client goes
// away (its context ends): a request that needs a catch-up, and another
// state change waiting to be recorded. Each is answered 503 (retry), and
// the change is not recorded; the blocked change goes on once its hook
// returns.
func TestReplicaCatchUpWaitEndsWithTheRequest(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	free := sync.OnceFunc(func() { close(release) })
	srv := mcp.NewServer(&mcp.Implementation{Name: "held", Version: "1"}, &mcp.ServerOptions{
		Subscribe: func(context.Context, *mcp.ServerSession, string, bool) error {
			close(entered)
			<-release
			return nil
		},
	})
	store := &MemoryStore{}
	h, sid := initializedHandler(t, srv, &HandlerOptions{Sessions: store})
	if rec := post(h, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); rec.Code != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", rec.Code, rec.Body)
	}
	subscribed := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		subscribed <- post(h, sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://x"}}`)
	}()
	var waiting []func() // the requests that wait, until the test ends
	t.Cleanup(func() {
		free()
		for _, wait := range waiting {
			wait()
		}
	})
	<-entered // the subscribe holds the catch-up lock in its hook

	waits := make(chan struct{}, 1)
	hook := func() { waits <- struct{}{} }
	h.testHookCatchWait.Store(&hook)
	for i, body := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"error"}}`,
	} {
		ctx, leave := context.WithCancel(context.Background())
		answered := make(chan *httptest.ResponseRecorder, 1)
		go func() {
			r := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set(HeaderProtocolVersion, mcp.Version20251125)
			r.Header.Set(HeaderSessionID, sid)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			answered <- rec
		}()
		waiting = append(waiting, func() { leave(); <-answered })
		<-waits // it waits for the lock
		leave() // and its client goes away
		select {
		case rec := <-answered:
			if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "retry") {
				t.Errorf("request %d, its client gone while it waited for the catch-up lock: %d %s, want 503 (retry)", i, rec.Code, rec.Body)
			}
			answered <- rec // for the cleanup
		case <-time.After(10 * time.Second):
			t.Fatalf("request %d still waits for the session's catch-up lock, held by a blocked Subscribe hook, after its client went away", i)
		}
	}
	h.testHookCatchWait.Store(nil)
	free()
	if rec := <-subscribed; rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"result"`) {
		t.Fatalf("the subscribe whose hook blocked: %d %s", rec.Code, rec.Body)
	}
	msgs, err := store.Load(context.Background(), sid, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if strings.Contains(string(m), "logging/setLevel") {
			t.Fatalf("a setLevel given up before it was recorded is in the record: %s", m)
		}
	}
	// The session goes on: the next request catches up and is served.
	if rec := post(h, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`); rec.Code != http.StatusOK {
		t.Fatalf("tools/list after the hook returned: %d %s", rec.Code, rec.Body)
	}
}

// A relayed catch-up waiting for the lock, held by a state change whose
// Subscribe hook never returns, leaves when the session ends: it is not
// parked for good.
func TestReplicaRelayedCatchUpLeavesWithTheSession(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "relayed", Version: "1"}, nil)
	h, sid := initializedHandler(t, srv, &HandlerOptions{Sessions: &MemoryStore{}})
	s := h.session(sid)
	if err := s.lockCatch(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.unlockCatch()
	waits := make(chan struct{}, 1)
	hook := func() { waits <- struct{}{} }
	h.testHookCatchWait.Store(&hook)
	done := make(chan struct{})
	go func() { h.catchUpShared(s); close(done) }()
	<-waits
	s.end()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a relayed catch-up still waits for the lock after its session ended")
	}
}
