package mcphttp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// A server cannot make the client reconnect its GET stream in a tight
// loop with a tiny "retry:" hint: the hint is honoured down to
// mcphttp.MinRetryDelay only. Before, "retry: 1" and an empty stream made
// the client reconnect every millisecond, forever.
func TestRetryHintHasAFloor(t *testing.T) {
	var mu sync.Mutex
	var gets []time.Time
	third := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			mu.Lock()
			gets = append(gets, time.Now())
			if len(gets) == 3 {
				close(third)
			}
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "retry: 1\n\n")
			return
		}
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"initialize"`) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(mcphttp.HeaderSessionID, "s1")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	}))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := mcphttp.NewStream(ctx, ts.URL, &mcphttp.ClientOptions{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctx, stream, &client.Options{ProtocolVersion: mcp.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case <-third:
	case <-ctx.Done():
		t.Fatal("the client did not reconnect its GET stream")
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < 3; i++ {
		if gap := gets[i].Sub(gets[i-1]); gap < mcphttp.MinRetryDelay-10*time.Millisecond {
			t.Errorf("reconnected %v after the last GET; the floor is %v", gap, mcphttp.MinRetryDelay)
		}
	}
}
