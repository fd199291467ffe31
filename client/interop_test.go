package client_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// spawn starts argv as a stdio MCP server and returns a stream to it. The
// process is reaped when the test ends.
func spawn(t *testing.T, argv []string, env ...string) *transport.Stream {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = &testWriter{t}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return transport.NewStream(transport.NewLineFramer(struct {
		io.Reader
		io.WriteCloser
	}{out, in}, 0), nil)
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Logf("server stderr: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestOurClientAgainstNpxEverything launches the reference TypeScript
// server exactly as users do, with npx and a pinned version.
func TestOurClientAgainstNpxEverything(t *testing.T) {
	npx := peertest.LookPath(t, "npx")
	root := peertest.RepoRoot(t)
	// The pinned version comes from the lock file the rest of the suite uses.
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	b, err := os.ReadFile(filepath.Join(root, "internal/peers/node/package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	version := lock.Packages["node_modules/@modelcontextprotocol/server-everything"].Version
	if version == "" {
		t.Fatal("server-everything is not pinned in package-lock.json")
	}
	stream := spawn(t, []string{npx, "-y", "@modelcontextprotocol/server-everything@" + version, "stdio"},
		"npm_config_cache="+filepath.Join(os.TempDir(), "winbridge-npx-cache"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // first run downloads
	defer cancel()
	c, err := client.Connect(ctx, stream, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer c.Close()
	if v := c.ProtocolVersion(); mcp.IsStateless(v) {
		t.Logf("server-everything speaks %s", v)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tl := range tools {
		found = found || tl.Name == "echo"
	}
	if !found {
		t.Fatalf("no echo tool among %d tools", len(tools))
	}
	res, err := c.CallTool(ctx, "echo", map[string]string{"message": "hello from winbridge 中文"})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(res.TextOf(), "hello from winbridge 中文") {
		t.Fatalf("echo result: %+v %q", res, res.TextOf())
	}
}

// TestOurClientAgainstTSServer talks to a server written with the
// TypeScript SDK.
func TestOurClientAgainstTSServer(t *testing.T) {
	stream := spawn(t, peertest.TSServer(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Connect(ctx, stream, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.ProtocolVersion() != mcp.Version20251125 && c.ProtocolVersion() != mcp.Version20260728 {
		t.Errorf("protocol %s", c.ProtocolVersion())
	}
	res, err := c.CallTool(ctx, "add", map[string]int{"a": 2, "b": 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(res.StructuredContent); string(got) != `{"sum":5}` {
		t.Errorf("add structuredContent = %s", got)
	}
	res, err = c.CallTool(ctx, "fail", nil)
	if err != nil || !res.IsError {
		t.Errorf("fail: res=%+v err=%v", res, err)
	}
	var steps int
	_, err = c.CallTool(ctx, "slow", map[string]int{"ms": 30}, client.WithProgress(func(*mcp.ProgressParams) { steps++ }))
	if err != nil || steps == 0 {
		t.Errorf("slow: steps=%d err=%v", steps, err)
	}
}

// tsRun is what ts-client.mjs prints.
type tsRun struct {
	ProtocolVersion string             `json:"protocolVersion"`
	ServerInfo      mcp.Implementation `json:"serverInfo"`
	Tools           []string           `json:"tools"`
	Calls           []struct {
		Name     string          `json:"name"`
		Result   json.RawMessage `json:"result"`
		Error    *mcp.Error      `json:"error"`
		Progress []struct {
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
		} `json:"progress"`
	} `json:"calls"`
}

// TestTSClientDrivesEverythingServer has the TypeScript SDK's client drive
// our fixture server over stdio.
func TestTSClientDrivesEverythingServer(t *testing.T) {
	server := peertest.BuildGo(t, "./examples/everything-server")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := peertest.RunNode(t, ctx, "ts-client.mjs", "--protocol", mcp.Version20251125,
		"--call", "test_simple_text", "--call", "test_tool_with_progress", "--call", "test_error_handling",
		"--call", `test_structured_output={"a":1.5,"b":2}`, "--", server)
	if err != nil {
		t.Fatalf("ts-client: %v", err)
	}
	var run tsRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("ts-client output %s: %v", out, err)
	}
	if run.ProtocolVersion != mcp.Version20251125 || run.ServerInfo.Name != "winbridge-everything-server" {
		t.Errorf("handshake: %s %+v", run.ProtocolVersion, run.ServerInfo)
	}
	if len(run.Tools) < 8 {
		t.Errorf("tools: %v", run.Tools)
	}
	if len(run.Calls) != 4 {
		t.Fatalf("calls: %s", out)
	}
	var text mcp.CallToolResult
	if err := json.Unmarshal(run.Calls[0].Result, &text); err != nil || text.TextOf() != "This is a simple text response for testing." {
		t.Errorf("test_simple_text: %s", run.Calls[0].Result)
	}
	if p := run.Calls[1].Progress; len(p) != 3 || p[2].Progress != 100 || p[2].Total != 100 {
		t.Errorf("progress: %+v", p)
	}
	var failed mcp.CallToolResult
	if err := json.Unmarshal(run.Calls[2].Result, &failed); err != nil || !failed.IsError {
		t.Errorf("test_error_handling: %s %v", run.Calls[2].Result, run.Calls[2].Error)
	}
	var structured mcp.CallToolResult
	if err := json.Unmarshal(run.Calls[3].Result, &structured); err != nil || structured.TextOf() != `{"sum":3.5}` {
		t.Errorf("test_structured_output: %s", run.Calls[3].Result)
	}
}
