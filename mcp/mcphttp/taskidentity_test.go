package mcphttp_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// A 2026-07-28 task runs on after the request that started it, whose
// session ends with its response. SessionAuth then answered nil in the
// task's handler: a tool that reads "no AuthInfo" as "no authorization
// configured" (or panics on it, as the documented example would) ran the
// task as no one, outside the user's own checks and budgets. The task's
// handler sees the identity that started it for its whole life.
func TestSessionAuthInStatelessTask(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskRequired}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			// The request that started the task has ended once its
			// session has: what the handler sees from then on is what it
			// sees for the rest of the task.
			if err := req.Session.Wait(ctx); err != nil {
				return nil, nil, err
			}
			who := "nobody"
			if a := mcphttp.SessionAuth(req.Session); a != nil {
				who = a.Subject + "/" + a.ClientID
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: who}}}, nil, nil
		})
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		if tok != "alice" {
			return nil, fmt.Errorf("%w: unknown", mcphttp.ErrInvalidToken)
		}
		return &mcphttp.AuthInfo{Subject: "alice", ClientID: "app"}, nil
	})
	_, url := serveHTTPWrapped(t, srv, nil, func(h http.Handler) http.Handler {
		return mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier}, h)
	})
	f, err := mcphttp.NewFramer(context.Background(), url, &mcphttp.ClientOptions{
		Logger: quietLog, Header: http.Header{"Authorization": {"Bearer alice"}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(context.Background(), transport.NewStream(f, &transport.StreamOptions{Logger: quietLog}),
		&client.Options{ProtocolVersion: mcp.Version20260728, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, "whoami", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.TextOf(); got != "alice/app" {
		t.Fatalf("the task's handler saw SessionAuth = %q, want alice/app", got)
	}
}
