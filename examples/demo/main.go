// Command demo is the README's main job: it starts an MCP server as a child
// process (itself, with the argument "serve"), connects to it over stdio
// with the client SDK in both protocol eras, lists its tools, calls them,
// and prints what happened. It needs nothing but Go and no network.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		serve()
		return
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo: FAILED:", err)
		os.Exit(1)
	}
}

type sumIn struct {
	A float64 `json:"a" jsonschema:"description=first addend"`
	B float64 `json:"b" jsonschema:"description=second addend"`
}

type sumOut struct {
	Sum float64 `json:"sum"`
}

type echoIn struct {
	Text string `json:"text" jsonschema:"description=text to echo"`
}

// serve is the child: a stdio server with two tools.
func serve() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "demo-server", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "sum", Description: "Adds two numbers."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
			return nil, sumOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes text."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			fmt.Println("this stray print goes to stderr, not into the protocol")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	stream, err := transport.Stdio(nil)
	if err != nil {
		slog.Error("demo server", "err", err)
		os.Exit(1)
	}
	if err := srv.Run(context.Background(), stream); err != nil {
		slog.Error("demo server", "err", err)
		os.Exit(1)
	}
}

// child is a server process and the byte stream to it.
type child struct {
	cmd *exec.Cmd
	io.Reader
	io.WriteCloser
}

func (c *child) Close() error { return c.WriteCloser.Close() }

func start() (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "serve")
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &child{cmd: cmd, Reader: out, WriteCloser: in}, nil
}

func run(w io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		ch, err := start()
		if err != nil {
			return err
		}
		c, err := client.Connect(ctx, transport.NewStream(transport.NewLineFramer(ch, 0), nil), &client.Options{ProtocolVersion: version})
		if err != nil {
			return err
		}
		info := c.ServerInfo()
		fmt.Fprintf(w, "connected to %s %s over stdio, protocol %s\n", info.Name, info.Version, c.ProtocolVersion())
		tools, err := c.ListTools(ctx)
		if err != nil {
			return err
		}
		var names []string
		for _, t := range tools {
			names = append(names, t.Name)
		}
		fmt.Fprintf(w, "  tools: %s\n", strings.Join(names, ", "))
		res, err := c.CallTool(ctx, "sum", sumIn{A: 20, B: 22})
		if err != nil {
			return err
		}
		sc, _ := json.Marshal(res.StructuredContent)
		fmt.Fprintf(w, "  sum(20, 22) -> %s\n", sc)
		res, err = c.CallTool(ctx, "echo", echoIn{Text: `quotes " and \ backslashes, 中文`})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  echo -> %s\n", res.TextOf())
		res, err = c.CallTool(ctx, "sum", map[string]any{"a": "twenty"})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  sum(\"twenty\") -> isError=%v: %s\n", res.IsError, res.TextOf())
		c.Close()
		if err := ch.cmd.Wait(); err != nil {
			return fmt.Errorf("server exit: %w", err)
		}
		fmt.Fprintf(w, "  server exited cleanly\n")
	}
	fmt.Fprintln(w, "demo: OK")
	return nil
}
