package mcphttp

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// A request admitted to a session as the session ends (a DELETE, its idle
// timer, MaxSessions) recorded its AuthInfo after end had forgotten the
// session's: the global map then held the ended ServerSession, and all it
// reaches, for the life of the process, one more for every such race a
// client with a token cared to run.
func TestSessionAuthForgottenAfterEnd(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "leak", Version: "1"}, nil)
	h := NewHandler(srv, nil)
	defer func() { _ = h.Shutdown(context.Background()) }()
	s := h.newSession(newSessionID())
	a := &AuthInfo{Subject: "alice", ClientID: "app"}
	r := httptest.NewRequest("POST", "/mcp", nil)
	r = r.WithContext(context.WithValue(r.Context(), authKey{}, a))
	s.bindAuth(r)
	s.end()
	// The request that raced with end is admitted by identity (its
	// enter then finds the session gone), and must leave nothing behind.
	s.sameIdentity(r)
	if _, ok := sessionAuth.Load(s.ss); ok {
		t.Fatal("an ended session's AuthInfo is still held")
	}
}
