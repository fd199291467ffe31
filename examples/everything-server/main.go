// Command everything-server serves the MCP conformance suite's reference
// fixture: tools whose names and behaviour follow the scenarios of
// @modelcontextprotocol/conformance, over stdio, in both protocol eras.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/winbridge/winbridge/transport"
)

func main() {
	stream, err := transport.Stdio(nil)
	if err != nil {
		slog.Error("everything-server: stdio", "err", err)
		os.Exit(1)
	}
	if err := newServer().Run(context.Background(), stream); err != nil {
		slog.Error("everything-server: serving", "err", err)
		os.Exit(1)
	}
}
