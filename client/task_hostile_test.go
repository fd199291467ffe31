package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// hostileTaskServer answers tools/call with a task and tasks/get with
// whatever get returns; it counts the tasks/get it was sent.
func hostileTaskServer(t *testing.T, created string, get func(n int64) string) (*client.Client, *atomic.Int64) {
	t.Helper()
	var gets atomic.Int64
	a, b := transport.Pipe(nil)
	srv := transport.NewConn(b, transport.HandlerFunc(func(ctx context.Context, conn *transport.Conn, r *transport.Request) {
		var res any
		switch r.Method {
		case "server/discover":
			res = &mcp.DiscoverResult{SupportedVersions: []string{mcp.Version20260728}}
		case "tools/call":
			res = rawJSON(created)
		case "tasks/get":
			res = rawJSON(get(gets.Add(1)))
		default:
			res = rawJSON(`{"resultType":"complete"}`)
		}
		_ = conn.Reply(ctx, r, res)
	}), nil)
	t.Cleanup(func() { srv.Close() })
	c, err := client.Connect(context.Background(), a, &client.Options{ProtocolVersion: mcp.Version20260728,
		OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, &gets
}

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

func TestAwaitAgainstHostileServers(t *testing.T) {
	const task = `"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z"`
	ctx := context.Background()

	t.Run("a poll interval of 1 ms does not make the client spin", func(t *testing.T) {
		c, gets := hostileTaskServer(t, `{"resultType":"task",`+task+`,"ttlMs":300,"pollIntervalMs":1}`,
			func(int64) string { return `{"resultType":"complete",` + task + `,"ttlMs":300,"pollIntervalMs":1}` })
		_, err := c.CallTool(ctx, "x", nil)
		if !errors.Is(err, client.ErrTimeout) {
			t.Fatalf("a task working past its TTL: %v", err)
		}
		// 300 ms at no less than 50 ms apart: a handful of polls, not
		// thousands.
		if n := gets.Load(); n > 10 {
			t.Errorf("%d polls in the task's 300 ms TTL", n)
		}
	})

	t.Run("input required without a question does not make the client spin", func(t *testing.T) {
		asking := strings.Replace(task, "working", "input_required", 1)
		c, gets := hostileTaskServer(t, `{"resultType":"task",`+task+`,"ttlMs":300}`,
			func(int64) string { return `{"resultType":"complete",` + asking + `,"ttlMs":300,"inputRequests":{}}` })
		_, err := c.CallTool(ctx, "x", nil)
		if !errors.Is(err, client.ErrTimeout) {
			t.Fatalf("a task asking nothing past its TTL: %v", err)
		}
		// Polled at the task's interval (1 s here, none given): one or
		// two polls in its 300 ms, not one per round trip.
		if n := gets.Load(); n > 10 {
			t.Errorf("%d polls in the task's 300 ms TTL", n)
		}
	})

	t.Run("an answer for another task", func(t *testing.T) {
		c, _ := hostileTaskServer(t, `{"resultType":"task",`+task+`,"ttlMs":60000}`,
			func(int64) string {
				return `{"resultType":"complete",` + strings.Replace(task, "t1", "t2", 1) + `,"ttlMs":60000}`
			})
		if _, err := c.CallTool(ctx, "x", nil); err == nil || !strings.Contains(err.Error(), "t2") {
			t.Fatalf("want an error naming the other task, got %v", err)
		}
	})

	t.Run("a task without an id", func(t *testing.T) {
		c, _ := hostileTaskServer(t, `{"resultType":"task","status":"working"}`, func(int64) string { return `{}` })
		if _, err := c.CallTool(ctx, "x", nil); err == nil {
			t.Fatal("accepted a task without an id")
		}
	})

	t.Run("completed without a result", func(t *testing.T) {
		done := strings.Replace(task, "working", "completed", 1)
		c, _ := hostileTaskServer(t, `{"resultType":"task",`+task+`,"ttlMs":60000}`,
			func(int64) string { return `{"resultType":"complete",` + done + `,"ttlMs":60000}` })
		if _, err := c.CallTool(ctx, "x", nil); err == nil {
			t.Fatal("accepted a completed task without a result")
		}
	})

	t.Run("questions without end", func(t *testing.T) {
		asking := strings.Replace(task, "working", "input_required", 1)
		c, gets := hostileTaskServer(t, `{"resultType":"task",`+task+`,"ttlMs":600000}`, func(n int64) string {
			return fmt.Sprintf(`{"resultType":"complete",%s,"ttlMs":600000,"inputRequests":{"q%d":{"method":"elicitation/create","params":{"message":"again?","requestedSchema":{"type":"object","properties":{}}}}}}`, asking, n)
		})
		_, err := c.CallTool(ctx, "x", nil)
		if err == nil || !strings.Contains(err.Error(), "asked for input more than") {
			t.Fatalf("want the input bound, got %v", err)
		}
		if n := gets.Load(); n > 70 {
			t.Errorf("%d polls", n)
		}
	})
}

// A stateless server that answers every tools/call with an
// InputRequiredResult of n elicitations makes the client ask its user
// (or model) no more than the bound on the input of one request, however
// many questions one round holds: a single round of thousands used to run
// the handler thousands of times, each a prompt to the user or a sampling
// of the model.
func TestInputRequestsPerCallAreBounded(t *testing.T) {
	for _, n := range []int{5000, 10} {
		t.Run(fmt.Sprintf("%d per round", n), func(t *testing.T) {
			var rounds atomic.Int64
			asks := make([]string, n)
			for i := range asks {
				asks[i] = fmt.Sprintf(`"q%d":{"method":"elicitation/create","params":{"message":"again?","requestedSchema":{"type":"object","properties":{}}}}`, i)
			}
			body := `{"resultType":"input_required","requestState":"s","inputRequests":{` + strings.Join(asks, ",") + `}}`
			a, b := transport.Pipe(nil)
			srv := transport.NewConn(b, transport.HandlerFunc(func(ctx context.Context, conn *transport.Conn, r *transport.Request) {
				var res any = rawJSON(`{"resultType":"complete"}`)
				switch r.Method {
				case "server/discover":
					res = &mcp.DiscoverResult{SupportedVersions: []string{mcp.Version20260728}}
				case "tools/call":
					rounds.Add(1)
					res = rawJSON(body)
				}
				_ = conn.Reply(ctx, r, res)
			}), nil)
			defer srv.Close()
			var asked atomic.Int64
			c, err := client.Connect(context.Background(), a, &client.Options{ProtocolVersion: mcp.Version20260728,
				OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					asked.Add(1)
					return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.CallTool(context.Background(), "x", nil)
			if err == nil || !strings.Contains(err.Error(), "asked for input more than") {
				t.Fatalf("want the input bound, got %v", err)
			}
			if got := asked.Load(); got > 64 {
				t.Errorf("the user was asked %d times in %d rounds", got, rounds.Load())
			}
		})
	}
}
