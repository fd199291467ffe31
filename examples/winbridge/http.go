package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/winbridge/winbridge/mcp"
)

// serveHTTP serves Streamable HTTP (filled in when mcp.NewHTTPHandler lands).
func serveHTTP(ctx context.Context, s *settings, srv *mcp.Server, log *slog.Logger, stderr io.Writer) int {
	fmt.Fprintln(stderr, "winbridge: -http is not available in this build yet")
	return 2
}
