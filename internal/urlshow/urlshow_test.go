package urlshow_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/urlshow"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://server.smithery.ai/x/mcp?api_key=k3y-s3cr3t", "https://server.smithery.ai/x/mcp?..."},
		{"https://server.smithery.ai/@owner/server-name/mcp", "https://server.smithery.ai/@owner/server-name/mcp"},
		{"https://actions.zapier.com/mcp/sk-ak-Zq81xYt0PqLm3NvR/sse", "https://actions.zapier.com/mcp/.../sse"},
		{"https://mcp.composio.dev/composio/server/0f3c6a8e-2b1d-4c55-9e77-31a0b2c4d5e6/mcp", "https://mcp.composio.dev/composio/server/.../mcp"},
		{"https://user:pa55word@mcp.example:8443/mcp", "https://mcp.example:8443/mcp"},
		{"http://127.0.0.1:9/v1/mcp/", "http://127.0.0.1:9/v1/mcp/"},
		{"https://login.example/oauth2/v2.0/token#frag", "https://login.example/.../v2.0/token"},
		{"https://mcp.example/mcp/hunter2", "https://mcp.example/mcp/..."},
		{"https://mcp.example/Secret", "https://mcp.example/..."},
		{"https://mcp.example/a%2Fb", "https://mcp.example/..."},
		{"https://mcp.example?", "https://mcp.example?..."},
		{"https://[::1]:8080/mcp", "https://[::1]:8080/mcp"},
		{"mailto:someone@example.com", "mailto:..."},
		{"/mcp/t0k3n123/sse", "/mcp/.../sse"},
		{"https://mcp.example/%zz", urlshow.Invalid},
		{"", ""},
	} {
		if got := urlshow.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Error keeps what callers match on: the *url.Error itself, and what it
// wraps (a timeout, a cancellation, a net.Error).
func TestErrorKeepsChain(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	for _, inner := range []error{context.Canceled, context.DeadlineExceeded, dial} {
		in := &url.Error{Op: "Post", URL: "https://mcp.example/mcp?api_key=s3cr3t-v4lue", Err: inner}
		err := urlshow.Error(in)
		if strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%v shows the key", err)
		}
		if !strings.Contains(err.Error(), "https://mcp.example/mcp?...") {
			t.Errorf("%v should name the endpoint", err)
		}
		if !errors.Is(err, inner) {
			t.Errorf("errors.Is(%v, %v) = false", err, inner)
		}
		var ue *url.Error
		if !errors.As(err, &ue) || ue.Op != "Post" || strings.Contains(ue.URL, "s3cr3t") {
			t.Errorf("errors.As(%v, *url.Error) = %v", err, ue)
		}
		if in.URL != "https://mcp.example/mcp?api_key=s3cr3t-v4lue" {
			t.Errorf("Error changed its argument: %q", in.URL)
		}
	}
	var ne net.Error
	if err := urlshow.Error(&url.Error{Op: "Get", URL: "https://h/", Err: dial}); !errors.As(err, &ne) {
		t.Errorf("errors.As(%v, net.Error) = false", err)
	}
	plain := errors.New("plain")
	if urlshow.Error(plain) != plain || urlshow.Error(nil) != nil {
		t.Error("an error other than *url.Error should come back as it is")
	}
}
