package mcphttp

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// A server that keeps a request's SSE stream open after the response (it
// is slow to end it, or hostile) must not hold the call: it returns with
// its response at once, as when the response went through ReadFrame. The
// call here has no deadline, so a call waiting for the stream to end
// would wait for as long as the server holds it.
func TestDirectStreamLingers(t *testing.T) {
	directLeaks(t)
	hold := make(chan struct{})
	defer close(hold)
	c, _ := directConn(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		answerSSE(w, `{"jsonrpc":"2.0","id":`+requestID(r)+`,"result":{"n":2}}`)
		w.(http.Flusher).Flush()
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}, nil, &transport.ConnOptions{Timeout: -1}, nil)
	done := make(chan error, 1)
	go func() {
		var got struct{ N int }
		err := c.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, &got)
		if err == nil && got.N != 2 {
			err = context.Canceled
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Call: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call waits for the server to end its stream after the response")
	}
}
