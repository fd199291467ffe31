package mcphttp_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/logrec"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// The session ID is what a client presents to use its session (the echo
// masks Mcp-Session-Id for that reason), so the handler's own log lines
// never show it, even at debug level; they name a session by a digest
// that still tells sessions apart.
func TestSessionIDNotLogged(t *testing.T) {
	var logs logrec.Buffer
	clock := newFakeClock()
	h, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{SessionTimeout: time.Minute,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	h.SetClock(clock.now)
	sid := openSession(t, url)
	clock.advance(2 * time.Minute)
	h.ExpireSessions()
	out := logs.String()
	if !strings.Contains(out, "closing an idle session") {
		t.Fatalf("no line about the expired session; the test would pass vacuously:\n%s", out)
	}
	if strings.Contains(out, sid) {
		t.Errorf("the session ID %s is in the log:\n%s", sid, out)
	}
}
