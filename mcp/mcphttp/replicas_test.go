package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/logrec"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/replicatest"
)

// memReplicas serves three replicas of one server, each its own Server and
// Handler, sharing in-memory stores, a bus and a keyring: what Redis
// shares between processes.
func memReplicas(t *testing.T) ([]*mcp.Server, []string) {
	t.Helper()
	store := &mcphttp.MemoryStore{}
	bus := &mcphttp.MemoryBus{}
	relay := &mcphttp.MemoryRelay{}
	keys := mcphttp.NewKeyring([]byte("0123456789abcdef0123456789abcdef"))
	var srvs []*mcp.Server
	var urls []string
	for range 3 {
		srv := replicatest.Server(&mcp.ServerOptions{Logger: quietLog, Bus: bus, StateKeys: keys})
		_, u := serveHTTP(t, srv, &mcphttp.HandlerOptions{Sessions: store, Events: store.Events(), Relay: relay})
		srvs = append(srvs, srv)
		urls = append(urls, u)
	}
	return srvs, urls
}

// replicasOf serves n replicas of replicatest.Server, each a Server and
// Handler of its own with a copy of opts (nil: no stores), and returns
// their URLs.
func replicasOf(t *testing.T, n int, opts *mcphttp.HandlerOptions) []string {
	t.Helper()
	var urls []string
	for range n {
		var o *mcphttp.HandlerOptions
		if opts != nil {
			cp := *opts
			o = &cp
		}
		_, u := serveHTTP(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}), o)
		urls = append(urls, u)
	}
	return urls
}

func TestReplicasLegacySession(t *testing.T) {
	_, urls := memReplicas(t)
	replicatest.LegacySession(t, urls)
}

func TestReplicasResumeElsewhere(t *testing.T) {
	_, urls := memReplicas(t)
	replicatest.ResumeElsewhere(t, urls, replicatest.Count, nil)
}

// A Last-Event-ID past a stream's last event is refused, on the replica
// that holds the stream and on one that resumes it from the store.
func TestReplicasResumeBeyondTheLastEvent(t *testing.T) {
	_, urls := memReplicas(t)
	replicatest.ResumeBeyond(t, urls[:2], replicatest.Count)
}

func TestReplicasListenAcross(t *testing.T) {
	srvs, urls := memReplicas(t)
	replicatest.ListenAcross(t, urls, "test://watched", func() {
		srvs[2].ResourceUpdated(context.Background(), "test://watched")
	})
}

func TestReplicasRequestStateAcross(t *testing.T) {
	_, urls := memReplicas(t)
	replicatest.RequestStateAcross(t, urls, replicatest.Ask)
}

func TestReplicasAnswerElsewhere(t *testing.T) {
	_, urls := memReplicas(t)
	replicatest.AnswerElsewhere(t, urls, replicatest.Greet)
}

func TestReplicasSubscribeElsewhere(t *testing.T) {
	srvs, urls := memReplicas(t)
	replicatest.SubscribeElsewhere(t, urls, "test://watched", func() {
		srvs[2].ResourceUpdated(context.Background(), "test://watched")
	})
}

// Without stores, a replica does not know another's session: the
// scenarios above fail on one process's state, which is what they test.
func TestReplicasWithoutStoresDoNotShare(t *testing.T) {
	urls := replicasOf(t, 2, nil)
	sid := replicatest.Initialize(t, urls[0])
	resp := replicatest.Post(t, urls[1], sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("status %d, want 404", resp.StatusCode)
	}
}

// An open GET stream keeps its session alive in the store, as it does in
// one process, and a session deleted through another replica ends the
// stream.
func TestReplicasGetStreamKeepsSession(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	const timeout = 300 * time.Millisecond
	urls := replicasOf(t, 2, &mcphttp.HandlerOptions{Sessions: store, Events: store.Events(), SessionTimeout: timeout})
	sid := replicatest.Initialize(t, urls[0])
	resp := replicatest.OpenGET(t, urls[0], sid)
	defer resp.Body.Close()
	// Three timeouts with nothing but the GET stream open.
	<-time.After(3 * timeout)
	r := replicatest.Post(t, urls[1], sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("a session whose GET stream is open expired from the store: status %d", r.StatusCode)
	}
	del, _ := http.NewRequest(http.MethodDelete, urls[1], nil)
	del.Header.Set("Mcp-Session-Id", sid)
	del.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if r, err := http.DefaultClient.Do(del); err != nil || r.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", r, err)
	}
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the GET stream of a session deleted through another replica did not end")
	}
}

type countingStore struct {
	mcphttp.MemoryStore
	loads atomic.Int64
}

func (c *countingStore) Load(ctx context.Context, id string, ttl time.Duration) ([][]byte, error) {
	c.loads.Add(1)
	return c.MemoryStore.Load(ctx, id, ttl)
}

// A session id or stream id not of the server's making gets 404 or 410
// without a store round trip: the client does not choose store keys.
func TestReplicasHostileIDsSkipTheStore(t *testing.T) {
	store := &countingStore{}
	_, u := serveHTTP(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
		&mcphttp.HandlerOptions{Sessions: store, Events: store.Events()})
	for _, sid := range []string{strings.Repeat("a", 4000), "mcp:session:x", "0123456789ABCDEF0123456789ABCDEF", "*"} {
		r := replicatest.Post(t, u, sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
		r.Body.Close()
		if r.StatusCode != http.StatusNotFound {
			t.Fatalf("session %.20q: status %d, want 404", sid, r.StatusCode)
		}
	}
	if n := store.loads.Load(); n != 0 {
		t.Fatalf("%d store loads for ids the server never made", n)
	}
	sid := replicatest.Initialize(t, u)
	for _, last := range []string{"mcp:stream:x_1", strings.Repeat("9", 300) + "_1", "abcdefgh-1_0"} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Last-Event-ID", last)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusGone {
			t.Fatalf("Last-Event-ID %.20q: status %d, want 410", last, r.StatusCode)
		}
	}
}

// A session opened with a token is bound to its identity on every
// replica, not only the one that opened it: a replica that adopts it from
// the store refuses another identity's token, and a request without one.
func TestReplicasSessionKeepsItsIdentity(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		if tok == "alice" || tok == "mallory" {
			return &mcphttp.AuthInfo{Subject: tok}, nil
		}
		return nil, mcphttp.ErrInvalidToken
	})
	withAuth := func(h http.Handler) http.Handler {
		return mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier}, h)
	}
	var urls []string
	for range 3 {
		_, u := serveHTTPWrapped(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
			&mcphttp.HandlerOptions{Sessions: store, Events: store.Events()}, withAuth)
		urls = append(urls, u)
	}
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	resp := replicatest.Post(t, urls[0], "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"alice","version":"1"}}}`, bearer("alice"))
	sid := resp.Header.Get("Mcp-Session-Id")
	replicatest.Result(t, resp)
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	// mallory first on B, so that it is mallory's request that adopts
	// the session there; then alice's own request on C, then mallory's
	// on C, where alice's request adopted it.
	for _, step := range []struct {
		url, tok string
		want     int
	}{
		{urls[1], "mallory", http.StatusForbidden},
		{urls[2], "alice", http.StatusOK},
		{urls[2], "mallory", http.StatusForbidden},
		{urls[1], "alice", http.StatusOK},
	} {
		r := replicatest.Post(t, step.url, sid, "2025-11-25", list, bearer(step.tok))
		r.Body.Close()
		if r.StatusCode != step.want {
			t.Fatalf("%s on replica %s: status %d, want %d", step.tok, step.url, r.StatusCode, step.want)
		}
	}
}

// A session's record is bounded in bytes, not only in messages: every
// request of the session loads it whole, on every replica, so a client
// that records large state changes (padding in a resources/subscribe, up
// to the body limit) must not make each of its requests a load of
// gigabytes.
func TestReplicasRecordBytesAreBounded(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	_, u := serveHTTP(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
		&mcphttp.HandlerOptions{Sessions: store, Events: store.Events()})
	sid := replicatest.Initialize(t, u)
	pad := strings.Repeat("x", 256<<10)
	refused := false
	for i := range 3 * mcphttp.MaxStateBytes / len(pad) {
		r := replicatest.Post(t, u, sid, "2025-11-25",
			`{"jsonrpc":"2.0","id":`+strconv.Itoa(i+2)+`,"method":"resources/subscribe","params":{"uri":"test://`+pad+`"}}`, nil)
		r.Body.Close()
		if r.StatusCode == http.StatusBadRequest {
			refused = true
			break
		}
	}
	msgs, err := store.Load(context.Background(), sid, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, m := range msgs {
		total += len(m)
	}
	if !refused || total > mcphttp.MaxStateBytes {
		t.Fatalf("the record holds %d bytes (refused: %v), the bound is %d", total, refused, mcphttp.MaxStateBytes)
	}
	// The session is still served; a large initialize is refused, not
	// recorded.
	replicatest.Sum(t, u, sid, 100, 1, 2)
	r := replicatest.Post(t, u, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+strings.Repeat("x", mcphttp.MaxStateBytes)+`","version":"1"}}}`, nil)
	r.Body.Close()
	if r.StatusCode != http.StatusBadRequest || r.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("an initialize larger than the record's bound: status %d, session %q", r.StatusCode, r.Header.Get("Mcp-Session-Id"))
	}
}

// stalledEvents is an EventStore on a store that stopped answering: each
// Append waits for its context's deadline (or the test's end).
type stalledEvents struct {
	released chan struct{}
	appends  atomic.Int64
}

func (st *stalledEvents) Append(ctx context.Context, _, _ string, _ mcphttp.StoredEvent, _ bool, _ time.Duration) error {
	st.appends.Add(1)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-st.released:
		return context.DeadlineExceeded
	}
}

func (st *stalledEvents) Replay(context.Context, string, string, int) ([]mcphttp.StoredEvent, bool, error) {
	return nil, false, mcphttp.ErrNotFound
}

// An EventStore that stops answering costs only resumption on other
// replicas: a call whose stream it would keep is delayed once, not one
// store timeout per event. What the log says of it names the session by
// its digest, never its ID.
func TestReplicasStalledEventStoreDoesNotStallCalls(t *testing.T) {
	events := &stalledEvents{released: make(chan struct{})}
	defer close(events.released)
	store := &mcphttp.MemoryStore{}
	var logs logrec.Buffer
	_, u := serveHTTP(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
		&mcphttp.HandlerOptions{Sessions: store, Events: events,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	sid := replicatest.Initialize(t, u)
	_, resp, evs := replicatest.StartCall(t, u, sid, "count", `{"steps":3}`)
	defer resp.Body.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			ev, err := evs.Next()
			if err != nil || strings.Contains(ev.Data, `"result"`) {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		// Four events, each held up to the append timeout (1 s).
		t.Fatalf("a call with 3 progress events did not end within 3 s on a stalled event store (%d appends begun)", events.appends.Load())
	}
	if n := events.appends.Load(); n != 1 {
		t.Errorf("%d appends were tried; want 1, then none while the handler rests", n)
	}
	out := logs.String()
	if !strings.Contains(out, "storing a stream's event failed") {
		t.Fatalf("no line about the failed append; the check below would pass vacuously:\n%s", out)
	}
	if strings.Contains(out, sid) {
		t.Errorf("the session ID %s is in the log:\n%s", sid, out)
	}
}

// A state change refused here (its id is in use by a request in
// progress) is not recorded either: the other replicas would replay an
// unsubscribe the client was told failed, and the session's copies would
// disagree on what it is subscribed to.
func TestReplicasRefusedStateChangeIsNotRecorded(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	_, u := serveHTTP(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
		&mcphttp.HandlerOptions{Sessions: store, Events: store.Events()})
	sid := replicatest.Initialize(t, u)
	replicatest.Result(t, replicatest.Post(t, u, sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://watched"}}`, nil))
	// greet waits for the client's answer to its elicitation: id 9 stays
	// in progress until the test ends.
	_, resp, _ := replicatest.StartCall(t, u, sid, "greet", `{}`)
	defer resp.Body.Close()
	r := replicatest.Post(t, u, sid, "2025-11-25", `{"jsonrpc":"2.0","id":7,"method":"resources/unsubscribe","params":{"uri":"test://watched"}}`, nil)
	r.Body.Close()
	if r.StatusCode != http.StatusBadRequest {
		t.Fatalf("unsubscribe with the id of a request in progress: status %d, want 400", r.StatusCode)
	}
	msgs, err := store.Load(context.Background(), sid, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if strings.Contains(string(m), "resources/unsubscribe") {
			t.Fatalf("the refused unsubscribe is in the session's record: %s", m)
		}
	}
}

// A request with another identity's token does not make a replica adopt
// the session it names: it gets 403, and the replica runs no copy of the
// session for it (nor replays the session's state).
func TestReplicasNoCopyForAnotherIdentity(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		return &mcphttp.AuthInfo{Subject: tok}, nil
	})
	withAuth := func(h http.Handler) http.Handler {
		return mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier}, h)
	}
	var hs []*mcphttp.Handler
	var urls []string
	for range 2 {
		h, u := serveHTTPWrapped(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
			&mcphttp.HandlerOptions{Sessions: store, Events: store.Events()}, withAuth)
		hs = append(hs, h)
		urls = append(urls, u)
	}
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	resp := replicatest.Post(t, urls[0], "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"alice","version":"1"}}}`, bearer("alice"))
	sid := resp.Header.Get("Mcp-Session-Id")
	replicatest.Result(t, resp)
	r := replicatest.Post(t, urls[1], sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, bearer("mallory"))
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden {
		t.Fatalf("mallory: status %d, want 403", r.StatusCode)
	}
	if n := hs[1].SessionCount(); n != 0 {
		t.Fatalf("mallory's request made replica B run %d copies of alice's session", n)
	}
}

// afterLoadStore is a MemoryStore that, once armed, runs a hook after the
// next Load: another replica's request that lands between a request's
// load of the record and its append.
type afterLoadStore struct {
	mcphttp.MemoryStore
	hook atomic.Pointer[func()]
}

func (st *afterLoadStore) Load(ctx context.Context, id string, ttl time.Duration) ([][]byte, error) {
	msgs, err := st.MemoryStore.Load(ctx, id, ttl)
	if f := st.hook.Swap(nil); f != nil {
		(*f)()
	}
	return msgs, err
}

// MaxStateBytes bounds the record in the store, not as each replica last
// loaded it: two replicas whose requests load the record before either
// appends do not make it hold twice the bound between them.
func TestReplicasRecordBytesBoundHoldsAcrossReplicas(t *testing.T) {
	store := &afterLoadStore{}
	urls := replicasOf(t, 2, &mcphttp.HandlerOptions{Sessions: store})
	sid := replicatest.Initialize(t, urls[0])
	replicatest.Sum(t, urls[1], sid, 100, 1, 2) // B serves the session too
	pad := strings.Repeat("x", mcphttp.MaxStateBytes*6/10)
	subscribe := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"resources/subscribe","params":{"uri":"test://` + pad + `"}}`
	}
	var first int
	hook := func() {
		// Replica A's subscribe, recorded after B loaded the record.
		r := replicatest.Post(t, urls[0], sid, "2025-11-25", subscribe(2), nil)
		r.Body.Close()
		first = r.StatusCode
	}
	store.hook.Store(&hook)
	r := replicatest.Post(t, urls[1], sid, "2025-11-25", subscribe(3), nil)
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if first != http.StatusOK {
		t.Fatalf("the first subscribe: status %d", first)
	}
	msgs, err := store.MemoryStore.Load(context.Background(), sid, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, m := range msgs {
		total += len(m)
	}
	if total > mcphttp.MaxStateBytes {
		t.Fatalf("the record holds %d bytes, the bound is %d (second subscribe: status %d)", total, mcphttp.MaxStateBytes, r.StatusCode)
	}
	if r.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "initialize a new session") {
		t.Fatalf("the subscribe beyond the bound: status %d %s, want 400 saying to initialize a new session", r.StatusCode, body)
	}
}

// lostReplyStore is a MemoryStore whose next Append, once armed, fails
// after it wrote (written) or before (not written): a store whose reply
// is lost, to a timeout say, leaves the append's outcome unknown.
type lostReplyStore struct {
	mcphttp.MemoryStore
	armed, written atomic.Bool
	deleted        atomic.Bool // the session is deleted (by another replica) as the reply is lost
}

func (st *lostReplyStore) Append(ctx context.Context, id string, msg []byte, ttl time.Duration) (int, error) {
	if !st.armed.CompareAndSwap(true, false) {
		return st.MemoryStore.Append(ctx, id, msg, ttl)
	}
	if st.written.Load() {
		_, _ = st.MemoryStore.Append(ctx, id, msg, ttl)
	}
	if st.deleted.Load() {
		_ = st.MemoryStore.Delete(ctx, id)
	}
	return 0, context.DeadlineExceeded
}

// A state change whose append fails with an unknown outcome is answered
// by what the record holds: one the store did write, which every replica
// applies, is served, not refused with 503; one it did not write gets
// 503, and no replica applies it.
func TestReplicasStateChangeOfUnknownOutcome(t *testing.T) {
	for _, written := range []bool{true, false} {
		t.Run(fmt.Sprintf("written=%v", written), func(t *testing.T) {
			store := &lostReplyStore{}
			urls := replicasOf(t, 2, &mcphttp.HandlerOptions{Sessions: store})
			sid := replicatest.Initialize(t, urls[0])
			store.written.Store(written)
			store.armed.Store(true)
			r := replicatest.Post(t, urls[0], sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://watched"}}`, nil)
			body, _ := io.ReadAll(r.Body)
			r.Body.Close()
			msgs, err := store.MemoryStore.Load(context.Background(), sid, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			recorded := false
			for _, m := range msgs {
				recorded = recorded || strings.Contains(string(m), "resources/subscribe")
			}
			if recorded != written {
				t.Fatalf("the store double recorded the subscribe: %v, want %v", recorded, written)
			}
			want := http.StatusServiceUnavailable
			if written {
				want = http.StatusOK
			}
			if r.StatusCode != want {
				t.Fatalf("a subscribe the store %s: status %d %s, want %d", map[bool]string{true: "wrote", false: "did not write"}[written], r.StatusCode, body, want)
			}
			// The session goes on, on either replica.
			replicatest.Sum(t, urls[0], sid, 100, 1, 2)
			replicatest.Sum(t, urls[1], sid, 101, 1, 2)
		})
	}
}

// A state change whose append fails with an unknown outcome while another
// replica deletes the session is answered 404, as when the append finds
// the session gone: a 503 would send the client to retry on a session
// that no longer exists. Every replica then forgets the session.
func TestReplicasStateChangeOfUnknownOutcomeOnAGoneSession(t *testing.T) {
	for _, written := range []bool{true, false} {
		t.Run(fmt.Sprintf("written=%v", written), func(t *testing.T) {
			store := &lostReplyStore{}
			urls := replicasOf(t, 2, &mcphttp.HandlerOptions{Sessions: store})
			sid := replicatest.Initialize(t, urls[0])
			replicatest.Sum(t, urls[1], sid, 2, 1, 2) // B serves the session too
			store.written.Store(written)
			store.deleted.Store(true)
			store.armed.Store(true)
			r := replicatest.Post(t, urls[0], sid, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"test://watched"}}`, nil)
			body, _ := io.ReadAll(r.Body)
			r.Body.Close()
			if r.StatusCode != http.StatusNotFound {
				t.Fatalf("a subscribe on a session deleted as its append's reply was lost: status %d %s, want 404", r.StatusCode, body)
			}
			for i, u := range urls {
				r := replicatest.Post(t, u, sid, "2025-11-25", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, nil)
				r.Body.Close()
				if r.StatusCode != http.StatusNotFound {
					t.Fatalf("replica %d after the session's deletion: status %d, want 404", i, r.StatusCode)
				}
			}
		})
	}
}

// State changes made through two replicas at once leave every replica in
// the state of the session's record, in its order: each replica applied
// its own change first, and the one recorded first is caught up after
// it.
func TestReplicasConcurrentStateChangesFollowTheRecord(t *testing.T) {
	// No Relay: a replica catches up only as a request comes in, so the
	// hook's Load is the next request's.
	store := &afterLoadStore{}
	urls := replicasOf(t, 3, &mcphttp.HandlerOptions{Sessions: store})
	replicatest.ConcurrentLevels(t, urls, func(f func()) { store.hook.Store(&f) })
}

// A request that loaded the session's record before its replica recorded
// a change of its own catches up on the record as it is now, not as it
// loaded it: a change of another replica recorded ahead of the replica's
// own is caught up before the own one, not after it.
func TestReplicasCatchUpOnARecordLoadedEarlier(t *testing.T) {
	store := &afterLoadStore{}
	urls := replicasOf(t, 2, &mcphttp.HandlerOptions{Sessions: store})
	sid := replicatest.Initialize(t, urls[0])
	replicatest.Sum(t, urls[1], sid, 2, 1, 2) // B serves the session too
	debugged := make(chan struct{})
	listed := make(chan error, 1)
	afterDebugLoad := func() {
		// A's setLevel(debug) has loaded the record; B records error
		// ahead of it.
		replicatest.SetLevel(t, urls[1], sid, 3, "error")
		// A request on A loads the record with B's error, and catches up
		// only once A has recorded and applied debug.
		loaded := make(chan struct{})
		afterListLoad := func() {
			close(loaded)
			<-debugged
		}
		store.hook.Store(&afterListLoad)
		go func() {
			req, _ := http.NewRequest(http.MethodPost, urls[0], strings.NewReader(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			listed <- err
		}()
		<-loaded
	}
	store.hook.Store(&afterDebugLoad)
	replicatest.SetLevel(t, urls[0], sid, 5, "debug")
	close(debugged)
	if err := <-listed; err != nil {
		t.Fatalf("tools/list on A: %v", err)
	}
	// The record ends with debug.
	for i, u := range urls {
		if !replicatest.Warns(t, u, sid, 10+i) {
			t.Errorf("replica %d logs no warning: its level is not the record's last one (debug)", i)
		}
	}
}

// Without a Relay to announce it, a state change made through another
// replica reaches a replica whose GET stream is open when it next keeps
// the session alive in the store (every third of SessionTimeout): the
// record it loads then is caught up with, not only kept.
func TestReplicasGetStreamCatchesUpWithoutARelay(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	var srvs []*mcp.Server
	var urls []string
	for range 2 {
		srv := replicatest.Server(&mcp.ServerOptions{Logger: quietLog})
		_, u := serveHTTP(t, srv, &mcphttp.HandlerOptions{Sessions: store, SessionTimeout: 900 * time.Millisecond})
		srvs = append(srvs, srv)
		urls = append(urls, u)
	}
	// No bus either: the update is A's own, heard by A's sessions.
	replicatest.SubscribeElsewhere(t, urls, "test://watched", func() {
		srvs[0].ResourceUpdated(context.Background(), "test://watched")
	})
}

// A replayed state change that the session refuses as busy (its one
// in-flight slot is held by a call waiting on the client) has not taken
// effect: it is replayed again by a later catch-up, not counted as
// applied, or this replica would differ from the record for good.
func TestReplicasBusyReplayIsReplayedAgain(t *testing.T) {
	urls, subscribed, sid := busyReplicas(t)

	// On B, a call holds the one slot, waiting for the client's answer.
	answer := callWaitingOnClient(t, urls[1], sid)
	replicatest.Result(t, replicatest.Post(t, urls[0], sid, "2025-11-25",
		`{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"test://watched"}}`, nil))
	// B catches up while its slot is taken: the replayed subscribe is
	// refused as busy.
	r := replicatest.Post(t, urls[1], sid, "2025-11-25", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, nil)
	r.Body.Close()
	// The client answers; the call ends, and B's next requests catch up
	// again.
	answer()
	pingUntilServed(t, urls[1], sid, 5)
	if n := subscribed[1].Load(); n != 1 {
		t.Fatalf("B's Subscribe hook ran %d times, want 1: the subscription made through A is not in effect on B", n)
	}
}

// callWaitingOnClient starts a call of replicatest.Greet in session sid
// at url, and returns once the call waits for the client's answer to its
// elicitation, holding an in-flight slot; while it waits, a request that
// finds every slot taken is refused as busy (mcp.CodeServerBusy). answer
// gives the client's answer and returns once the call's result is read.
func callWaitingOnClient(t *testing.T, url, sid string) (answer func()) {
	t.Helper()
	_, resp, rest := replicatest.StartCall(t, url, sid, replicatest.Greet.Name, replicatest.Greet.Args)
	t.Cleanup(func() { resp.Body.Close() })
	var asked struct {
		ID json.RawMessage `json:"id"`
	}
	for {
		ev, err := rest.Next()
		if err != nil {
			t.Fatalf("the call's stream ended before it asked the client: %v", err)
		}
		if strings.Contains(ev.Data, "elicitation/create") {
			if err := json.Unmarshal([]byte(ev.Data), &asked); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	return func() {
		t.Helper()
		ar := replicatest.Post(t, url, sid, "2025-11-25",
			`{"jsonrpc":"2.0","id":`+string(asked.ID)+`,"result":`+replicatest.Greet.Answer+`}`, nil)
		ab, _ := io.ReadAll(ar.Body)
		ar.Body.Close()
		if ar.StatusCode != http.StatusAccepted {
			t.Fatalf("the client's answer: %d %s", ar.StatusCode, ab)
		}
		for {
			ev, err := rest.Next()
			if err != nil {
				t.Fatalf("the call's stream ended without its result: %v", err)
			}
			if strings.Contains(ev.Data, `"result"`) {
				return
			}
		}
	}
}

// pingUntilServed pings session sid at url, ids from id on, until a ping
// is answered 200: once a call has given back its in-flight slot (after
// its result is written), the next request's catch-up may still find
// the slot taken for a moment, and is refused with 503.
func pingUntilServed(t *testing.T, url, sid string, id int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for ; ; id++ {
		r := replicatest.Post(t, url, sid, "2025-11-25", `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"ping"}`, nil)
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a ping still answered %d after the call ended: %s", r.StatusCode, body)
		}
	}
}

// A replica's own state change that its session then refuses as busy
// (its one in-flight slot is held by a call waiting on the client) is in
// the record already, and the other replicas apply it: the replica that
// refused it replays it at its next catch-up like theirs, rather than
// count it as applied and differ from every other replica for good.
func TestReplicasOwnChangeRefusedAsBusyIsReplayed(t *testing.T) {
	urls, subscribed, sid := busyReplicas(t)

	answer := callWaitingOnClient(t, urls[1], sid)
	r := replicatest.Post(t, urls[1], sid, "2025-11-25",
		`{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"test://watched"}}`, nil)
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusOK || !strings.Contains(string(body), strconv.Itoa(mcp.CodeServerBusy)) {
		t.Fatalf("a subscribe through B while B's one slot waits on the client: %d %s, want the busy error %d", r.StatusCode, body, mcp.CodeServerBusy)
	}
	if n := subscribed[1].Load(); n != 0 {
		t.Fatalf("B's Subscribe hook ran %d times for a subscribe it refused as busy", n)
	}
	answer()
	// A catches up with the record, which holds the subscribe; so does B.
	replicatest.Sum(t, urls[0], sid, 4, 1, 2)
	pingUntilServed(t, urls[1], sid, 5)
	if a, b := subscribed[0].Load(), subscribed[1].Load(); a != 1 || b != 1 {
		t.Fatalf("the Subscribe hooks ran %d times on A and %d on B, want once each: the replicas differ on the record's subscribe", a, b)
	}
}

// busyReplicas serves two replicas on one MemoryStore, each with one
// in-flight slot and a count of the Subscribe calls it served, and a
// session initialized on the first and served by the second too.
func busyReplicas(t *testing.T) (urls []string, subscribed *[2]atomic.Int32, sid string) {
	t.Helper()
	store := &mcphttp.MemoryStore{}
	subscribed = new([2]atomic.Int32)
	for i := range 2 {
		srv := replicatest.Server(&mcp.ServerOptions{Logger: quietLog, MaxInFlight: 1,
			Subscribe: func(context.Context, *mcp.ServerSession, string, bool) error {
				subscribed[i].Add(1)
				return nil
			}})
		_, u := serveHTTP(t, srv, &mcphttp.HandlerOptions{Sessions: store})
		urls = append(urls, u)
	}
	sid = replicatest.Initialize(t, urls[0])
	replicatest.Sum(t, urls[1], sid, 2, 1, 2) // B serves the session too
	return urls, subscribed, sid
}
