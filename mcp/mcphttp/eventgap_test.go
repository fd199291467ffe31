package mcphttp_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/replicatest"
)

// failSecondEvent is an EventStore that fails the append of each
// stream's second event, and stores the rest in a MemoryStore.
type failSecondEvent struct{ mcphttp.EventStore }

func (f failSecondEvent) Append(ctx context.Context, session, stream string, ev mcphttp.StoredEvent, final bool, ttl time.Duration) error {
	if ev.N == 2 {
		return context.DeadlineExceeded
	}
	return f.EventStore.Append(ctx, session, stream, ev, final, ttl)
}

// A stream some of whose events the EventStore missed (a failed append,
// then the Handler's rest) is not resumed elsewhere as if whole: a
// client that resumes it on another replica after event 1 must not be
// given events 3 and 4 as what followed event 1. Event 2 is lost to it
// without a sign (were it a question to the client, the call would hang).
func TestReplicasStoredStreamHasNoGap(t *testing.T) {
	store := &mcphttp.MemoryStore{}
	reached, cont := make(chan struct{}), make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "gap", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "steps", Description: "Three steps, a pause after the second."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			for i := 1; i <= 3; i++ {
				if err := req.Progress(ctx, float64(i), 3, ""); err != nil {
					return nil, nil, err
				}
				if i == 2 {
					reached <- struct{}{}
					<-cont
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }

	a, ua := serveHTTP(t, srv, &mcphttp.HandlerOptions{Sessions: store, Events: failSecondEvent{store.Events()}})
	a.SetClock(clock)
	_, ub := serveHTTP(t, replicatest.Server(&mcp.ServerOptions{Logger: quietLog}),
		&mcphttp.HandlerOptions{Sessions: store, Events: store.Events()})
	urls := []string{ua, ub}

	sid := replicatest.Initialize(t, urls[0])
	_, resp, evs := replicatest.StartCall(t, urls[0], sid, "steps", `{}`)
	defer resp.Body.Close()
	<-reached // events 1 and 2 were appended (2 failed) before Progress returned
	mu.Lock()
	now = now.Add(time.Minute) // the Handler's rest after the failure is over
	mu.Unlock()
	close(cont)
	var ids []string
	for {
		ev, err := evs.Next()
		if err != nil {
			t.Fatalf("the stream ended before its result: %v", err)
		}
		if ev.Data == "" {
			continue
		}
		ids = append(ids, ev.ID)
		if strings.Contains(ev.Data, `"result"`) {
			break
		}
	}
	if len(ids) != 4 {
		t.Fatalf("the call sent %d events, want 4: %v", len(ids), ids)
	}

	// Resume on the other replica after event 1.
	req, _ := http.NewRequest(http.MethodGet, urls[1], nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", ids[0])
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		return // refused: no gap served
	}
	rest := replicatest.NewEvents(r.Body)
	want := 2
	for {
		ev, err := rest.Next()
		if err != nil {
			break
		}
		if ev.Data == "" {
			continue
		}
		n, _ := strconv.Atoi(ev.ID[strings.LastIndexByte(ev.ID, '_')+1:])
		if n != want {
			t.Fatalf("resumed after event 1 on another replica, the first event is %d (%s), want %d or none: the events between are lost silently", n, ev.ID, want)
		}
		want++
	}
}
