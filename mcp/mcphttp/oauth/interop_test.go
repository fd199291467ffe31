package oauth_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// The TypeScript SDK's client runs its OAuth flow against our server
// (RequireAuth, the metadata endpoint, the test authorization server) and
// its tool sees who called.
func TestTSClientAgainstOwnServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := newProtected(t, "mcp:tools")
	out, err := peertest.RunNode(t, ctx, "ts-oauth-client.mjs", p.url)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tools  []string          `json:"tools"`
		Whoami map[string]string `json:"whoami"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Tools) != 1 || got.Whoami["subject"] != "user-1" || got.Whoami["client"] == "" {
		t.Fatalf("TS client saw %+v", got)
	}
}

// Our client runs the flow against the TypeScript SDK's example server
// with --oauth (its demo authorization server approves at once).
func TestOwnClientAgainstTSServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script := filepath.Join(peertest.NodeDir(t), "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js")
	// The example takes fixed ports from its environment: reserve two
	// free ones. Another process could take one between Close and the
	// server's listen; the test would then fail, not pass wrongly.
	mcpPort, authPort := freePort(t), freePort(t)
	cmd := peertest.NodeCmd(t, ctx, "", script, "--oauth")
	cmd.Env = append(cmd.Environ(), "MCP_PORT="+mcpPort, "MCP_AUTH_PORT="+authPort)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		seen := 0
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				if seen++; seen == 2 {
					close(ready)
				}
			}
		}
	}()
	select {
	case <-ready:
	case <-ctx.Done():
		t.Fatal("the TypeScript example server did not start")
	}
	tr := &oauth.Transport{Config: &oauth.Config{
		RedirectURL: "http://localhost:9/callback",
		UserAgent:   oauth.UserAgentFunc(headless),
	}}
	c := connect(t, ctx, "http://localhost:"+mcpPort+"/mcp", tr, mcp.Version20251125)
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) == 0 {
		t.Fatal("no tools listed")
	}
	res, err := c.CallTool(ctx, "greet", map[string]any{"name": "oauth"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res); !strings.Contains(string(b), "oauth") {
		t.Fatalf("greet answered %s", b)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}
