package mcphttp_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

// Client.Close over HTTP, whose stream deletes the session, returns
// within the framer's CloseTimeout when the server holds the DELETE
// forever. Before, it waited 5 s.
func TestClientCloseWithStalledDelete(t *testing.T) {
	release, deleted := make(chan struct{}), make(chan struct{})
	_, url := serveHTTPWrapped(t, httpTestServer(), nil, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete {
				close(deleted)
				<-release
			}
			h.ServeHTTP(w, r)
		})
	})
	t.Cleanup(func() { close(release) }) // before the server's shutdown
	c, f := dialHTTP(t, url, &client.Options{ProtocolVersion: mcp.Version20251125})
	if f.SessionID() == "" {
		t.Fatal("no session to delete")
	}
	start := time.Now()
	c.Close()
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("Close took %v against a stalled DELETE", elapsed)
	}
	select {
	case <-deleted:
	case <-time.After(5 * time.Second):
		t.Error("Close did not send the DELETE")
	}
}
