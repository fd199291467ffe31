package oauth_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/logrec"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// A key in the MCP server's path (/mcp/KEY/sse) reaches neither the
// flow's debug log (the resource it names) nor the error of a refused
// authorization. Before, the log named the resource whole.
func TestURLKeyNotLogged(t *testing.T) {
	const key = "Zq81xYt0PqLm3NvR"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var logs logrec.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := newProtectedAt(t, "/mcp/"+key+"/sse", func(*mcphttp.AuthOptions) {})
	tr := &oauth.Transport{Config: &oauth.Config{RedirectURL: "http://127.0.0.1:9/callback", UserAgent: oauth.UserAgentFunc(headless), Logger: logger}}
	c := connect(t, ctx, p.url, tr, mcp.Version20251125)
	whoami(t, ctx, c)

	forged := &oauth.Transport{Config: &oauth.Config{RedirectURL: "http://127.0.0.1:9/callback", Logger: logger,
		UserAgent: oauth.UserAgentFunc(func(ctx context.Context, u string) (url.Values, error) {
			q, err := headless(ctx, u)
			q.Set("error", "access_denied")
			return q, err
		})}}
	stream, err := mcphttp.NewStream(ctx, p.url, &mcphttp.ClientOptions{Client: &http.Client{Transport: forged}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Connect(ctx, stream, &client.Options{ProtocolVersion: mcp.Version20251125, ClientInfo: &mcp.Implementation{Name: "t", Version: "1"}})
	if err == nil {
		t.Fatal("connect succeeded with a refused authorization")
	}
	out := logs.String() + "\n" + err.Error()
	if !strings.Contains(out, "oauth: discovered") || !strings.Contains(out, "/mcp/.../sse") {
		t.Fatalf("no debug line names the resource; the test would pass vacuously:\n%s", out)
	}
	if strings.Contains(out, key) {
		t.Errorf("the key in the server's path shows:\n%s", out)
	}
}
