package mcphttp

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// A request that would be answered with a stream, whose session closes
// before the stream starts (DELETE on another connection, Shutdown), is
// answered 503 under its id, as one answered with JSON is. It used to be
// answered nothing: net/http then sent an empty 200 after the handler
// returned, which a client takes for a success without a result, and
// wrote it after the handler's last write deadline.
func TestStreamedRequestOfAClosedSession(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quiet})
	h := NewHandler(srv, &HandlerOptions{Logger: quiet})
	for _, id := range []string{newSessionID(), ""} {
		s := h.newSession(id)
		if id != "" {
			if e := h.register(s, true); e != nil {
				t.Fatal(e.err)
			}
		}
		m, e := parseMessage([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}`))
		if e != nil {
			t.Fatal(e.err)
		}
		p, e := s.expect(m, true)
		if e != nil {
			t.Fatal(e.err)
		}
		s.end()
		if id == "" {
			s.untrack()
		}
		rec := httptest.NewRecorder()
		h.answer(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil), s, m, p, quickAnswer)
		if body := rec.Body.String(); rec.Code != http.StatusServiceUnavailable || !strings.Contains(body, `"id":7`) || !strings.Contains(body, "session closed") {
			t.Errorf("session %q closed before its stream started: %d %q; want 503 with a JSON-RPC error under id 7", id, rec.Code, body)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
