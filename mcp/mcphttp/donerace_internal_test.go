package mcphttp

import (
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// A stateless session's done channel is made on first use: every waiter,
// whether it asked before, during or after Close, sees it closed; ended
// and gone agree; a second Close is harmless.
func TestStatelessDoneRace(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quiet})
	h := NewHandler(srv, &HandlerOptions{Logger: quiet})
	for range 200 {
		s := h.newSession("")
		var wg sync.WaitGroup
		waiters := make([]<-chan struct{}, 4)
		for i := range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				waiters[i] = s.doneChan()
				_ = s.ended()
			}()
		}
		wg.Add(2)
		go func() { defer wg.Done(); _ = s.Close() }()
		go func() { defer wg.Done(); _ = s.Close() }()
		wg.Wait()
		for _, d := range append(waiters, s.doneChan()) {
			select {
			case <-d:
			case <-time.After(5 * time.Second):
				t.Fatal("a waiter missed the session's end")
			}
		}
		if !s.ended() {
			t.Fatal("closed, yet not ended")
		}
	}
}
