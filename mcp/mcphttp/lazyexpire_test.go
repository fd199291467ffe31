package mcphttp_test

import (
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// An initialize with room left walks no other session: sessions idle past
// SessionTimeout are left to their own timers, and are closed before a
// refusal only when a bound is met: all sessions for MaxSessions, the
// owner's alone for MaxSessionsPerSubject. Every initialize used to check
// every session under the handler's lock, O(sessions) each, without end
// when MaxSessions is unlimited.
func TestHTTPInitializeExpiresOnlyAtABound(t *testing.T) {
	clock := newFakeClock()
	h, url := serveHTTPWrapped(t, httpTestServer(), &mcphttp.HandlerOptions{MaxSessions: 3, MaxSessionsPerSubject: 1, SessionTimeout: time.Minute}, withAuth)
	h.SetClock(clock.now)
	alice := &mcphttp.AuthInfo{Subject: "alice"}
	mustInitialize(t, url, "alice.c")
	clock.advance(time.Minute) // alice's session is past the timeout; its timer, on real time, has not fired
	mustInitialize(t, url, "bob.c")
	if n := h.SessionCount(); n != 2 {
		t.Fatalf("%d sessions; want 2: with room, alice's expired session is left to its timer", n)
	}
	mustInitialize(t, url, "alice.c") // alice's bound is met: her expired session is closed first
	if n, all := h.SessionsOf(alice), h.SessionCount(); n != 1 || all != 2 {
		t.Fatalf("alice holds %d sessions of %d; want 1 of 2", n, all)
	}
	clock.advance(time.Minute) // bob's and alice's are past the timeout
	mustInitialize(t, url, "carol.c")
	if n := h.SessionCount(); n != 3 {
		t.Fatalf("%d sessions; want 3: with room, nothing is closed", n)
	}
	mustInitialize(t, url, "dave.c") // MaxSessions is met: the expired ones are closed first
	if n := h.SessionCount(); n != 2 {
		t.Fatalf("%d sessions; want carol's and dave's", n)
	}
}
