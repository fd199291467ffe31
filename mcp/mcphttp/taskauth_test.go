package mcphttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// Behind RequireAuth, a task belongs to the principal that started it (the
// tasks specification binds tasks to the authorization context): another
// user, or the same user through another client, who learns its ID gets
// "unknown task" from tasks/get, tasks/update and tasks/cancel, and the
// task runs on untouched. Stateless requests have no session to bind to,
// so before this the ID alone was the key.
func TestTasksBoundToPrincipal(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	gate := make(chan struct{})
	mcp.AddTool(srv, &mcp.Tool{Name: "wait", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskRequired}},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	tokens := map[string]*mcphttp.AuthInfo{
		"alice":       {Subject: "alice", ClientID: "app"},
		"alice-other": {Subject: "alice", ClientID: "other-app"},
		"bob":         {Subject: "bob", ClientID: "app"},
		// A subject that ends in what another pair's client begins with
		// must not meet it.
		"tricky": {Subject: `alice" "app`, ClientID: ""},
	}
	verifier := mcphttp.TokenVerifierFunc(func(_ context.Context, tok string) (*mcphttp.AuthInfo, error) {
		if a, ok := tokens[tok]; ok {
			c := *a
			return &c, nil
		}
		return nil, fmt.Errorf("%w: unknown", mcphttp.ErrInvalidToken)
	})
	_, url := serveHTTPWrapped(t, srv, nil, func(h http.Handler) http.Handler {
		return mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: verifier, ResourceMetadataURL: "https://mcp.example/prm"}, h)
	})
	dial := func(token string) *client.Client {
		t.Helper()
		f, err := mcphttp.NewFramer(context.Background(), url, &mcphttp.ClientOptions{
			Logger: quietLog, Header: http.Header{"Authorization": {"Bearer " + token}}})
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.Connect(context.Background(), transport.NewStream(f, &transport.StreamOptions{Logger: quietLog}),
			&client.Options{ProtocolVersion: mcp.Version20260728, Logger: quietLog})
		if err != nil {
			t.Fatalf("connect as %s: %v", token, err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	alice := dial("alice")
	task, err := alice.StartTool(ctx, "wait", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"bob", "alice-other", "tricky"} {
		c := dial(who)
		for _, method := range []string{"tasks/get", "tasks/cancel"} {
			var out map[string]any
			err := c.Call(ctx, method, &mcp.TaskParams{TaskID: task.ID()}, &out)
			var e *transport.Error
			if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams {
				t.Errorf("%s: %s of alice's task = %v, %v; want invalid params (unknown task)", who, method, out, err)
			}
		}
		err := c.Call(ctx, "tasks/update", &mcp.UpdateTaskParams{TaskID: task.ID(), InputResponses: mcp.InputResponses{}}, nil)
		var e *transport.Error
		if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams {
			t.Errorf("%s: tasks/update of alice's task = %v; want invalid params (unknown task)", who, err)
		}
	}
	got, err := task.Poll(ctx)
	if err != nil || got.Status != mcp.TaskWorking {
		t.Fatalf("alice polls her task after the others tried: %+v, %v", got, err)
	}
	close(gate)
	res, err := task.Await(ctx)
	if err != nil || res.TextOf() != "done" {
		t.Fatalf("alice awaits her task: %v, %v", res, err)
	}
}
