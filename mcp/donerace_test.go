package mcp

import (
	"sync"
	"testing"
	"time"
)

// A ConnectDirect session's done channel is made on first use: every
// waiter, whether it asked before, during or after Close, sees it closed,
// and Close and Done racing neither close it twice nor lose the close.
func TestDirectDoneRace(t *testing.T) {
	srv := NewServer(&Implementation{Name: "d", Version: "1"}, &ServerOptions{Logger: quietLogger()})
	for range 200 {
		ss := srv.ConnectDirect(nil)
		var wg sync.WaitGroup
		waiters := make([]<-chan struct{}, 4)
		for i := range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				waiters[i] = ss.Done()
			}()
		}
		wg.Add(2)
		go func() { defer wg.Done(); _ = ss.Close() }()
		go func() { defer wg.Done(); _ = ss.Close() }()
		wg.Wait()
		for _, d := range append(waiters, ss.Done()) {
			select {
			case <-d:
			case <-time.After(5 * time.Second):
				t.Fatal("a waiter missed the session's end")
			}
		}
	}
}
