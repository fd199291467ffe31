//go:build linux

package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/startgatetest"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// helperEnv makes the test binary act as a (misbehaving) server instead
// of running tests; its value is the mode.
const helperEnv = "WINBRIDGE_CLIENT_HELPER"

// TestMain runs the helper servers of the process tests when the test
// binary is started as one.
func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

func runHelper(mode string) int {
	switch mode {
	case "server":
		return helperServer()
	case "junk":
		return junkServer()
	case "silent":
		// Reads its input and never answers.
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				return 0
			}
		}
	case "sleep":
		time.Sleep(time.Hour) // a grandchild that would outlive everyone
		return 0
	case "deaf":
		return deafServer()
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}

// helperServer is a real MCP server whose behaviour the environment
// bends: WB_EXIT_AT_START=CODE, WB_CRASH_FILE=PATH (exit 5 at start while
// the file exists), WB_STDERR_FLOOD=BYTES, WB_IGNORE_TERM=1 (ignore
// SIGTERM and the end of stdin), WB_GRANDCHILD=1 (start a grandchild that
// holds stdout and stderr open), WB_STDERR_LINE=TEXT (write TEXT and a
// newline to stderr first), WB_GATE_DIR=DIR (hold the start until the
// test lets it go; see package internal/startgatetest).
func helperServer() int {
	if dir := os.Getenv("WB_GATE_DIR"); dir != "" {
		startgatetest.Hold(dir)
	}
	if line, ok := os.LookupEnv("WB_STDERR_LINE"); ok {
		fmt.Fprintln(os.Stderr, line)
	}
	if code := os.Getenv("WB_EXIT_AT_START"); code != "" {
		fmt.Fprintln(os.Stderr, "fatal: the configuration file is missing")
		n, _ := strconv.Atoi(code)
		return n
	}
	if f := os.Getenv("WB_CRASH_FILE"); f != "" {
		if _, err := os.Stat(f); err == nil {
			fmt.Fprintln(os.Stderr, "crash file present; exiting")
			return 5
		}
	}
	if n, _ := strconv.Atoi(os.Getenv("WB_STDERR_FLOOD")); n > 0 {
		floodStderr(n)
	}
	if os.Getenv("WB_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	if os.Getenv("WB_GRANDCHILD") == "1" {
		exe, _ := os.Executable()
		gc := exec.Command(exe)
		gc.Env = append(os.Environ(), helperEnv+"=sleep")
		gc.Stdout, gc.Stderr = os.Stdout, os.Stderr // holds the pipes open
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "grandchild:", err)
			return 3
		}
		fmt.Fprintf(os.Stderr, "grandchild=%d\n", gc.Process.Pid)
	}

	srv := mcp.NewServer(&mcp.Implementation{Name: "helper", Version: "1.0.0"}, nil)
	type text struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in text) (*mcp.CallToolResult, text, error) {
		return nil, in, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "crash"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Code int `json:"code"`
	}) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "about to crash in the middle of a call")
		os.Exit(in.Code)
		return nil, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "hang"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		time.Sleep(time.Hour) // never answers, even when cancelled
		return nil, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "stderr"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Bytes int `json:"bytes"`
	}) (*mcp.CallToolResult, text, error) {
		floodStderr(in.Bytes)
		return nil, text{"flooded"}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "grow"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		mcp.AddTool(srv, &mcp.Tool{Name: "grown"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "env"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]any, error) {
		wd, _ := os.Getwd()
		return nil, map[string]any{"env": os.Environ(), "cwd": wd}, nil
	})
	stream, err := transport.Stdio(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	err = srv.Run(context.Background(), stream)
	if os.Getenv("WB_IGNORE_TERM") == "1" {
		fmt.Fprintln(os.Stderr, "stdin closed; staying up anyway")
		time.Sleep(time.Hour)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// floodStderr writes n bytes to stderr in lines, ending with a marker.
func floodStderr(n int) {
	line := strings.Repeat("x", 1023) + "\n"
	w := bufio.NewWriterSize(os.Stderr, 64<<10)
	for written := 0; written < n; written += len(line) {
		w.WriteString(line)
	}
	w.WriteString("END-OF-FLOOD\n")
	w.Flush()
}

// junkServer answers by hand, with lines of junk on stdout around every
// response: banners, broken JSON, blank lines. WB_TOOLS=JSON is the array
// of tools its tools/list answers. WB_PAGE_DELAY_MS=N makes tools/list
// page slowly and without end: each page after N ms, with a next cursor
// (but for the 50th, a stop for clients that would follow them all).
// WB_EXIT_ON=METHOD makes it exit (status 7) when it reads that method,
// request or notification. WB_LINGER=1 makes it ignore SIGTERM and stay
// up once its stdin ends, saying so on stderr.
func junkServer() int {
	if os.Getenv("WB_LINGER") == "1" {
		signal.Ignore(syscall.SIGTERM)
		defer func() {
			fmt.Fprintln(os.Stderr, "stdin closed; lingering")
			time.Sleep(time.Hour)
		}()
	}
	pageDelay, _ := strconv.Atoi(os.Getenv("WB_PAGE_DELAY_MS"))
	pages := 0
	out := bufio.NewWriter(os.Stdout)
	junk := func() {
		out.WriteString("Server running on stdio\n")
		out.WriteString("{broken json\n\n")
		out.WriteString("Debugger listening on ws://127.0.0.1:9229/x\n")
	}
	junk()
	out.Flush()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil {
			continue
		}
		if m := os.Getenv("WB_EXIT_ON"); m != "" && req.Method == m {
			fmt.Fprintln(os.Stderr, "exiting on "+m)
			return 7
		}
		if req.ID == nil {
			continue
		}
		var result, rpcErr string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"` + mcp.LatestLegacyVersion + `","capabilities":{"tools":{}},"serverInfo":{"name":"junk","version":"1"}}`
		case "tools/call":
			result = `{"content":[{"type":"text","text":"ok"}]}`
		case "tools/list":
			result = `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`
			if tools := os.Getenv("WB_TOOLS"); tools != "" {
				result = `{"tools":` + tools + `}`
			}
			if pageDelay > 0 {
				time.Sleep(time.Duration(pageDelay) * time.Millisecond) // the server's slowness
				if pages++; pages < 50 {
					result = `{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"more"}`
				}
			}
		case "ping":
			result = `{}`
		default:
			rpcErr = `{"code":-32601,"message":"method not found"}`
		}
		junk()
		if rpcErr != "" {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":%s}`+"\n", req.ID, rpcErr)
		} else {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
		}
		junk()
		out.Flush()
	}
	return 0
}

// deafServer completes the handshake and then never reads its stdin again,
// nor exits: whatever the client writes piles up in the pipe.
func deafServer() int {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil {
			continue
		}
		switch req.Method {
		case "initialize":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"deaf","version":"1"}}}`+"\n", req.ID, mcp.LatestLegacyVersion)
		case "notifications/initialized":
			time.Sleep(time.Hour)
		default:
			if req.ID != nil {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", req.ID)
			}
		}
	}
	return 0
}

// helperCommand is the test binary run as a helper server.
func helperCommand(t testing.TB, mode string, env ...string) *client.Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The race detector's default one-second pause at exit would slow
	// every shutdown down.
	return &client.Command{Path: exe, Env: append([]string{helperEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"}, env...)}
}

// launch starts a helper server and closes it when the test ends.
func launch(t *testing.T, cmd *client.Command, opts *client.ProcessOptions) *client.Process {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if opts == nil {
		opts = &client.ProcessOptions{}
	}
	if opts.Logger == nil {
		opts.Logger = quietLog
	}
	p, err := client.Launch(ctx, cmd, opts)
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}
