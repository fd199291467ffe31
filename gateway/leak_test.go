package gateway

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/transport"
)

// TestCloseLeaksNoGoroutines: a gateway with a child, an in-process
// upstream and a session, after calls of every outcome, leaves no
// goroutine behind once closed.
func TestCloseLeaksNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	g, err := New(&Options{Config: hostileConfig(t), Servers: inproc(), Policy: mustPolicy(t, `{"approval":{"default":"never"},"tools":{"hostile/hang":{"budgets":{"timeoutMs":200}}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	a, b := transport.Pipe(nil)
	g.Server().Connect(a)
	c, err := client.Connect(ctx, b, &client.Options{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range []struct {
		name string
		args any
	}{{"up__echo", map[string]any{"text": "x"}}, {"up__add", map[string]any{"a": "1"}}, {"hostile__hang", nil}, {"hostile__malformed", nil}, {"nope", nil}} {
		if _, err := c.CallTool(ctx, call.name, call.args); err != nil {
			t.Fatalf("%s: %v", call.name, err)
		}
	}
	c.Close()
	g.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2 { // the race detector and timers may keep one or two
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:n])
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline: goroutines end on their own schedule
	}
}
