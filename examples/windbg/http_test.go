package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// -http on an address other hosts can reach is refused before cdb starts
// (exit 2) unless -http-allow-remote is given, and then only with a token.
func TestHTTPRefusesRemoteAddress(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"-http", ":0"}, nil, "not a loopback address"},
		{[]string{"-http", "0.0.0.0:0"}, nil, "-http-allow-remote"},
		{nil, map[string]string{"WINDBG_HTTP": "0.0.0.0:0", "WINDBG_HTTP_ALLOW_REMOTE": "1"}, "needs a bearer token"},
		{[]string{"-http", "127.0.0.1:0"}, map[string]string{"WINDBG_HTTP_TOKEN": "short"}, "at least 16"},
	} {
		var out bytes.Buffer
		args := append([]string{"-dump", "a.dmp", "-cdb", "/nonexistent/cdb.exe"}, tc.args...)
		code := run(context.Background(), args, func(k string) string { return tc.env[k] }, &out)
		if code != 2 || !strings.Contains(out.String(), tc.want) || strings.Contains(out.String(), "opening the cdb session") {
			t.Errorf("%q %v: exit %d, %q; want 2 and %q, before cdb starts", tc.args, tc.env, code, out.String(), tc.want)
		}
	}
}

// With WINDBG_HTTP_TOKEN every request needs Authorization: Bearer.
func TestHTTPToken(t *testing.T) {
	f := newFake(t)
	const token = "windbg-token-0123456789"
	env := map[string]string{
		"WINDBG_CDB":        fakeExe,
		"WINDBG_LAUNCHER":   strings.Join(f.cfg.Launcher, " "),
		"WINDBG_DUMP":       `C:\dumps\app.dmp`,
		"WINDBG_HTTP_TOKEN": token,
	}
	url, stderr, stop := runMain(t, []string{"-http", "127.0.0.1:0"}, env)
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("without the token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := mcphttp.NewStream(ctx, url, &mcphttp.ClientOptions{Header: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctx, stream, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	res, err := c.CallTool(ctx, "windbg_eval", map[string]any{"command": "k"})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "app!main") {
		t.Fatalf("windbg_eval with the token: %v %+v", err, res)
	}
	c.Close()
	if code := stop(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if strings.Contains(stderr.String(), token) {
		t.Fatalf("stderr shows the token:\n%s", stderr)
	}
}
