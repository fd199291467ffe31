package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/replicatest"
)

// subjectTokens verifies tokens "subject.client" as that subject and
// client, so that a test names the identity each request speaks for.
var subjectTokens = mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
	sub, cl, ok := strings.Cut(tok, ".")
	if !ok {
		return nil, fmt.Errorf("%w: not subject.client", mcphttp.ErrInvalidToken)
	}
	return &mcphttp.AuthInfo{Subject: sub, ClientID: cl}, nil
})

func withAuth(next http.Handler) http.Handler {
	return mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: subjectTokens}, next)
}

// initializeAs sends initialize with token tok and returns the response,
// its body decoded, and the session it opened ("" if none).
func initializeAs(t *testing.T, url, tok string) (*http.Response, rpcReply, string) {
	t.Helper()
	resp := rawPost(t, url, initBody, map[string]string{"Authorization": "Bearer " + tok})
	defer resp.Body.Close()
	var reply rpcReply
	_ = json.NewDecoder(resp.Body).Decode(&reply)
	return resp, reply, resp.Header.Get(mcphttp.HeaderSessionID)
}

func deleteAs(t *testing.T, url, sid, tok string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(mcphttp.HeaderSessionID, sid)
	req.Header.Set(mcphttp.HeaderProtocolVersion, mcp.Version20251125)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// One authenticated subject cannot hold every session of the server: past
// MaxSessionsPerSubject its initialize gets 429 with Retry-After (when its
// idlest session expires) and an error telling it to end unused sessions,
// whichever OAuth client it registers, while another subject still gets
// in. Ending or expiring a session gives its place back. Before the
// bound, one subject opened MaxSessions sessions and locked out everyone.
func TestHTTPSessionsPerSubject(t *testing.T) {
	clock := newFakeClock()
	h, url := serveHTTPWrapped(t, httpTestServer(), &mcphttp.HandlerOptions{MaxSessionsPerSubject: 2}, withAuth)
	h.SetClock(clock.now)
	first := mustInitialize(t, url, "mallory.c1")
	clock.advance(time.Minute)
	mustInitialize(t, url, "mallory.c2") // another client of the same subject
	clock.advance(time.Minute)
	resp, reply, sid := initializeAs(t, url, "mallory.c3")
	if resp.StatusCode != http.StatusTooManyRequests || sid != "" {
		t.Fatalf("a third session of one subject: %s, session %q; want 429 and none", resp.Status, sid)
	}
	// The idlest session, opened at 0, expires at 10 min; it is 2 min.
	if got := resp.Header.Get("Retry-After"); got != "480" {
		t.Errorf("Retry-After %q, want 480 (when the subject's idlest session expires)", got)
	}
	if reply.Error == nil || reply.Error.Code != mcp.CodeInvalidRequest || !strings.Contains(reply.Error.Message, "DELETE") || string(reply.ID) != "1" {
		t.Errorf("refusal %s %+v; want -32600 telling the client to end unused sessions, under id 1", reply.ID, reply.Error)
	}
	if n := h.SessionsOf(&mcphttp.AuthInfo{Subject: "mallory"}); n != 2 {
		t.Errorf("mallory holds %d sessions, want 2", n)
	}
	mustInitialize(t, url, "alice.c1") // another subject is not locked out

	if code := deleteAs(t, url, first, "mallory.c1"); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", code)
	}
	mustInitialize(t, url, "mallory.c3") // the place DELETE gave back

	clock.advance(mcphttp.DefaultSessionTimeout)
	h.ExpireSessions()
	if n := h.SessionsOf(&mcphttp.AuthInfo{Subject: "mallory"}); n != 0 {
		t.Fatalf("mallory holds %d sessions after they all expired", n)
	}
	mustInitialize(t, url, "mallory.c1")
	mustInitialize(t, url, "mallory.c1")
}

func mustInitialize(t *testing.T, url, tok string) string {
	t.Helper()
	resp, reply, sid := initializeAs(t, url, tok)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize as %s: %s %+v", tok, resp.Status, reply.Error)
	}
	return sid
}

// The default bound, no bound, and sessions with no identity, which only
// MaxSessions bounds.
func TestHTTPSessionsPerSubjectDefaults(t *testing.T) {
	_, url := serveHTTPWrapped(t, httpTestServer(), nil, withAuth)
	for range mcphttp.DefaultMaxSessionsPerSubject {
		mustInitialize(t, url, "mallory.c")
	}
	if resp, _, _ := initializeAs(t, url, "mallory.c"); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("initialize past the default bound: %s", resp.Status)
	}

	_, url = serveHTTPWrapped(t, httpTestServer(), &mcphttp.HandlerOptions{MaxSessionsPerSubject: -1, MaxSessions: 3}, withAuth)
	for range 3 {
		mustInitialize(t, url, "mallory.c")
	}
	if resp, _, _ := initializeAs(t, url, "mallory.c"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("initialize past MaxSessions with no per-subject bound: %s", resp.Status)
	}

	_, url = serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{MaxSessionsPerSubject: 1})
	openSession(t, url)
	openSession(t, url) // no identity: not counted per subject
}

// A token without a subject (client credentials) counts against its
// client.
func TestHTTPSessionsPerClientWithoutSubject(t *testing.T) {
	_, url := serveHTTPWrapped(t, httpTestServer(), &mcphttp.HandlerOptions{MaxSessionsPerSubject: 1}, withAuth)
	mustInitialize(t, url, ".svc1")
	mustInitialize(t, url, ".svc2")
	if resp, _, _ := initializeAs(t, url, ".svc1"); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a second session of a subjectless client: %s", resp.Status)
	}
	mustInitialize(t, url, "svc1.x") // a subject named like the client is another identity
}

// The count stays right while initializes, DELETEs, expiry and Shutdown
// race: never past the bound, equal to the subject's live sessions once
// the dust settles, and zero after Shutdown.
func TestHTTPSessionsPerSubjectRace(t *testing.T) {
	const limit = 3
	clock := newFakeClock()
	h := mcphttp.NewHandler(httpTestServer(), &mcphttp.HandlerOptions{MaxSessionsPerSubject: limit, Logger: quietLog})
	h.SetClock(clock.now)
	ts := httptest.NewServer(withAuth(h))
	defer ts.Close()
	url := ts.URL + "/mcp"

	var wg sync.WaitGroup
	var mu sync.Mutex
	opened := 0
	progress := make(chan struct{}, 64)
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := fmt.Sprintf("mallory.c%d", w)
			for i := range 15 {
				resp := rawPost(t, url, initBody, map[string]string{"Authorization": "Bearer " + tok})
				resp.Body.Close()
				sid := resp.Header.Get(mcphttp.HeaderSessionID)
				switch resp.StatusCode {
				case http.StatusOK:
					mu.Lock()
					opened++
					mu.Unlock()
				case http.StatusTooManyRequests, http.StatusServiceUnavailable:
				default:
					t.Errorf("initialize: %s", resp.Status)
				}
				if n := h.SessionsOf(&mcphttp.AuthInfo{Subject: "mallory"}); n > limit {
					t.Errorf("mallory holds %d sessions, past %d", n, limit)
				}
				if sid != "" && i%2 == 0 {
					deleteAs(t, url, sid, tok)
				}
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 20 {
			<-progress
			clock.advance(3 * time.Minute)
			h.ExpireSessions()
		}
	}()
	wg.Wait()
	if opened <= limit {
		t.Fatalf("only %d sessions opened: the race exercised nothing", opened)
	}
	if n, live := h.SessionsOf(&mcphttp.AuthInfo{Subject: "mallory"}), h.SessionCount(); n != live {
		t.Fatalf("mallory is counted %d sessions, %d are live", n, live)
	}

	// Shutdown against initializes still arriving.
	done := make(chan struct{})
	first := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			resp := rawPost(t, url, initBody, map[string]string{"Authorization": fmt.Sprintf("Bearer mallory.s%d", i)})
			resp.Body.Close()
			if i == 0 {
				close(first)
			}
		}
	}()
	<-first
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	if n := h.SessionsOf(&mcphttp.AuthInfo{Subject: "mallory"}); n != 0 || h.SessionCount() != 0 {
		t.Fatalf("after Shutdown mallory is counted %d sessions, %d live", n, h.SessionCount())
	}
}

// A replica adopting a session from the SessionStore counts it against its
// owner there but never refuses it: the session exists already, and
// refusing it would cut off a client the bound admitted elsewhere. Its end
// gives the place back.
func TestHTTPSessionsPerSubjectAdopted(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	var hs []*mcphttp.Handler
	var urls []string
	for range 2 {
		h, u := serveHTTPWrapped(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
			&mcphttp.HandlerOptions{Sessions: store, Events: store.Events(), MaxSessionsPerSubject: 1}, withAuth)
		hs, urls = append(hs, h), append(urls, u)
	}
	alice := &mcphttp.AuthInfo{Subject: "alice"}
	onA := mustInitialize(t, urls[0], "alice.c1")
	mustInitialize(t, urls[1], "alice.c2")
	resp := rawPost(t, urls[1], `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		map[string]string{mcphttp.HeaderSessionID: onA, mcphttp.HeaderProtocolVersion: mcp.Version20251125, "Authorization": "Bearer alice.c1"})
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a ping of alice's session from A on B, where alice holds her one: %s", resp.Status)
	}
	if n := hs[1].SessionsOf(alice); n != 2 {
		t.Fatalf("B counts %d sessions of alice, want 2 (the adopted copy too)", n)
	}
	if code := deleteAs(t, urls[1], onA, "alice.c1"); code != http.StatusNoContent {
		t.Fatalf("DELETE on B: %d", code)
	}
	if n := hs[1].SessionsOf(alice); n != 1 {
		t.Fatalf("B counts %d sessions of alice after the DELETE, want 1", n)
	}
}
