package mcphttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// heldAtEOF holds the handler's goroutine at its body's end, once net/http
// has seen it (and begun its background read of the connection), until the
// request's context is done or a while has passed: as if the goroutine had
// been descheduled there just as BodyTimeout fell due.
type heldAtEOF struct {
	io.ReadCloser
	ctx context.Context
}

func (b *heldAtEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		select {
		case <-b.ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
	return n, err
}

// A body that ends just as its BodyTimeout falls due is either refused
// (408) or served in a live context. It was taken as read while the wait,
// falling due after net/http saw the body's end, had ended net/http's
// background read of the connection, which cancels the request's context:
// the call then ran cancelled.
func TestHTTPBodyEndsAsItsTimeoutFallsDue(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "live", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "live", Description: "Reports whether its context is live."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if err := ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("the call's context: %w", err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "live"}}}, nil, nil
		})
	_, url := serveHTTPWrapped(t, srv, &mcphttp.HandlerOptions{BodyTimeout: 100 * time.Millisecond}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = &heldAtEOF{ReadCloser: r.Body, ctx: r.Context()}
			next.ServeHTTP(w, r)
		})
	})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"live","arguments":{},` + meta2026 + `}}`
	resp := rawPost(t, url, body, map[string]string{
		mcphttp.HeaderProtocolVersion: mcp.Version20260728, mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: "live",
	})
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case resp.StatusCode == http.StatusRequestTimeout:
	case resp.StatusCode == http.StatusOK && strings.Contains(string(got), `"text":"live"`):
	default:
		t.Fatalf("answered %s %q; want 408, or the call served live", resp.Status, got)
	}
}
