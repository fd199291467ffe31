package gateway

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/logrec"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// TestURLSecretNotInRefusals: a Streamable HTTP upstream's URL often
// carries its credential in the query (?api_key=…). When the server goes
// away, the error of the failed request names the URL; the facade put
// that error into the refusal the model reads, and from the model's
// context any upstream it talks to can ask for it. The query and user
// information of a configured URL never reach a refusal.
func TestURLSecretNotInRefusals(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	up.AddTool(&mcp.Tool{Name: "t", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)}, InputSchema: []byte(`{"type":"object"}`)},
		func(_ context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	h := mcphttp.NewHandler(up, &mcphttp.HandlerOptions{AllowedHosts: []string{"*"}})
	defer h.Shutdown(context.Background())
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("api_key") != "SECRET-IN-QUERY" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	url := strings.Replace(ts.URL, "http://", "http://user:SECRET-IN-USERINFO@", 1) + "/mcp?api_key=SECRET-IN-QUERY"
	f := start(t, &Options{HTTP: map[string]*HTTPServer{"remote": {URL: url}}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	if res, code := f.call(t, "remote__t", nil); code != CodeOK {
		t.Fatalf("before: %s %q", code, res.TextOf())
	}
	ts.CloseClientConnections()
	ts.Close()
	res, code := f.call(t, "remote__t", nil)
	if code == CodeOK {
		t.Fatalf("after the server went away: %s %q", code, res.TextOf())
	}
	for _, s := range []string{"SECRET-IN-QUERY", "SECRET-IN-USERINFO"} {
		if strings.Contains(res.TextOf(), s) {
			t.Errorf("the refusal shows the URL's secret: %s %q", code, res.TextOf())
		}
	}
}

// TestURLSecretNotInStatusOrLog: an HTTP upstream that cannot be reached
// fails to start; the error that says why, in Status and in the log,
// names no secret of its URL or headers.
func TestURLSecretNotInStatusOrLog(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	addr := ts.URL
	ts.Close() // nothing listens there now
	var logged logrec.Buffer
	g, err := New(&Options{HTTP: map[string]*HTTPServer{"remote": {URL: addr + "/mcp?api_key=SECRET-IN-QUERY",
		Header: http.Header{"Authorization": {"Bearer SECRET-IN-HEADER"}}}},
		Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = g.Start(ctx) // fails: nothing listens
	st := g.Status()
	if len(st) != 1 || st[0].Err == nil {
		t.Fatalf("%+v", st)
	}
	for _, s := range []string{"SECRET-IN-QUERY", "SECRET-IN-HEADER"} {
		if strings.Contains(st[0].Err.Error(), s) {
			t.Errorf("Status shows a secret: %v", st[0].Err)
		}
		if strings.Contains(logged.String(), s) {
			t.Errorf("the log shows a secret:\n%s", logged.String())
		}
	}
}
