// Command echo is the smallest useful MCP server: one tool, "echo", that
// returns its text, served over stdio.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/winbridge/winbridge/internal/cli"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

type echoIn struct {
	Text string `json:"text" jsonschema_description:"the text to echo back"`
}

type echoOut struct {
	Text string `json:"text"`
}

func main() {
	fs := flag.NewFlagSet("echo", flag.ContinueOnError)
	version := fs.Bool("version", false, "print the version and exit")
	if err := cli.Parse(fs, os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "echo:", err)
		os.Exit(2)
	}
	if *version {
		fmt.Println(cli.VersionString("echo"))
		return
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
			return nil, echoOut(in), nil
		})
	stream, err := transport.Stdio(nil)
	if err != nil {
		slog.Error("echo: stdio", "err", err)
		os.Exit(1)
	}
	if err := srv.Run(context.Background(), stream); err != nil {
		slog.Error("echo: serving", "err", err)
		os.Exit(1)
	}
}
