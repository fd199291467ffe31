package mcphttp_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/replicatest"
)

// A replica that adopts a session replays its state changes as the
// session's identity, as the replica that served them did: a Subscribe
// hook that authorizes by mcphttp.SessionAuth sees the opener's
// identity in the replay, not none. Else the replay is refused, and the
// adopting replica serves the session without the subscription its
// client was granted (and told of) on the other.
func TestReplicasReplayKnowsTheIdentity(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		return &mcphttp.AuthInfo{Subject: tok}, nil
	})
	withAuth := func(h http.Handler) http.Handler {
		return mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier}, h)
	}
	var mu sync.Mutex
	var refused []string
	subscribe := func(_ context.Context, ss *mcp.ServerSession, uri string, _ bool) error {
		if a := mcphttp.SessionAuth(ss); a == nil || a.Subject != "alice" {
			mu.Lock()
			refused = append(refused, uri)
			mu.Unlock()
			return &mcp.Error{Code: mcp.CodeInvalidRequest, Message: "not alice's to watch"}
		}
		return nil
	}
	var urls []string
	for range 2 {
		_, u := serveHTTPWrapped(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog, Subscribe: subscribe}),
			&mcphttp.HandlerOptions{Sessions: store, Events: store.Events()}, withAuth)
		urls = append(urls, u)
	}
	bearer := map[string]string{"Authorization": "Bearer alice"}
	resp := replicatest.Post(t, urls[0], "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"alice","version":"1"}}}`, bearer)
	sid := resp.Header.Get("Mcp-Session-Id")
	replicatest.Result(t, resp)
	r := replicatest.Post(t, urls[0], sid, "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, bearer)
	r.Body.Close()
	replicatest.Result(t, replicatest.Post(t, urls[0], sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://watched"}}`, bearer))
	// Replica B adopts the session for alice's next request, replaying
	// the subscription before it answers.
	replicatest.Result(t, replicatest.Post(t, urls[1], sid, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, bearer))
	mu.Lock()
	defer mu.Unlock()
	if len(refused) != 0 {
		t.Fatalf("the Subscribe hook saw no identity (or another) in the adopting replica's replay of %v; the session there is not subscribed", refused)
	}
}
