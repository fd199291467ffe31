package client_test

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// slowServer is an in-process server that answers every request with
// answer's result after delay (sooner if the request is cancelled). It
// speaks 2026-07-28 when stateless, else 2025-11-25.
func slowServer(t *testing.T, stateless bool, opts *client.Options, delay time.Duration, answer func(n int64, r *transport.Request) any) *client.Client {
	t.Helper()
	var n atomic.Int64
	a, b := transport.Pipe(nil)
	srv := transport.NewConn(b, transport.HandlerFunc(func(ctx context.Context, conn *transport.Conn, r *transport.Request) {
		var res any
		switch r.Method {
		case "server/discover":
			res = &mcp.DiscoverResult{SupportedVersions: []string{mcp.Version20260728}}
		case "initialize":
			res = rawJSON(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"slow","version":"1"}}`)
		case "notifications/initialized", "notifications/cancelled":
			return
		default:
			t := time.NewTimer(delay) // the server's slowness, not a synchronization
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
			res = answer(n.Add(1), r)
		}
		_ = conn.Reply(ctx, r, res)
	}), nil)
	t.Cleanup(func() { srv.Close() })
	o := *opts
	o.ProtocolVersion = mcp.Version20251125
	if stateless {
		o.ProtocolVersion = mcp.Version20260728
	}
	c, err := client.Connect(context.Background(), a, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The per-call timeout bounds the whole list a caller asked for, not each
// of its pages: a server that pages forever, each page well within the
// timeout, cannot hold ListTools for pages times the timeout. Before, the
// list below went on for all of the server's 40 pages (2.4 s, and up to
// 10000 pages with a server that never stops).
func TestListTimeoutBoundsAllPages(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts client.Options
		call []client.CallOption
	}{
		{"Options.Timeout", client.Options{Timeout: 150 * time.Millisecond}, nil},
		{"WithTimeout", client.Options{}, []client.CallOption{client.WithTimeout(150 * time.Millisecond)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noLeaks(t)
			c := slowServer(t, false, &tc.opts, 60*time.Millisecond, func(n int64, r *transport.Request) any {
				if n >= 40 {
					return rawJSON(`{"tools":[]}`) // a safety stop for the old behaviour
				}
				return rawJSON(`{"tools":[{"name":"t` + strconv.FormatInt(n, 10) + `","inputSchema":{"type":"object"}}],"nextCursor":"more"}`)
			})
			start := time.Now()
			_, err := c.ListTools(context.Background(), tc.call...)
			elapsed := time.Since(start)
			if !errors.Is(err, client.ErrTimeout) {
				t.Fatalf("ListTools after %v: %v, want ErrTimeout", elapsed, err)
			}
			if elapsed > 2*time.Second {
				t.Errorf("ListTools took %v with a timeout of 150ms", elapsed)
			}
		})
	}
}

// The timeout bounds the whole multi round-trip call of 2026-07-28: a
// server that asks for input round after round, each round well within
// the timeout, cannot hold CallTool (GetPrompt, ReadResource) for 16
// rounds times the timeout. Before, each call below ran its 16 rounds
// (1.6 s) and failed for the rounds, not the timeout.
func TestInputRoundsShareTheTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(*client.Client) error
	}{
		{"CallTool", func(c *client.Client) error { _, err := c.CallTool(context.Background(), "x", nil); return err }},
		{"GetPrompt", func(c *client.Client) error { _, err := c.GetPrompt(context.Background(), "p", nil); return err }},
		{"ReadResource", func(c *client.Client) error { _, err := c.ReadResource(context.Background(), "x:r"); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noLeaks(t)
			opts := client.Options{
				Timeout: 200 * time.Millisecond,
				OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
				},
			}
			c := slowServer(t, true, &opts, 100*time.Millisecond, func(n int64, r *transport.Request) any {
				return rawJSON(`{"resultType":"input_required","requestState":"s","inputRequests":{"q` + strconv.FormatInt(n, 10) + `":{"method":"elicitation/create","params":{"message":"again?","requestedSchema":{"type":"object","properties":{}}}}}}`)
			})
			start := time.Now()
			err := tc.call(c)
			elapsed := time.Since(start)
			if !errors.Is(err, client.ErrTimeout) {
				t.Fatalf("%s after %v: %v, want ErrTimeout", tc.name, elapsed, err)
			}
			if elapsed > 2*time.Second {
				t.Errorf("%s took %v with a timeout of 200ms", tc.name, elapsed)
			}
		})
	}
}

// A tool call the server turns into a task is one call: its timeout
// bounds the awaiting too. Before, a task kept working without a TTL held
// CallTool until the server stopped (here after 3 s), each poll within
// the timeout.
func TestTaskAwaitedWithinTheCallTimeout(t *testing.T) {
	noLeaks(t)
	const task = `"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","pollIntervalMs":50`
	start := time.Now()
	c := slowServer(t, true, &client.Options{Timeout: 200 * time.Millisecond}, time.Millisecond, func(n int64, r *transport.Request) any {
		switch {
		case r.Method == "tools/call":
			return rawJSON(`{"resultType":"task",` + task + `}`)
		case r.Method == "tasks/get" && time.Since(start) > 3*time.Second:
			return rawJSON(`{"resultType":"complete","taskId":"t1","status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","result":{"content":[]}}`)
		}
		return rawJSON(`{"resultType":"complete",` + task + `}`)
	})
	_, err := c.CallTool(context.Background(), "x", nil)
	elapsed := time.Since(start)
	if !errors.Is(err, client.ErrTimeout) {
		t.Fatalf("CallTool after %v: %v, want ErrTimeout", elapsed, err)
	}
	if elapsed > 2*time.Second {
		t.Errorf("CallTool took %v with a timeout of 200ms", elapsed)
	}
}
