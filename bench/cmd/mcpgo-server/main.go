// Command mcpgo-server serves the benchmark workload with mark3labs/mcp-go
// over stdio (server.ServeStdio), with default options: tool calls run on a
// worker pool of 5.
package main

import (
	"log"

	"github.com/mark3labs/mcp-go/server"

	"github.com/winbridge/winbridge/bench/internal/servers/mcpgosrv"
)

func main() {
	if err := server.ServeStdio(mcpgosrv.New()); err != nil {
		log.Fatal(err)
	}
}
