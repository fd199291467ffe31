package mcphttp_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/replicatest"
)

// slowFirstEvent is an EventStore whose append of a stream's first event
// is slow: it waits for the second's append to begin, or for a while. It
// records the order in which events were appended.
type slowFirstEvent struct {
	mcphttp.EventStore
	appending chan struct{} // closed when the first event's append begins
	second    chan struct{} // closed when the second's begins

	mu    sync.Mutex
	order []int
	both  chan struct{} // closed once two events are appended
}

func (st *slowFirstEvent) Append(ctx context.Context, session, stream string, ev mcphttp.StoredEvent, final bool, ttl time.Duration) error {
	switch ev.N {
	case 1:
		close(st.appending)
		select {
		case <-st.second:
		case <-time.After(200 * time.Millisecond): // room for an append that overtakes it
		}
	case 2:
		close(st.second)
	}
	err := st.EventStore.Append(ctx, session, stream, ev, final, ttl)
	st.mu.Lock()
	st.order = append(st.order, ev.N)
	if len(st.order) == 2 {
		close(st.both)
	}
	st.mu.Unlock()
	return err
}

// A stream's events reach the EventStore in the order they were
// numbered, even when they are written at once: a handler's goroutine
// still sending progress as the handler's result comes (its append is
// slow) must not have the result stored first. Stored first, the final
// event ends the stored stream, and the progress is lost to a client that
// resumes on another replica.
func TestReplicasEventsAreStoredInOrder(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	events := &slowFirstEvent{EventStore: store.Events(), appending: make(chan struct{}), second: make(chan struct{}), both: make(chan struct{})}
	srv := mcp.NewServer(&mcp.Implementation{Name: "order", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "late", Description: "Progress from a goroutine of its own, still being sent as the result comes."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			go func() { _ = req.Progress(context.WithoutCancel(ctx), 1, 1, "") }()
			<-events.appending
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	_, u := serveHTTP(t, srv, &mcphttp.HandlerOptions{Sessions: store, Events: events})
	sid := replicatest.Initialize(t, u)
	_, resp, evs := replicatest.StartCall(t, u, sid, "late", `{}`)
	defer resp.Body.Close()
	for {
		if _, err := evs.Next(); err != nil {
			break
		}
	}
	select {
	case <-events.both:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream's two events were not both appended")
	}
	events.mu.Lock()
	defer events.mu.Unlock()
	if !slices.Equal(events.order, []int{1, 2}) {
		t.Fatalf("events appended in the order %v; want [1 2]", events.order)
	}
}
